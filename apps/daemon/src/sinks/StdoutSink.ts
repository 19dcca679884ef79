/**
 * Writes each verdict to standard output: one JSON line per verdict, or, on a terminal, one
 * human-readable line (what `warden demo` shows). Colours go through `util.styleText`, which honours
 * `NO_COLOR`, `FORCE_COLOR` and whether stdout is a terminal. Both are escaped for a terminal
 * (`TerminalText`): a comment, a reference or an error can hold an ESC or a C1 control.
 */
import { styleText } from "node:util"
import { DeliveryResult, Sink as Plugin } from "@warden/sink"
import { Effect, Result, Schema } from "effect"
import { withDefault } from "../domain/internal/Schemas.ts"
import { inert } from "../domain/TerminalText.ts"
import type { VerdictRecord } from "../domain/VerdictRecord.ts"
import * as PluginSink from "./PluginSink.ts"
import * as QueuedRecord from "./QueuedRecord.ts"
import type { Sink } from "./Sink.ts"

/** The output format: `auto` is `pretty` on a terminal and `json` otherwise. */
export type Format = "auto" | "json" | "pretty"

/**
/**
 * The columns of {@link prettyLine}, printed once above the first line. `RECOMMENDED` is the API's
 * `recommendedAction` (advice, not something done); `DONE` is what Warden did: the actions of the rule
 * that matched, or `-` when no rule matched (a "REMOVE" in red read as "removed" when nothing was done).
 */
export const prettyHeader = (colour: boolean): string => {
  const line = `${"RECOMMENDED".padEnd(12)}${"SEVERITY".padEnd(10)}${"TYPE".padEnd(11)}${"CLASSIFICATIONS".padEnd(19)}${"LANG".padEnd(5)}${"DONE".padEnd(16)}ITEM`
  return colour ? styleText("bold", line, { stream: process.stdout }) : line
}

/** What Warden did with a record: its rule's actions (or the rule alone), `(dry run)` when only recorded. */
const done = (r: VerdictRecord): string => {
  if (r.rule === undefined && (r.actions === undefined || r.actions.length === 0)) return "-"
  const what = r.actions !== undefined && r.actions.length > 0 ? r.actions.join(",") : `rule ${r.rule}`
  return inert(r.dryRun ? `${what} (dry run)` : what)
}

/**
 * One human-readable line for a verdict; `colour`: styled for stdout (as NO_COLOR/FORCE_COLOR allow).
 * Every recorded field is escaped before the line's own colours go around it.
 */
export const prettyLine = (r: VerdictRecord, colour: boolean): string => {
  const c = (name: "red" | "yellow" | "green" | "dim", text: string) =>
    colour ? styleText(name, text, { stream: process.stdout }) : text
  const item = inert(`${r.source} ${r.reference} v${r.version}`)
  if (r.status !== "analysed" || r.verdict === undefined) {
    return `${c("yellow", r.status.toUpperCase().padEnd(12))}${"".padEnd(45)}${done(r).padEnd(16)}${item} ${inert(`${r.error?.code ?? ""}: ${r.error?.message ?? ""}`)}`
  }
  const v = r.verdict
  const action = inert(v.recommendedAction ?? "?")
  // The API's advice in yellow: red is kept for what was done.
  const head = action === "REMOVE" ? c("yellow", action.padEnd(12)) : c("green", action.padEnd(12))
  const classes = v.classifications.length > 0 ? v.classifications.join(",") : "-"
  const didSomething = r.actions !== undefined && r.actions.length > 0 && !r.dryRun
  const doneText = done(r).padEnd(16)
  const text =
    r.text === undefined
      ? ""
      : ` ${c("dim", inert(JSON.stringify(r.text.length > 80 ? `${r.text.slice(0, 77)}...` : r.text)))}`
  const verdict = inert(
    `${(v.severity ?? "-").padEnd(10)}${(v.type ?? "-").padEnd(11)}${classes.padEnd(19)}${(v.language ?? "--").padEnd(5)}`
  )
  return `${head}${verdict}${didSomething ? c("red", doneText) : doneText}${item}${text}`
}

/** The stdout sink's config (besides `type`, `name` and `content`). */
export const Config = Schema.Struct({
  format: Schema.Literals(["auto", "json", "pretty"]).pipe(withDefault("auto")).annotate({
    description: "json: one JSON line per verdict; pretty: one line for a person; auto: pretty on a terminal"
  })
})

/** Writes records to stdout; a record pretty mode cannot read is refused for good, a failed write for now. */
const deliverer = (options: { readonly format: Format }): Plugin.Deliverer => {
  const pretty = options.format === "pretty" || (options.format === "auto" && process.stdout.isTTY === true)
  const colour = pretty
  /** Whether the column header was printed (once, above the first line). */
  let headed = false
  return {
    deliver: (records) =>
      Effect.callback<ReadonlyArray<DeliveryResult.DeliveryResult>>((resume) => {
        // json: the recorded text, escaped for a terminal (the same JSON value: C1 and hidden characters
        // as \u escapes); pretty: each record decoded, and one that does not decode is not printed but
        // refused with the reason (dead-lettered).
        const lines: Array<string> = []
        const unreadable = records.map((r) => {
          if (!pretty) {
            lines.push(inert(r.json))
            return undefined
          }
          const decoded = QueuedRecord.decode(r)
          if (Result.isFailure(decoded)) return DeliveryResult.permanent(decoded.failure)
          lines.push(prettyLine(decoded.success, colour))
          return undefined
        })
        const results = (error: string | undefined) =>
          unreadable.map(
            (problem) => problem ?? (error === undefined ? DeliveryResult.delivered : DeliveryResult.retryable(error))
          )
        if (lines.length === 0) return resume(Effect.succeed(results(undefined)))
        if (pretty && !headed) {
          headed = true
          lines.unshift(prettyHeader(colour))
        }
        process.stdout.write(`${lines.join("\n")}\n`, (error) =>
          resume(Effect.succeed(results(error ? String(error.message) : undefined)))
        )
      })
  }
}

/** The stdout sink, declared with the sink SDK. */
export const sink = Plugin.make({
  type: "stdout",
  configSchema: Config,
  delivery: "at-least-once",
  batchSize: 256,
  make: (config) => Effect.succeed(deliverer(config))
})

/** The stdout sink as the worker drives it (the demo's, tests'). */
export const make = (options: { readonly name: string; readonly format: Format }): Sink =>
  PluginSink.of(sink, deliverer(options), { name: options.name })
