/**
 * The cluster side of the engine: the source singletons that feed the `ItemBatch` entity (ItemBatch.ts).
 *
 * - Each source runs as a cluster `Singleton`: exactly one runner reads a feed or holds a gateway.
 * - Its events go, in batches, to the `ItemBatch` entity as persisted messages, partitioned by
 *   reference (so one reference is always handled by one entity, in order). A message accepted by
 *   the cluster survives a crash and is delivered again.
 * - The source commits its checkpoint only after every partition acknowledged the batch, and in
 *   stream order: at-least-once, with the dedupe in `BatchProcessor` making redeliveries free.
 *
 * A source, top-down: its supervisor (SourceSupervisor.ts) starts it again and again; each start reads
 * from the stored checkpoint, sorts the connector's events (SourceIntake.ts: dead letters, error
 * events), groups them into batches sent until acknowledged (BatchDispatch.ts, in the failure mode of
 * ApiHealth.ts, through BatchSender.ts), and commits each batch's checkpoint in order
 * (CheckpointCommit.ts: store, acknowledge, purge). Beside the stream run the source's actions
 * (ActionExecutor.ts) and the re-analysis sweep (ReanalysisSweep.ts).
 */
import { Checkpoint, ConnectorError, SourceEvent } from "@warden/connector"
import { Array as Arr, type Duration, Effect, Layer, Option, Stream } from "effect"
import { Singleton } from "effect/cluster"
import { CheckpointStore, type CheckpointStoreShape } from "../state/CheckpointStore.ts"
import { ItemStore, type ItemStoreShape } from "../state/ItemStore.ts"
import { SourceErrorStore } from "../state/SourceErrorStore.ts"
import { StateHealth, type StateHealthShape } from "../state/StateHealth.ts"
import * as ActionExecutor from "./ActionExecutor.ts"
import * as ApiHealth from "./ApiHealth.ts"
import * as BatchDispatch from "./BatchDispatch.ts"
import * as BatchSender from "./BatchSender.ts"
import * as CheckpointCommit from "./CheckpointCommit.ts"
import { ItemBatch, PushItemBatch, type SourceSpec } from "./ItemBatch.ts"
import * as ReanalysisSweep from "./ReanalysisSweep.ts"
import * as ReferenceOrder from "./ReferenceOrder.ts"
import * as SourceIntake from "./SourceIntake.ts"
import { SourceStatus } from "./SourceStatus.ts"
import * as SourceSupervisor from "./SourceSupervisor.ts"

// The entity and what it needs, for the daemon's layer (Daemon.ts) to build with the sources.
export { itemBatchLayer, type SourceSpec, Sources } from "./ItemBatch.ts"

/** Tuning of the pipeline. */
export interface PipelineOptions {
  /** Events per batch (also the legacy micro-batch size). */
  readonly batchSize: number
  /** Longest wait to fill a batch (a pull source's: a push source's has no window, see `batched`). */
  readonly maxWait: Duration.Input
  /** Batches of one source in flight at once; bounds memory whatever the backlog. */
  readonly inflight: number
  /** Partitions per source: how many entities share its work across runners. */
  readonly partitions: number
  /**
   * Batch messages one entity works on at once: one batch's calls are on the wire while another is
   * deduped or recorded. Batches holding a reference in common still run one after the other
   * (ReferenceOrder.ts).
   */
  readonly batchesAtOnce: number
  /** How often a paused source tries again. */
  readonly pauseRetry: Duration.Input
}

/**
 * Events per source batch. v1: `batchSize`. Legacy: 4 micro-batches' worth, so that one message keeps
 * 4 requests of `batchSize` messages in flight. On one partition the whole batch is one message, so
 * exactly 4 x `batchSize` fills every request (320 with the 80% below made requests of 100, 100, 100
 * and 20: 79 messages per request on average, bench/daemon-throughput.ts). Over several partitions,
 * 80% of `batchSize` per partition on average, so the hash's spread rarely pushes a share past a
 * request (100 + 5 = 2 requests).
 */
export const legacyAwareBatchSize = (
  mode: "v1" | "legacy",
  options: Pick<PipelineOptions, "batchSize" | "partitions">
): number =>
  mode !== "legacy"
    ? options.batchSize
    : options.partitions <= 1
      ? options.batchSize * 4
      : Math.floor(options.batchSize * Math.max(4, options.partitions) * 0.8)

/**
 * Items the API answered without a verdict get one more try per start of the daemon (e.g. after the
 * API was fixed): once, not per source restart, so a still-broken API costs one call each. With the
 * state store down it is tried again at the source's next start, and says nothing: the store's one
 * outage line (from the writes that retry) says it.
 */
