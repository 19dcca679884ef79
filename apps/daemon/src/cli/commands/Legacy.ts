/**
 * `warden legacy analyze FILE`: JSON lines of messages in (`{"text": ..., "reference": ..., "context": ...}`,
 * FILE or `-` for stdin), JSON lines out, one per message, in input order, each with the message's
 * input `line` (1-based): `{"line": 3, "analysis": {...}}` or `{"line": 4, "error": {...}}`. A line
 * that is not a valid message, a per-message error of the API (`TEXT_TOO_LONG`), and every message of
 * a call that failed as a whole (503 after retries, 429) are errors in place; the other calls' results
 * are still printed. Exit 1 at the end (with a count on stderr) when any message was not analysed.
 *
 * Streamed: calls of <= 100 messages are sent as the input is read (a few at a time) and each call's
 * results are printed as soon as it and the calls before it are done, so memory stays constant
 * whatever the input's length.
 */
import { createReadStream } from "node:fs"
import { createInterface } from "node:readline"
import { FieldViolations, LegacyMessageOnWire, Limits } from "@warden/core"
import { LegacyBatch } from "@warden/legacy"
import { Effect, Layer, Option, Result, Schema, Stream } from "effect"
import { Argument, Command, Flag } from "effect/cli"
import { printed } from "../Refusal.ts"
import { connectionFlags, report, runWith, transportFor, UsageError } from "./Analyze.ts"

/** One input line that held something: a message to send, or why it is not one. */
type Entry =
  | { readonly line: number; readonly index: number; readonly message: LegacyMessageOnWire }
  | { readonly line: number; readonly index: number; readonly problem: string }

/** An output line: the analysis of a message, or its error. */
type OutputLine =
  | { readonly line: number; readonly analysis: unknown }
  | { readonly line: number; readonly error: Record<string, unknown> }

const decodeMessage = Schema.decodeUnknownResult(LegacyMessageOnWire)
const STRICT = { errors: "all", onExcessProperty: "error" } as const

/** Parses one non-blank input line into an entry. */
const entryOf = (text: string, line: number, index: number): Entry => {
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    return { line, index, problem: "not JSON" }
  }
  const decoded = decodeMessage(json, STRICT)
  if (Result.isSuccess(decoded)) return { line, index, message: decoded.success }
  const violations = FieldViolations.fromSchemaError(decoded.failure)
  return {
    line,
    index,
    problem: violations.map((v) => (v.field === "" ? v.message : `${v.field}: ${v.message}`)).join("; ")
  }
}

/** The input's non-blank lines as entries, read as a stream (constant memory). */
const entries = (file: string): Stream.Stream<Entry, UsageError> => {
  const input = file === "-" ? process.stdin : createReadStream(file, { encoding: "utf8" })
  const lines = createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY })
  let index = 0
  return Stream.fromAsyncIterable(
    lines,
    (e) => new UsageError(`cannot read ${file}: ${e instanceof Error ? e.message : String(e)}`)
  ).pipe(
    Stream.zipWithIndex,
    Stream.filter(([text]) => text.trim() !== ""),
    Stream.map(([text, i]) => entryOf(text.trim(), i + 1, index++))
  )
}

/** The code of a whole-call failure, as in the CLI's error lines. */
const failureOf = (error: { readonly _tag: string; readonly message: string }): Record<string, unknown> => {
  const envelope = (error as { error?: { code?: unknown } }).error
  const code =
    typeof envelope?.code === "string" ? envelope.code : error._tag.replace(/([a-z])([A-Z])/g, "$1_$2").toUpperCase()
  return { code, message: error.message }
}

/**
 * Writes to stdout and waits for it to drain when its buffer is full: a slow reader (a pipe to a
 * slow consumer) slows the calls down instead of piling the output up in memory.
 */
const write = (text: string): Effect.Effect<void> =>
  Effect.callback<void>((resume) => {
    if (process.stdout.write(text)) resume(Effect.void)
    else process.stdout.once("drain", () => resume(Effect.void))
  })

/** Key errors fail every later call the same way: stop at the first. */
const STOP_TAGS = new Set(["AuthenticationError", "PermissionDeniedError"])

