/**
 * The config file as text and YAML: read, parsed with every syntax error at its `FILE:LINE:COLUMN`, and
 * the problems found later put back in the file's order with their positions.
 */
import { readFile } from "node:fs/promises"
import { Effect } from "effect"
import { type Document, isNode, LineCounter, parseDocument } from "yaml"
import { ConfigError, type ConfigProblem } from "../ConfigError.ts"
import { isRecord } from "./Decode.ts"

/** A config file parsed: its YAML document (for positions), its line counter, and its value as written. */
export interface YamlFile {
  readonly yaml: Document
  readonly lines: LineCounter
  readonly raw: Record<string, unknown>
}

/** Reads and parses `path` (named `file` in problems); a file that is no YAML mapping fails. */
export const read = (file: string, path: string): Effect.Effect<YamlFile, ConfigError> =>
  Effect.gen(function* () {
    const fail = (problems: ReadonlyArray<ConfigProblem>) => Effect.fail(new ConfigError({ file, problems }))
    const text = yield* Effect.tryPromise({
      try: () => readFile(path, "utf8"),
      catch: (error) =>
        new ConfigError({
          file,
          problems: [
            { path: "", message: `cannot read ${file}: ${(error as { code?: string }).code ?? String(error)}` }
          ]
        })
    })
    const lines = new LineCounter()
    const yaml = parseDocument(text, { prettyErrors: true, uniqueKeys: true, lineCounter: lines })
    if (yaml.errors.length > 0) {
      return yield* fail(
        yaml.errors.map((e) => ({
          path: "",
          location: e.linePos !== undefined ? `${file}:${e.linePos[0].line}:${e.linePos[0].col}` : file,
          message: `YAML syntax error: ${e.message.split("\n")[0]!.replace(/ at line \d+, column \d+:?$/u, "")}`
        }))
      )
    }
    const raw = yaml.toJS({ maxAliasCount: 100 }) ?? {}
    if (!isRecord(raw)) return yield* fail([{ path: "", message: "the file must be a YAML mapping (key: value)" }])
    return { yaml, lines, raw }
  })

/**
 * Orders problems as their paths appear in the file (the closest existing node of each path), stable,
 * and gives each its `FILE:LINE:COLUMN` (a problem of the whole file, at no node, gets none).
 */
export const sortByPosition = (
  yaml: Document,
  lines: LineCounter,
  file: string,
  problems: ReadonlyArray<ConfigProblem>
): Array<ConfigProblem> => {
  const position = (path: string): number | undefined => {
    if (path === "") return undefined
    const keys = path.split(".").map((k) => (/^\d+$/u.test(k) ? Number(k) : k))
    for (let n = keys.length; n > 0; n--) {
      const node = yaml.getIn(keys.slice(0, n), true)
      if (isNode(node) && node.range) return node.range[0]
    }
    return undefined
  }
  return problems
    .map((p, i) => ({ p, i, at: position(p.path) }))
    .sort(
      (a, b) =>
        (a.at ?? (a.p.path === "" ? -1 : Number.MAX_SAFE_INTEGER)) -
          (b.at ?? (b.p.path === "" ? -1 : Number.MAX_SAFE_INTEGER)) || a.i - b.i
    )
    .map(({ p, at }) => {
      if (at === undefined || p.location !== undefined) return p
      const { line, col } = lines.linePos(at)
      return { ...p, location: `${file}:${line}:${col}` }
    })
}
