/**
 * The process the conformance kit's `killNine` check kills: it makes the sink from a module and a
 * config given as its argument (JSON), reads the records from stdin (one JSON array), delivers them in
 * batches one after the other and writes, per batch, `{"delivering":n}` before and `{"acked":[ids]}`
 * after (one JSON line each) on stdout. Not for use on its own.
 *
 * @since 0.1.0
 */
import { PluginModule } from "@warden/connector"
import { Effect, Schema, type Scope } from "effect"
import * as DeliveryResult from "../DeliveryResult.ts"
import { isSink, makeDeliverer, type SinkHost } from "../Sink.ts"
import { deliveryId, SinkRecord } from "../SinkRecord.ts"

/** The child's argument. */
export const Arguments = Schema.Struct({
  /** The sink's module, as a file URL. */
  module: Schema.String,
  config: Schema.Unknown,
  batch: Schema.Int,
  /** A module exporting `makeHost(args)`: the host the sink is made with (its SQL client). */
  host: Schema.optionalKey(Schema.Struct({ module: Schema.String, args: Schema.Unknown }))
})

const readStdin = Effect.promise(async () => {
  const chunks: Array<Buffer> = []
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks).toString("utf8")
})

const line = (value: unknown) =>
  Effect.promise(
    () => new Promise<void>((resolve) => process.stdout.write(`${JSON.stringify(value)}\n`, () => resolve()))
  )

type MakeHost = (args: unknown) => Effect.Effect<SinkHost, unknown, Scope.Scope>

const main = Effect.gen(function* () {
  const args = yield* Schema.decodeUnknownEffect(Schema.fromJsonString(Arguments))(process.argv[2])
  const module = yield* Effect.promise(() => import(args.module))
  const sink = PluginModule.pick(module, "sink", isSink)
  if (!isSink(sink)) return yield* Effect.die(new Error(`${args.module} exports no sink`))
  const host: SinkHost =
    args.host === undefined
      ? { name: "conformance", setting: (field) => field, sql: undefined }
      : yield* ((yield* Effect.promise(() => import(args.host!.module))) as { makeHost: MakeHost }).makeHost(
          args.host.args
        )
  const deliverer = yield* makeDeliverer(sink, args.config, host)
  const records = yield* Effect.flatMap(
    readStdin,
    Schema.decodeUnknownEffect(Schema.fromJsonString(Schema.Array(SinkRecord)))
  )
  for (let at = 0, n = 1; at < records.length; at += args.batch, n++) {
    const batch = records.slice(at, at + args.batch)
    yield* line({ delivering: n })
    const results = yield* deliverer.deliver(batch)
    yield* line({ acked: batch.flatMap((r, i) => (DeliveryResult.isDelivered(results[i]!) ? [deliveryId(r)] : [])) })
  }
  yield* line({ done: true })
})

Effect.runPromise(Effect.scoped(main)).then(
  () => process.exit(0),
  (error) => {
    process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`)
    process.exit(1)
  }
)