/** Sends the valid messages of a group in one call; one output line per entry, in input order. */
const analyzeGroup = (batch: LegacyBatch.Shape, channel: string, group: ReadonlyArray<Entry>) =>
  Effect.gen(function* () {
    const sendable = group.filter((e): e is Extract<Entry, { message: unknown }> => "message" in e)
    const answer =
      sendable.length === 0
        ? Result.succeed({ data: [], errors: [] })
        : yield* Effect.result(
            batch.analyze(
              channel,
              sendable.map((e) => e.message)
            )
          )
    if (Result.isFailure(answer) && STOP_TAGS.has(answer.failure._tag)) return yield* report(answer.failure)
    const byEntry = new Map<Entry, OutputLine>()
    if (Result.isFailure(answer)) {
      const error = failureOf(answer.failure)
      for (const e of sendable) byEntry.set(e, { line: e.line, error })
    } else {
      const errored = new Set<number>()
      for (const error of answer.success.errors) {
        const entry = sendable[error.details.position]
        if (entry === undefined) continue
        errored.add(error.details.position)
        byEntry.set(entry, {
          line: entry.line,
          error: { ...error, details: { ...error.details, position: entry.index } }
        })
      }
      // The endpoint answers the analyses in the order of the messages that have no error.
      const analysed = sendable.filter((_, i) => !errored.has(i))
      answer.success.data.forEach((analysis, i) => {
        const entry = analysed[i]
        if (entry !== undefined) byEntry.set(entry, { line: entry.line, analysis })
      })
    }
    return group.map(
      (e): OutputLine =>
        "problem" in e
          ? { line: e.line, error: { code: "INVALID_MESSAGE", message: e.problem } }
          : (byEntry.get(e) ?? { line: e.line, error: { code: "NO_ANSWER", message: "the API returned no result" } })
    )
  })

const analyzeCommand = Command.make(
  "analyze",
  {
    ...connectionFlags,
    baseUrl: Flag.String("base-url").pipe(
      Flag.withDescription("Base URL of the legacy host. Env: WARDEN_LEGACY_BASE_URL"),
      Flag.optional
    ),
    apiKey: Flag.Redacted("api-key").pipe(
      Flag.withDescription("Key of the legacy endpoint. Env: WARDEN_LEGACY_API_KEY, else WARDEN_API_KEY"),
      Flag.optional
    ),
    channel: Flag.String("channel").pipe(Flag.withDescription("Channel UUID. Env: WARDEN_CHANNEL"), Flag.optional),
    file: Argument.String("file").pipe(Argument.withDescription("JSON lines of messages; - for stdin")),
    concurrency: Flag.Int("concurrency").pipe(Flag.withDescription("Calls in flight at once"), Flag.withDefault(4))
  },
  (flags) =>
    runWith(
      LegacyBatch.LegacyBatch.layerOptions({ concurrency: 1 }).pipe(Layer.provide(transportFor(flags, "legacy"))),
      Effect.gen(function* () {
        const channel = Option.getOrElse(flags.channel, () => process.env.WARDEN_CHANNEL ?? "")
        if (channel === "") return yield* Effect.fail(new UsageError("--channel is required (or set WARDEN_CHANNEL)"))
        if (flags.concurrency < 1) return yield* Effect.fail(new UsageError("--concurrency must be at least 1"))
        const batch = yield* LegacyBatch.LegacyBatch
        let messages = 0
        const failedLines: Array<number> = []
        yield* entries(flags.file).pipe(
          Stream.grouped(Limits.LEGACY_MAX_MESSAGES),
          Stream.mapEffect((group) => analyzeGroup(batch, channel, group), { concurrency: flags.concurrency }),
          Stream.runForEach((lines) => {
            messages += lines.length
            for (const l of lines) if ("error" in l) failedLines.push(l.line)
            return write(`${lines.map((l) => JSON.stringify(l)).join("\n")}\n`)
          })
        )
        if (failedLines.length > 0) {
          const shown = failedLines.slice(0, 10).join(", ")
          const line = `warden: ${failedLines.length} of ${messages} messages not analysed (line ${shown}${failedLines.length > 10 ? ", ..." : ""}); see the error lines on stdout`
          return yield* printed([line], 1)
        }
      })
    )
).pipe(
  Command.withDescription(
    "Analyse JSON lines of messages with the legacy batch endpoint; one JSON line out per message, with its input line"
  ),
  Command.withExamples([
    { command: "warden legacy analyze messages.jsonl --channel $CHANNEL", description: "one JSON message a line" },
    { command: "cat messages.jsonl | warden legacy analyze - > verdicts.jsonl", description: "stdin to stdout" }
  ])
)

/** `warden legacy analyze FILE`. */
export const legacy = Command.make("legacy").pipe(
  Command.withDescription("The legacy batch endpoint"),
  Command.withSubcommands([analyzeCommand])
)
