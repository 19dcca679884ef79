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

/**
 * Process one batch of a source's events. Persisted: accepted work survives a crash. The events carry
 * no checkpoint: the source commits the batch's checkpoint itself, once, after the acknowledgement.
 */
export const Process = Rpc.make("Process", {
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
})
  .annotate(ClusterSchema.Persisted, true)
  // At shutdown a batch stops at once instead of working on for the cluster's 15 s grace period while the
  // sinks have stopped: the round records the answers it has (BatchProcessor) and the persisted message
  // is delivered again at the next start, where those items cost nothing (issue 19).
  .annotate(ClusterSchema.InterruptOnTermination, true)

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
export const PushItemBatch = Entity.make("PushItemBatch", [Process])

/** A configured source, ready to run. */
export interface SourceSpec {
  readonly settings: SourceSettings
  readonly connector: Connector.Connector
  /** The connector's decoded config. */
  readonly config: unknown
}

/** The sources by id, for the entity to find a batch's settings. */
export class Sources extends Context.Service<Sources, ReadonlyMap<string, SourceSpec>>()("@warden/daemon/Sources") {}

/** The handlers of both entities: run each batch through the processor. */
const handlers = Effect.gen(function* () {
  const processor = yield* BatchProcessor
  const sources = yield* Sources
  return {
    Process: ({ payload }: { readonly payload: typeof Process.payloadSchema.Type }) => {
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
  }
})

/**
 * The entities' handlers: `ItemBatch` works on `batchesAtOnce` messages at a time, `PushItemBatch` on
 * `inflight` (every batch a push source has in flight).
 */
export const itemBatchLayer = (options: { readonly batchesAtOnce: number; readonly inflight: number }) =>
  Layer.mergeAll(
    ItemBatch.toLayer(
      Effect.map(handlers, (h) => ItemBatch.of(h)),
      { concurrency: options.batchesAtOnce }
    ),
    PushItemBatch.toLayer(
      Effect.map(handlers, (h) => PushItemBatch.of(h)),
      { concurrency: Math.max(options.batchesAtOnce, options.inflight) }
    )
  )
