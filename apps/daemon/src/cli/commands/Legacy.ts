/**
 * `warden legacy analyze FILE`: JSON lines of messages in (`{"text": ..., "reference": ..., "context": ...}`,
 * FILE or `-` for stdin), JSON lines out: `{"analysis": {...}}` per analysed message, then
 * `{"error": {...}}` per message that could not be analysed (`details.position` is the 0-based line
 * of the message among the input's messages). Any number of messages: split into calls of <= 100.
 */
import { readFile } from "node:fs/promises"
import { LegacyBatch } from "@warden/legacy"
import { Console, Effect, Layer, Option } from "effect"
import { Argument, Command, Flag } from "effect/cli"
import { connectionFlags, readStdin, runWith, transportFor, UsageError } from "./Analyze.ts"

const parseLines = (text: string) =>
  Effect.gen(function* () {
    const messages: Array<unknown> = []
    const lines = text.split(/\r?\n/)
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i]!.trim()
      if (line === "") continue
      try {
        messages.push(JSON.parse(line))
      } catch {
        return yield* Effect.fail(new UsageError(`line ${i + 1} is not JSON`))
      }
    }
    return messages
  })

const analyzeCommand = Command.make(
  "analyze",
  {
    ...connectionFlags,
    channel: Flag.String("channel").pipe(Flag.withDescription("Channel UUID. Env: WARDEN_CHANNEL"), Flag.optional),
    file: Argument.String("file").pipe(Argument.withDescription("JSON lines of messages; - for stdin")),
    concurrency: Flag.Int("concurrency").pipe(Flag.withDescription("Calls in flight at once"), Flag.withDefault(4))
  },
  (flags) =>
    runWith(
      LegacyBatch.LegacyBatch.layerOptions({ concurrency: flags.concurrency }).pipe(
        Layer.provide(transportFor(flags, "legacy"))
      ),
      Effect.gen(function* () {
        const channel = Option.getOrElse(flags.channel, () => process.env.WARDEN_CHANNEL ?? "")
        if (channel === "") return yield* Effect.fail(new UsageError("--channel is required (or set WARDEN_CHANNEL)"))
        const text =
          flags.file === "-"
            ? new TextDecoder().decode(yield* readStdin)
            : yield* Effect.tryPromise({
                try: () => readFile(flags.file, "utf8"),
                catch: (e) => new UsageError(`cannot read ${flags.file}: ${e instanceof Error ? e.message : String(e)}`)
              })
        const messages = yield* parseLines(text)
        const batch = yield* LegacyBatch.LegacyBatch
        const result = yield* batch.analyze(channel, messages as never)
        const out = [
          ...result.data.map((analysis) => JSON.stringify({ analysis })),
          ...result.errors.map((error) => JSON.stringify({ error }))
        ]
        if (out.length > 0) yield* Console.log(out.join("\n"))
      })
    )
).pipe(Command.withDescription("Analyse JSON lines of messages with the legacy batch endpoint"))

/** `warden legacy analyze FILE`. */
export const legacy = Command.make("legacy").pipe(
  Command.withDescription("The legacy batch endpoint"),
  Command.withSubcommands([analyzeCommand])
)