const requeueUnrecognisedOnce = (
  id: string,
  items: Pick<ItemStoreShape, "requestReanalysis">,
  health: Pick<StateHealthShape, "isProblem">
) => {
  let requeued = false
  return Effect.suspend(() => {
    if (requeued) return Effect.void
    requeued = true
    return items.requestReanalysis("unrecognised", id).pipe(
      Effect.catchCause((cause) => {
        if (!health.isProblem(cause))
          return Effect.as(Effect.logWarning("re-queueing unrecognised items failed", cause), 0)
        requeued = false
        return Effect.as(Effect.logDebug("re-queueing unrecognised items waits for the state store", cause), 0)
      }),
      Effect.flatMap((queued) =>
        queued > 0
          ? Effect.logInfo(`${queued} items the API answered without a verdict are analysed again`)
          : Effect.void
      )
    )
  })
}

/** The source's stored checkpoint, if any: one that is not JSON pauses the source (InvalidCheckpoint). */
const storedCheckpoint = (id: string, checkpoints: Pick<CheckpointStoreShape, "getCheckpoint">) =>
  Effect.flatMap(checkpoints.getCheckpoint(id), (stored) =>
    Effect.transposeOption(
      Option.map(stored, (text) =>
        Checkpoint.fromJsonText(text).pipe(
          Effect.mapError(
            (e) =>
              new ConnectorError.ConnectorError({
                source: id,
                reason: "InvalidCheckpoint",
                retryable: false,
                message: `the stored checkpoint is not JSON: ${e.message}`
              })
          )
        )
      )
    )
  )

/** The connector's source of `spec`, made from its config. */
const openSource = (spec: SourceSpec) =>
  Effect.gen(function* () {
    const source = yield* spec.connector.make(spec.config)
    const declared = spec.connector.capabilities.actions
    if (declared.length > 0 && source.act === undefined) {
      // Every action of its rules would fail: pause it with the reason rather than run it half-working.
      return yield* new ConnectorError.ConnectorError({
        source: spec.settings.id,
        reason: "InvalidConfig",
        retryable: false,
        message: `the connector declares actions [${declared.join(", ")}] but its source has no act (a bug in the plugin; its conformance kit's \`actions\` check fails)`
      })
    }
    return source
  })

/**
 * A source's sorted events (one array per read of the source) as the batches it sends, of at most
 * `size` events (legacyAwareBatchSize). A pull source's are grouped up to `size` or `maxWait`. A push
 * source's clients may be waiting on each item (a check): each read of its intake (every item waiting)
 * is sent as it came, cut at the batch size, with no window at all. Even a 1 ms window (a timer, a
 * race and a queue per batch) cost each check ~2 ms at p50 (bench/daemon-push.ts, docs/BENCHMARKS.md).
 */
export const batched =
  (how: { readonly push: boolean; readonly size: number; readonly maxWait: Duration.Input }) =>
  <E, R>(
    reads: Stream.Stream<Arr.NonEmptyArray<SourceEvent.Positioned>, E, R>
  ): Stream.Stream<ReadonlyArray<SourceEvent.Positioned>, E, R> =>
    how.push
      ? reads.pipe(
          Stream.map((kept) => Arr.chunksOf(kept, how.size)),
          Stream.flattenIterable
        )
      : reads.pipe(Stream.flattenArray, Stream.groupedWithin(how.size, how.maxWait))

/** The parts of a running source (each its own module), shared by its starts. */
interface SourceParts {
  readonly checkpoints: Pick<CheckpointStoreShape, "getCheckpoint">
  readonly supervisor: SourceSupervisor.SourceSupervisor
  readonly intake: SourceIntake.SourceIntake
  readonly batches: BatchDispatch.BatchDispatch
  readonly commits: CheckpointCommit.CheckpointCommit<CheckpointCommit.TablesServices>
  readonly sweep: ReanalysisSweep.ReanalysisSweep
}

/**
 * One start of a source: read from the stored checkpoint, sort the events, send them in batches
 * (`inflight` at once), commit each batch's checkpoint in stream order. A finite source whose stream
 * ends is finished, and its scope stays open so that the actions and re-analysis of its items still run.
 */
