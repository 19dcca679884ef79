/**
 * Writes each verdict to standard output: one JSON line per verdict, or, on a terminal, one
 * human-readable line (what `warden demo` shows). Colours go through `util.styleText`, which honours
 * `NO_COLOR`, `FORCE_COLOR` and whether stdout is a terminal. Both are escaped for a terminal
 * (`TerminalText`): a comment, a reference or an error can hold an ESC or a C1 control.
 */
import { styleText } from "node:util"
import { Effect, Result } from "effect"
import { inert } from "../domain/TerminalText.ts"
import type { VerdictRecord } from "../domain/VerdictRecord.ts"
import * as QueuedRecord from "./QueuedRecord.ts"
import type { Sink } from "./Sink.ts"

/** The output format: `auto` is `pretty` on a terminal and `json` otherwise. */
export type Format = "auto" | "json" | "pretty"

/**
 * One human-readable line for a verdict; `colour`: styled for stdout (as NO_COLOR/FORCE_COLOR allow).
 * Every recorded field is escaped before the line's own colours go around it.
 */
export const prettyLine = (r: VerdictRecord, colour: boolean): string => {
  const c = (name: "red" | "yellow" | "green" | "dim", text: string) =>
    colour ? styleText(name, text, { stream: process.stdout }) : text
  const where = inert(`${r.source} ${r.reference} v${r.version}`)
  if (r.status !== "analysed" || r.verdict === undefined) {
    return `${c("yellow", r.status.toUpperCase().padEnd(8))} ${where} ${inert(`${r.error?.code ?? ""}: ${r.error?.message ?? ""}`)}`
  }
  const v = r.verdict
  const action = inert(v.recommendedAction ?? "?")
  const head = action === "REMOVE" ? c("red", action.padEnd(8)) : c("green", action.padEnd(8))
  const classes = v.classifications.length > 0 ? v.classifications.join(",") : "-"
  const text =
    r.text === undefined
      ? ""
      : ` ${c("dim", inert(JSON.stringify(r.text.length > 80 ? `${r.text.slice(0, 77)}...` : r.text)))}`
  const verdict = inert(
    `${(v.severity ?? "-").padEnd(9)} ${(v.type ?? "-").padEnd(10)} ${classes.padEnd(18)} ${v.language ?? "--"}`
  )
  return `${head} ${verdict} ${where}${r.dryRun ? " (dry run)" : ""}${text}`
}

/** The stdout sink. */
export const make = (options: { readonly name: string; readonly format: Format }): Sink => {
  const pretty = options.format === "pretty" || (options.format === "auto" && process.stdout.isTTY === true)
  const colour = pretty
  return {
    name: options.name,
    type: "stdout",
    batchSize: 256,
    maxAttempts: 3,
    deliver: (records) =>
      Effect.callback<ReadonlyArray<string | undefined>>((resume) => {
        // json: the recorded text, escaped for a terminal (the same JSON value: C1 and hidden characters
        // as \u escapes); pretty: each record decoded, and one that does not decode is not printed but
        // fails with the reason (retried, then dead-lettered).
        const lines: Array<string> = []
        const unreadable = records.map((r) => {
          if (!pretty) {
            lines.push(inert(r.json))
            return undefined
          }
          const decoded = QueuedRecord.decode(r)
          if (Result.isFailure(decoded)) return decoded.failure
          lines.push(prettyLine(decoded.success, colour))
          return undefined
        })
        const results = (error: string | undefined) => unreadable.map((problem) => problem ?? error)
        if (lines.length === 0) return resume(Effect.succeed(results(undefined)))
        process.stdout.write(`${lines.join("\n")}\n`, (error) =>
          resume(Effect.succeed(results(error ? String(error.message) : undefined)))
        )
      })
  }
}
