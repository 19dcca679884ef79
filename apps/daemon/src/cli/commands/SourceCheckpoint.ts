/**
 * `warden source checkpoint show|reset --config FILE --source ID`: the way out of a checkpoint a
 * connector cannot read (`InvalidCheckpoint` pauses the source) or of a position an operator wants to
 * leave.
 *
 * - `show` prints the stored checkpoint (JSON), its size and when it was written.
 * - `reset` forgets it, after a confirmation (`--yes` skips it; without a terminal `--yes` is needed):
 *   the source then starts where a new source would. A running daemon notices within `pauseRetry` and
 *   starts a source paused by its connector again. Who reset it and when is printed and recorded in
 *   the state store (`warden_source_errors`, reason `CheckpointReset`, with the old checkpoint).
 */
import { createInterface } from "node:readline/promises"
import { Console, Effect, Option } from "effect"
import { Command, Flag } from "effect/cli"
import { checkConfig, formatProblem } from "../../config/index.ts"
import { CheckpointStore, type CheckpointStoreShape } from "../../state/CheckpointStore.ts"
import { SourceErrorStore, type SourceErrorStoreShape } from "../../state/SourceErrorStore.ts"
import * as StateFromConfig from "../StateFromConfig.ts"
import { operator } from "../Operator.ts"
import { configFlag, knownSource, refuser } from "../Refusal.ts"
import { inert } from "../../domain/TerminalText.ts"

const refuse = refuser("source checkpoint")

const flags = {
  config: configFlag("the daemon's warden.yaml (its state section and source ids are used)"),
  source: Flag.String("source").pipe(Flag.withDescription("the source id"))
}

/** Runs `use` with the state store of the config's `state` section, after checking the source exists. */
const withStore = <A, E>(
  file: string,
  source: string,
  use: (store: CheckpointStoreShape & SourceErrorStoreShape) => Effect.Effect<A, E>
) =>
  Effect.gen(function* () {
    const checked = yield* checkConfig(file, { sections: ["state"] }).pipe(
      Effect.catchTag("ConfigError", (error) => refuse(error.problems.map(formatProblem).join("\n"), 78))
    )
    const ids = checked.config.sources.map((s) => s.id)
    yield* knownSource(refuse, file, ids, Option.some(source))
    return yield* Effect.gen(function* () {
      return yield* use({ ...(yield* CheckpointStore), ...(yield* SourceErrorStore) })
    }).pipe(Effect.provide(StateFromConfig.store(checked.config.state)))
  })

const show = Command.make("show", flags, ({ config, source }) =>
  withStore(config, source, (store) =>
    Effect.gen(function* () {
      const row = yield* store.checkpointRow(source)
      if (Option.isNone(row)) return yield* Console.log(`source ${source} has no checkpoint (it starts afresh)`)
      const { checkpoint, updatedAt } = row.value
      // What the connector kept of the platform's answers (ETags, cursors): escaped for the terminal.
      yield* Console.log(inert(checkpoint, { lines: true }))
      yield* Console.error(
        `${Buffer.byteLength(checkpoint, "utf8")} bytes, written ${new Date(updatedAt).toISOString()}`
      )
    })
  )
).pipe(
  Command.withDescription("Print a source's stored checkpoint (JSON), its size and when it was written"),
  Command.withExamples([
    {
      command: "warden source checkpoint show --config warden.yaml --source news",
      description: "where the source resumes"
    }
  ])
)

const confirm = (question: string) =>
  Effect.promise(async () => {
    const rl = createInterface({ input: process.stdin, output: process.stderr })
    try {
      return /^y(es)?$/iu.test((await rl.question(question)).trim())
    } finally {
      rl.close()
    }
  })

const reset = Command.make(
  "reset",
  { ...flags, yes: Flag.Boolean("yes").pipe(Flag.withDescription("do not ask for confirmation")) },
  ({ config, source, yes }) =>
    withStore(config, source, (store) =>
      Effect.gen(function* () {
        const row = yield* store.checkpointRow(source)
        if (Option.isNone(row)) return yield* Console.log(`source ${source} has no checkpoint: nothing to reset`)
        if (!yes) {
          if (!process.stdin.isTTY) return yield* refuse("not a terminal: give --yes to reset without asking", 2)
          const ok = yield* confirm(
            `reset the checkpoint of source ${source} (${row.value.checkpoint.slice(0, 200)})? it then reads from where a new source would [y/N] `
          )
          if (!ok) return yield* refuse("not reset", 1)
        }
        const by = operator()
        const at = new Date().toISOString()
        yield* store.resetCheckpoint(source)
        yield* store.recordSourceError(
          source,
          "CheckpointReset",
          `checkpoint reset by ${by} at ${at}; it was ${row.value.checkpoint.slice(0, 4096)}`
        )
        yield* Console.log(`checkpoint of source ${source} reset by ${by} at ${at}`)
      })
    )
).pipe(
  Command.withDescription("Forget a source's checkpoint (asks first unless --yes); who and when is recorded"),
  Command.withExamples([
    {
      command: "warden source checkpoint reset --config warden.yaml --source news --yes",
      description: "read the source again from its start (the daemon dedupes)"
    }
  ])
)

/** The `source checkpoint` subcommand. */
export const checkpoint = Command.make("checkpoint").pipe(
  Command.withDescription("Show or reset a source's stored checkpoint"),
  Command.withSubcommands([show, reset])
)