const startSource = (spec: SourceSpec, options: PipelineOptions, parts: SourceParts) =>
  Effect.gen(function* () {
    const id = spec.settings.id
    const status = yield* SourceStatus
    const from = yield* storedCheckpoint(id, parts.checkpoints)
    const source = yield* openSource(spec)
    yield* status.set(id, { state: "running" })
    const acknowledge = parts.commits.acknowledger(source)
    const committed = (checkpoint: Checkpoint.Checkpoint) =>
      parts.commits
        .store(checkpoint)
        .pipe(
          Effect.andThen(acknowledge(checkpoint)),
          Effect.andThen(status.committed(id)),
          Effect.andThen(parts.supervisor.committed),
          Effect.andThen(parts.commits.purge)
        )
    // Per start of the source: a claim of a stream that failed is dropped with it.
    const sendOrder = ReferenceOrder.make()
    yield* Effect.forkScoped(ActionExecutor.run(id, source))
    // Also in hold mode: items an operator asked to analyse again (`warden reanalyse`) wait here.
    yield* Effect.forkScoped(parts.sweep.run)
    yield* source.events(from).pipe(
      Stream.mapArrayEffect((events) => Effect.map(parts.intake.sort(events), (kept) => [kept] as const)),
      Stream.filter((kept): kept is Arr.NonEmptyArray<SourceEvent.Positioned> => kept.length > 0),
      batched({
        push: spec.connector.capabilities.push === true,
        size: legacyAwareBatchSize(spec.settings.mode, options),
        maxWait: options.maxWait
      }),
      // Each batch's references claimed in stream order: one holding a reference of an earlier batch
      // not yet acknowledged (handed back, waiting to be sent again) is sent after it (ReferenceOrder.ts).
      Stream.map(
        (chunk) => [chunk, sendOrder.claim(chunk.filter(SourceEvent.isItemEvent).map((e) => e.reference))] as const
      ),
      Stream.mapEffect(([chunk, claim]) => claim.run(parts.batches.dispatch(chunk)), { concurrency: options.inflight }),
      Stream.runForEach((checkpoint) => (checkpoint === undefined ? Effect.void : committed(checkpoint)))
    )
    // The stream ended: a finite source read to its end (Benthos' end of input). It is done, not restarted.
    yield* Effect.logInfo(
      "source finished: its stream ended; it is not restarted (restart the daemon to read it again)"
    )
    yield* status.set(id, { state: "finished", reason: "the stream ended" })
    return yield* Effect.never
  }).pipe(Effect.scoped)

/** How a source's batch messages are sent: a push source's to `PushItemBatch`, a pull source's to `ItemBatch`. */
const deliveryOf = (push: boolean) =>
  push
    ? Effect.map(
        PushItemBatch.client,
        (client) => (entityId: string, message: BatchSender.BatchMessage) => client(entityId).ProcessVolatile(message)
      )
    : Effect.map(
        ItemBatch.client,
        (client) => (entityId: string, message: BatchSender.BatchMessage) => client(entityId).Process(message)
      )

/** Runs one source forever: its parts made once, then started again and again by its supervisor. */
const runSource = (spec: SourceSpec, options: PipelineOptions) =>
  Effect.gen(function* () {
    const id = spec.settings.id
    const checkpoints = yield* CheckpointStore
    const items = yield* ItemStore
    const api = yield* ApiHealth.make(spec.settings.failure)
    const push = spec.connector.capabilities.push === true
    // A push source's batches go to their own entity type, which takes every batch in flight at once,
    // and are not persisted: its intake is their durable log (ItemBatch.ts, ProcessVolatile).
    const sender = BatchSender.make(id, options.partitions, yield* deliveryOf(push))
    const parts: SourceParts = {
      checkpoints,
      supervisor: yield* SourceSupervisor.make({ id, pauseRetry: options.pauseRetry, checkpoints }),
      intake: yield* SourceIntake.make(id, yield* SourceErrorStore),
      batches: yield* BatchDispatch.make({ id, sender, api, pauseRetry: options.pauseRetry }),
      commits: yield* CheckpointCommit.make({
        id,
        partitions: options.partitions,
        checkpoints,
        oldestInFlight: sender.oldestInFlight,
        tables: CheckpointCommit.clusterTables,
        itemsWaitIn: push ? "intake" : "upstream"
      }),
      sweep: yield* ReanalysisSweep.make({
        id,
        kinds: [...spec.settings.analyse],
        batchSize: options.batchSize,
        items,
        sender,
        api
      })
    }
    const requeue = requeueUnrecognisedOnce(id, items, yield* StateHealth)
    return yield* parts.supervisor.run(Effect.andThen(requeue, startSource(spec, options, parts)))
  }).pipe(Effect.annotateLogs({ source: spec.settings.id }))

/** One cluster singleton per source. */
export const sourcesLayer = (specs: ReadonlyArray<SourceSpec>, options: PipelineOptions) =>
  Layer.mergeAll(
    Layer.empty,
    ...specs.map((spec) => Singleton.make(`warden/source/${spec.settings.id}`, runSource(spec, options)))
  )
