/** Substring search with SQL `LIKE` on the state database's text columns. */

/**
 * `%text%` for `LIKE ... ESCAPE '\\'`: the text matched anywhere, its own `%`, `_` and `\` taken
 * literally (escaped with `\`).
 */
export const containing = (text: string): string => `%${text.replace(/[\\%_]/gu, (c) => `\\${c}`)}%`
