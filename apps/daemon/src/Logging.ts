/**
 * The daemon's logs: structured JSON lines on stderr when stderr is not a terminal, readable lines on
 * a terminal. stdout stays free for the stdout sink's verdicts. Log lines carry `source` and
 * `reference` annotations; they never carry content text or secrets (content only with `log.content`).
 */
import { Layer, Logger, References } from "effect"

/** Log format: `auto` is `pretty` on a terminal and `json` otherwise. */
export type Format = "auto" | "json" | "pretty"

const LEVELS = { trace: "Trace", debug: "Debug", info: "Info", warning: "Warn", error: "Error" } as const

/** The logger layer for a format and minimum level. */
export const layer = (format: Format, level: keyof typeof LEVELS = "info") => {
  const pretty = format === "pretty" || (format === "auto" && process.stderr.isTTY === true)
  const logger = Logger.withConsoleError(pretty ? Logger.formatLogFmt : Logger.formatJson)
  return Layer.mergeAll(Logger.layer([logger]), Layer.succeed(References.MinimumLogLevel, LEVELS[level]))
}
