/**
 * The re-analysis sweep of a source: items recorded without a verdict while the API was down (failure
 * mode allow/reject), and those an operator asked to analyse again (`warden reanalyse`), are sent again
 * as `reanalysis` batches. Sending them normally is also the probe that ends the degraded state when
 * the source has no new events. Runs in every failure mode, `hold` included.
 */
import { Effect, Schema } from "effect"
import type { ItemStoreShape } from "../state/ItemStore.ts"
import * as RepeatedWarnings from "../state/RepeatedWarnings.ts"
import * as StateHealth from "../state/StateHealth.ts"
import type { ApiHealth } from "./ApiHealth.ts"
import * as BatchEvent from "./BatchEvent.ts"
import type { BatchSender } from "./BatchSender.ts"
import { SourceStatus } from "./SourceStatus.ts"

/** Pause of the sweep after a read that was not a full batch (or failed). */
export const IDLE = "5 seconds"

/** An item's stored event (`warden_items.event`): the upsert a batch recorded, as JSON text. */
const decodeStoredUpsert = Schema.decodeUnknownEffect(Schema.fromJsonString(BatchEvent.Upsert))

/** A source's sweep. */
export interface ReanalysisSweep {
  /**
   * One read and send. Answers whether to read again at once: after a full batch there are probably
   * more (a backlog of 100,000 would otherwise take 80 minutes at one batch per 5 s), unless the read
   * gave the same versions as the last one (they did not change, so going again would only spin).
   */
  readonly once: Effect.Effect<boolean>
  /** The sweep, for ever: {@link once}, then again at once or after {@link IDLE}. */
  readonly run: Effect.Effect<never>
}

/** The sweep of source `id`'s items of `kinds`, `batchSize` at a time, sent through `sender`. */
export const make = Effect.fn("ReanalysisSweep.make")(function* <E>(options: {
  readonly id: string
  readonly kinds: ReadonlyArray<string>
  readonly batchSize: number
  readonly items: Pick<ItemStoreShape, "unanalysed">
  readonly sender: Pick<BatchSender<E>, "send">
  readonly api: ApiHealth
}) {
  const { id, batchSize, sender, api } = options
  const status = yield* SourceStatus
  const health = yield* StateHealth.StateHealth
  /** Warnings of the loop: one a minute. */
  const warnings = RepeatedWarnings.make()
  let lastSwept = ""

  const decodeAll = (rows: ReadonlyArray<{ readonly reference: string; readonly event: string }>) =>
    Effect.forEach(rows, (r) =>
      decodeStoredUpsert(r.event).pipe(
        // a row our own pipeline wrote, changed behind the daemon's back: a defect (state/internal/Rows.ts)
        Effect.catch((e) =>
          Effect.die(new Error(`a stored event of warden_items (${r.reference}) does not decode: ${e.message}`))
        )
      )
    )

  const once = Effect.gen(function* () {
    const rows = yield* options.items.unanalysed(id, options.kinds, batchSize)
    const swept = rows.map((r) => `${r.reference}\u001f${r.version}`).join("\u001e")
    const again = rows.length >= batchSize && swept !== lastSwept
    lastSwept = swept
    if (rows.length === 0) return false
    const events = yield* decodeAll(rows)
    const exit = yield* Effect.exit(sender.send(events, { reanalysis: true }))
    if (exit._tag === "Failure") return false
    if (yield* api.answered) yield* status.set(id, { state: "running" })
    yield* Effect.logInfo(`analysed ${events.length} items recorded while the API was unavailable`).pipe(
      Effect.annotateLogs({ source: id })
    )
    return again
  }).pipe(
    Effect.catchCause((cause) =>
      Effect.as(
        health.isProblem(cause) ? Effect.void : warnings.log("re-analysis", "Warn", "re-analysis sweep failed", cause),
        false
      )
    )
  )

  return {
    once,
    run: once.pipe(
      Effect.flatMap((full) => (full ? Effect.void : Effect.sleep(IDLE))),
      Effect.forever
    )
  } satisfies ReanalysisSweep
})
