/**
 * The persisted entity that processes a source's batches: `ItemBatch`, its one message `Process`, and
 * the handlers that run each batch through the BatchProcessor. A message accepted by the cluster
 * survives a crash and is delivered again; the source (Pipeline.ts) sends them and commits its
 * checkpoint only once every partition acknowledged.
 */
import type { Connector } from "@warden/connector"
import { Context, Effect, Layer, Schema } from "effect"
import { ClusterSchema, Entity } from "effect/cluster"
import { Rpc } from "effect/rpc"
import type { SourceSettings } from "../domain/SourceSettings.ts"
import * as BatchEvent from "./BatchEvent.ts"
import { BatchProcessor } from "./BatchProcessor.ts"
import { ApiUnavailable, SourcePaused } from "./EngineError.ts"

/** A batch's message: its payload, its counts, the ways it is handed back. */
const processFields = {
  payload: {
    source: Schema.String,
    /**
     * The events as JSON text (BatchEvent.toText): they were checked when the source emitted them
     * (SourceEvent.problems), so the message carries them as one string instead of encoding and
     * decoding every event with the schema on both sides. A message an older daemon persisted holds
     * them as an array, still read.
     */
    events: Schema.Union([Schema.String, Schema.Array(BatchEvent.BatchEvent)]),
    /** Set when the API has been unreachable past the source's failure-mode delay (allow/reject). */
    degraded: Schema.optionalKey(Schema.Literals(["allow", "reject"])),
    /** Set on the re-analysis sweep's batches: stored versions without a verdict (BatchProcessor.Handling). */
    reanalysis: Schema.optionalKey(Schema.Boolean)
  },
  success: Schema.Struct({
    analysed: Schema.Int,
    failed: Schema.Int,
    unanalysed: Schema.Int,
    unchanged: Schema.Int,
    skipped: Schema.Int,
    deleted: Schema.Int,
    signals: Schema.Int
  }),
  error: Schema.Union([SourcePaused, ApiUnavailable])
}

/**
 * Process one batch of a source's events. Persisted: accepted work survives a crash. The events carry
 * no checkpoint: the source commits the batch's checkpoint itself, once, after the acknowledgement.
 */
export const Process = Rpc.make("Process", processFields)
  .annotate(ClusterSchema.Persisted, true)
  // At shutdown a batch stops at once instead of working on for the cluster's 15 s grace period while the
  // sinks have stopped: the round records the answers it has (BatchProcessor) and the persisted message
  // is delivered again at the next start, where those items cost nothing (issue 19).
  .annotate(ClusterSchema.InterruptOnTermination, true)

/**
 * The same batch, not persisted: a push source's (`capabilities.push`). Its intake is already the
 * durable log of its items, and its checkpoint moves only once every partition answered, so a batch
 * lost with a runner is read from the intake again at the source's next start (and the dedupe makes
 * what was recorded free). Persisting the message as well cost each batch (1-2 items at a check's
 * rate) an insert, a poll, a reply and a purge: measured in bench/daemon-push.ts (docs/BENCHMARKS.md).
 */
export const ProcessVolatile = Rpc.make("ProcessVolatile", processFields).annotate(
  ClusterSchema.InterruptOnTermination,
  true
)

/** The entity that processes batches; its id is `<source>/<partition>`. */
export const ItemBatch = Entity.make("ItemBatch", [Process])

/**
 * The same entity for push sources (`capabilities.push`): a client may be waiting on each of their
 * items (a check), so their batches are small (sent on as soon as read) and each must start at once
 * rather than wait in the mailbox behind batches already at work. It takes as many of a source's
 * batches at once as the source has in flight (`PipelineOptions.inflight`), where `ItemBatch` takes
 * `batchesAtOnce`: measured (bench/daemon-push.ts, docs/BENCHMARKS.md), a check at the quota waited
 * ~190 ms (p50) in `ItemBatch`'s mailbox for one of its 4 slots.
 */
export const PushItemBatch = Entity.make("PushItemBatch", [ProcessVolatile, Process])

/** A configured source, ready to run. */
export interface SourceSpec {
  readonly settings: SourceSettings
  readonly connector: Connector.Connector
  /** The connector's decoded config. */
  readonly config: unknown
}

/** The sources by id, for the entity to find a batch's settings. */
export class Sources extends Context.Service<Sources, ReadonlyMap<string, SourceSpec>>()("@warden/daemon/Sources") {}

/** The handler of every batch message, persisted or not: runs the batch through the processor. */
const handler = Effect.gen(function* () {
  const processor = yield* BatchProcessor
  const sources = yield* Sources
  return ({ payload }: { readonly payload: typeof Process.payloadSchema.Type }) => {
    const spec = sources.get(payload.source)
    if (spec === undefined) {
      // A batch persisted before the source was removed from the config: nothing to do with it.
      return Effect.logWarning("batch of an unconfigured source dropped").pipe(
        Effect.annotateLogs({ source: payload.source }),
        Effect.as({
          analysed: 0,
          failed: 0,
          unanalysed: 0,
          unchanged: 0,
          skipped: BatchEvent.fromPayload(payload.events).length,
          deleted: 0,
          signals: 0
        })
      )
    }
    return processor.process(spec.settings, BatchEvent.fromPayload(payload.events), {
      degraded: payload.degraded,
      reanalysis: payload.reanalysis
    })
  }
})

/**
 * The entities' handlers: `ItemBatch` works on `batchesAtOnce` messages at a time, `PushItemBatch` on
 * `inflight` (every batch a push source has in flight).
 */
export const itemBatchLayer = (options: { readonly batchesAtOnce: number; readonly inflight: number }) =>
  Layer.mergeAll(
    ItemBatch.toLayer(
      Effect.map(handler, (process) => ItemBatch.of({ Process: process })),
      { concurrency: options.batchesAtOnce }
    ),
    PushItemBatch.toLayer(
      // `Process`: the messages a daemon before ProcessVolatile persisted for a push source.
      Effect.map(handler, (process) => PushItemBatch.of({ ProcessVolatile: process, Process: process })),
      { concurrency: Math.max(options.batchesAtOnce, options.inflight) }
    )
  )
