/**
 * The cluster side of the engine: a persisted entity that processes batches of events, and the
 * source singletons that feed it.
 *
 * - Each source runs as a cluster `Singleton`: exactly one runner reads a feed or holds a gateway.
 * - Its events go, in batches, to the `ItemBatch` entity as persisted messages, partitioned by
 *   reference (so one reference is always handled by one entity, in order). A message accepted by
 *   the cluster survives a crash and is delivered again.
 * - The source commits its checkpoint only after every partition acknowledged the batch, and in
 *   stream order: at-least-once, with the dedupe in `BatchProcessor` making redeliveries free.
 */
import { createHash } from "node:crypto"
import { Backoff, Checkpoint, type Connector, ConnectorError, SourceEvent } from "@warden/connector"
import {
  type Array as Arr,
  Cause,
  Context,
  Duration,
  Effect,
  Exit,
  Layer,
  Metric,
  Option,
  Schema,
  Stream
} from "effect"
import { ClusterSchema, Entity, Singleton } from "effect/cluster"
import { Rpc } from "effect/rpc"
import * as ClusterTables from "../state/ClusterTables.ts"
import { CheckpointStore } from "../state/CheckpointStore.ts"
import { ItemStore } from "../state/ItemStore.ts"
import { SourceErrorStore } from "../state/SourceErrorStore.ts"
import * as RepeatedWarnings from "../state/RepeatedWarnings.ts"
import * as StateHealth from "../state/StateHealth.ts"
import * as ActionExecutor from "./ActionExecutor.ts"
import * as BatchEvent from "./BatchEvent.ts"
import { BatchProcessor, type Handling } from "./BatchProcessor.ts"
import * as ReferenceOrder from "./ReferenceOrder.ts"
import { ApiUnavailable, SourcePaused } from "./EngineError.ts"
import * as Metrics from "./Metrics.ts"
import { SourceStatus } from "./SourceStatus.ts"
import type { SourceSettings } from "../domain/SourceSettings.ts"

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

/** A configured source, ready to run. */
export interface SourceSpec {
  readonly settings: SourceSettings
  readonly connector: Connector.Connector
  /** The connector's decoded config. */
  readonly config: unknown
}

/** An item's stored event (`warden_items.event`): the upsert a batch recorded, as JSON text. */
const decodeStoredUpsert = Schema.decodeUnknownEffect(Schema.fromJsonString(BatchEvent.Upsert))

/** Tuning of the pipeline. */
export interface PipelineOptions {
  /** Events per batch (also the legacy micro-batch size). */
  readonly batchSize: number
  /** Longest wait to fill a batch. */
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

/** The sources by id, for the entity to find a batch's settings. */
export class Sources extends Context.Service<Sources, ReadonlyMap<string, SourceSpec>>()("@warden/daemon/Sources") {}

/** The entity's handlers: run each batch through the processor, `batchesAtOnce` messages at a time. */
export const itemBatchLayer = (options: Pick<PipelineOptions, "batchesAtOnce">) =>
  ItemBatch.toLayer(
    Effect.gen(function* () {
      const processor = yield* BatchProcessor
      const sources = yield* Sources
      return ItemBatch.of({
        Process: ({ payload }) => {
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
    }),
    { concurrency: options.batchesAtOnce }
  )

const partitionOf = (reference: string, partitions: number): number =>
  partitions <= 1 ? 0 : createHash("sha1").update(reference).digest().readUInt32BE(0) % partitions

/** Runs one source forever: read from the last checkpoint, hand batches to the entity, commit. */
const runSource = (spec: SourceSpec, options: PipelineOptions) =>
  Effect.gen(function* () {
    const checkpoints = yield* CheckpointStore
    const items = yield* ItemStore
    const sourceErrors = yield* SourceErrorStore
    const status = yield* SourceStatus
    const clientFor = yield* ItemBatch.client
    const health = yield* StateHealth.StateHealth
    const id = spec.settings.id
    /**
     * This source's writes, as the state store's health counts them (StateHealth): its batches (their
     * cluster messages, their verdicts) and its checkpoints. A failure of the store is its outage's one
     * line, not a line per attempt; the batch is handed back and the commit retried until they work.
     */
    const writes = StateHealth.sourceWrites(id)
    /** Warnings of a loop (the purge after each commit, the re-analysis sweep): one a minute each. */
    const warnings = RepeatedWarnings.make()
    let lastPauseLog = 0

    /** Backoff of a batch handed back (the API unavailable): 500 ms doubling up to the pause retry. */
    const pauseRetry = Duration.fromInputUnsafe(options.pauseRetry)
    const handBackBackoff: Backoff.Backoff = {
      initial: Duration.min(Duration.millis(500), pauseRetry),
      max: pauseRetry
    }
    const failure = spec.settings.failure ?? { mode: "hold" as const, afterMillis: Number.POSITIVE_INFINITY }
    /** Since when the API has been unavailable to this source (undefined: it answers). */
    let unavailableSince: number | undefined
    /**
     * When a batch last tried the API for real: set as a degraded source's try starts (so that the
     * batches in flight do not all try at once), and again as any real try ends (the 10 s count from there).
     */
    let lastProbe = 0

    /** Start times of the sends still waiting for their replies: their messages must not be purged. */
    const sending = new Map<symbol, number>()
    // Purged: this source's partitions, and at least the 4 an older daemon spread SQLite batches over
    // (their messages left at an upgrade are processed after it, then purged like the others).
    const entityIds = Array.from({ length: Math.max(4, options.partitions) }, (_, p) => `${id}/${p}`)
    let lastReclaim = Date.now()

    /**
     * Deletes this source's processed batch messages and replies after each commit (two statements on
     * a handful of rows): everything sent before the oldest send still in flight has been acknowledged,
     * and its verdicts are durable.
     */
    const purge = Effect.gen(function* () {
      const now = Date.now()
      let oldest = now
      for (const at of sending.values()) oldest = Math.min(oldest, at)
      const deleted = yield* ClusterTables.purgeProcessed(entityIds, oldest)
      if (deleted > 0) yield* Metric.update(Metric.withAttributes(Metrics.messagesPurged, { source: id }), deleted)
      if (now - lastReclaim >= 60_000) {
        lastReclaim = now
        yield* ClusterTables.reclaimSpace()
      }
    }).pipe(
      // Not retried until it works (the next commit purges again): a problem of the store is for the
      // writes that are (the batches, the checkpoints) to report.
      Effect.catchCause((cause) =>
        health.isProblem(cause)
          ? Effect.void
          : warnings.log("purge", "Warn", "purging processed batch messages failed", cause)
      )
    )

    let warnedLarge = false
    /**
     * Stores the checkpoint; one warning when it breaks the connector contract's size. Retried while
     * the state store is down (a failed commit used to fail the source's stream, which read its batches
     * again from the previous checkpoint once restarted).
     */
    const commit = (checkpoint: Checkpoint.Checkpoint) =>
      Effect.suspend(() => {
        const text = Checkpoint.toJsonText(checkpoint)
        const commitIt = checkpoints.commitCheckpoint(id, text).pipe(health.untilWritten(writes))
        if (warnedLarge || text.length <= Checkpoint.maxBytes) return commitIt
        warnedLarge = true
        return Effect.logWarning(
          `checkpoint of ${text.length} bytes, above the connector contract's ${Checkpoint.maxBytes}: it is written at every batch (see docs/connectors.md)`
        ).pipe(Effect.annotateLogs({ source: id }), Effect.andThen(commitIt))
      })

    const send = (events: ReadonlyArray<BatchEvent.BatchEvent>, how: Handling) =>
      Effect.acquireUseRelease(
        Effect.sync(() => {
          const token = Symbol()
          sending.set(token, Date.now())
          return token
        }),
        () => sendNow(events, how),
        (token) => Effect.sync(() => sending.delete(token))
      )

    const sendNow = (events: ReadonlyArray<BatchEvent.BatchEvent>, how: Handling) => {
      const byPartition = new Map<number, Array<BatchEvent.BatchEvent>>()
      for (const event of events) {
        const p = partitionOf(event.reference, options.partitions)
        const list = byPartition.get(p)
        if (list === undefined) byPartition.set(p, [event])
        else list.push(event)
      }
      return Effect.forEach(
        byPartition,
        ([p, batch]) =>
          clientFor(`${id}/${p}`).Process({
            source: id,
            events: BatchEvent.toText(batch),
            ...(how.degraded === undefined ? {} : { degraded: how.degraded }),
            ...(how.reanalysis === true ? { reanalysis: true } : {})
          }),
        { concurrency: "unbounded", discard: true }
      )
    }

    /**
     * The failure mode in force for a batch's next attempt: degraded only past the configured delay.
     * While degraded, the API is tried for real at most every 10 s, counted from the end of the last
     * try, and never twice in a row by one batch (`justTried`): the other batches, and this one after
     * its failed try, go through degraded. Counted from the try's start, a try slower than 10 s (a
     * timeout), or a lone batch whose hand-back backoff had grown past 10 s, made every attempt a try,
     * and the failure mode never applied.
     */
    const degradedNow = (justTried: boolean): "allow" | "reject" | undefined => {
      if (failure.mode === "hold" || unavailableSince === undefined) return undefined
      if (Date.now() - unavailableSince < failure.afterMillis) return undefined
      if (!justTried && Date.now() - lastProbe >= 10_000) {
        lastProbe = Date.now()
        return undefined
      }
      return failure.mode
    }

    /**
     * Sends a batch until it is acknowledged: a pause or an outage holds the source (or, past the
     * failure-mode delay, records the items unanalysed), never drops them.
     */
    const dispatch = (chunk: ReadonlyArray<SourceEvent.Positioned>) =>
      Effect.gen(function* () {
        // `progress` events (a poll that found nothing) are not sent: their checkpoint is committed in order.
        const items = chunk.filter(SourceEvent.isItemEvent)
        if (items.length === 0) return chunk.at(-1)?.checkpoint
        const events = items.map(BatchEvent.fromSourceEvent)
        let attempt = 0
        let tried = false
        while (true) {
          const degraded = degradedNow(tried)
          const exit = yield* Effect.exit(send(events, { degraded }))
          tried = degraded === undefined
          if (tried) lastProbe = Date.now()
          if (exit._tag === "Success") {
            yield* health.recovered(writes)
            if (degraded === undefined) {
              if (unavailableSince !== undefined) {
                yield* Effect.logInfo("the API answers again").pipe(Effect.annotateLogs({ source: id }))
              }
              unavailableSince = undefined
              yield* status.set(id, { state: "running" })
            }
            return chunk.at(-1)?.checkpoint
          }
          attempt++
          if ((yield* health.report(writes, exit.cause)) !== undefined) {
            // The state store is down: its outage's line says so once, and the batch is sent again on
            // the store's backoff (up to 5 s), so the source resumes soon after the store is back.
            yield* Metric.update(Metric.withAttributes(Metrics.batchRetries, { source: id }), 1)
            yield* Effect.sleep(Backoff.delay(StateHealth.retryBackoff, attempt))
            continue
          }
          const error = Cause.squash(exit.cause) as { _tag?: string; message?: string; code?: string; detail?: string }
          // The reason without the "source X paused:" of the message: /readyz names the source and the state.
          const reason = error.code === undefined ? (error.message ?? String(error)) : `${error.code} (${error.detail})`
          if (error._tag === "SourcePaused") {
            yield* status.set(id, { state: "paused", by: "api", reason })
            if (Date.now() - lastPauseLog >= 60_000) {
              lastPauseLog = Date.now()
              yield* Effect.logError(
                `source paused: ${error.message}; retrying every ${Duration.format(Duration.fromInputUnsafe(options.pauseRetry))}`
              ).pipe(Effect.annotateLogs({ source: id }))
            }
            yield* Effect.sleep(options.pauseRetry)
            continue
          }
          if (error._tag === "ApiUnavailable") {
            unavailableSince ??= Date.now()
            yield* status.set(id, { state: "api-unavailable", reason })
          }
          yield* Metric.update(Metric.withAttributes(Metrics.batchRetries, { source: id }), 1)
          yield* Effect.logWarning(`batch handed back: ${error.message ?? String(error)}`).pipe(
            Effect.annotateLogs({ source: id, attempt })
          )
          yield* Effect.sleep(Backoff.delay(handBackBackoff, attempt))
        }
      })

    /**
     * Items recorded without a verdict while the API was down get one once it answers again. Sending
     * them normally is also the probe that ends the degraded state when the source has no new events.
     * Answers whether to read again at once: after a full batch there are probably more (a backlog
     * of 100,000 would otherwise take 80 minutes at one batch per 5 s), unless the read gave the same
     * versions as the last one (they did not change, so going again would only spin).
     */
    let lastSwept = ""
    const reanalyseOnce = Effect.gen(function* () {
      const rows = yield* items.unanalysed(id, [...spec.settings.analyse], options.batchSize)
      const swept = rows.map((r) => `${r.reference}\u001f${r.version}`).join("\u001e")
      const again = rows.length >= options.batchSize && swept !== lastSwept
      lastSwept = swept
      if (rows.length === 0) return false
      const events = yield* Effect.forEach(rows, (r) =>
        decodeStoredUpsert(r.event).pipe(
          // a row our own pipeline wrote, changed behind the daemon's back: a defect (state/internal/Rows.ts)
          Effect.catch((e) =>
            Effect.die(new Error(`a stored event of warden_items (${r.reference}) does not decode: ${e.message}`))
          )
        )
      )
      const exit = yield* Effect.exit(send(events, { reanalysis: true }))
      if (exit._tag === "Failure") return false
      if (unavailableSince !== undefined) {
        unavailableSince = undefined
        yield* status.set(id, { state: "running" })
      }
      yield* Effect.logInfo(`analysed ${events.length} items recorded while the API was unavailable`).pipe(
        Effect.annotateLogs({ source: id })
      )
      return again
    }).pipe(
      Effect.catchCause((cause) =>
        Effect.as(
          health.isProblem(cause)
            ? Effect.void
            : warnings.log("re-analysis", "Warn", "re-analysis sweep failed", cause),
          false
        )
      )
    )
    const reanalyse = reanalyseOnce.pipe(
      Effect.flatMap((full) => (full ? Effect.void : Effect.sleep("5 seconds"))),
      Effect.forever
    )

    /** Restarts since the source last committed a checkpoint: the backoff's attempt number. */
    let restarts = 0

    /**
     * An event the daemon cannot take (a reference over 256 characters, a checkpoint that is not JSON,
     * content failing the schema) is recorded with its reference, field and reason, counted, logged and
     * skipped: the source goes on. Its checkpoint is not committed; the next valid event's is.
     */
    const deadLetter = (event: unknown, problems: ReadonlyArray<SourceEvent.Problem>) =>
      Effect.gen(function* () {
        const raw = (event as { reference?: unknown } | null)?.reference
        const reference = typeof raw === "string" && raw !== "" ? raw : "(none)"
        const text = safeJson(event).slice(0, 4096)
        for (const problem of problems) {
          yield* sourceErrors.recordSourceDeadLetter({
            source: id,
            reference,
            field: problem.field,
            reason: problem.message,
            event: text
          })
          yield* Metric.update(
            Metric.withAttributes(Metrics.sourceDeadLetters, { source: id, field: topField(problem.field) }),
            1
          )
        }
        yield* Effect.logWarning(
          `event dead-lettered and skipped (GET /api/dead-letters): ${SourceEvent.formatProblems(problems)}`
        ).pipe(Effect.annotateLogs({ source: id, reference: reference.slice(0, 300) }))
      })

    /** Records an upstream error event: the error log, its metric, the source's status, a warning. */
    const upstreamError = (event: SourceEvent.ErrorEvent) =>
      Effect.all([
        sourceErrors.recordSourceError(id, event.reason, event.message),
        Metric.update(Metric.withAttributes(Metrics.sourceErrors, { source: id }), 1),
        status.set(id, { state: "upstream-error", reason: event.message }),
        Effect.logWarning(`source error: ${event.message}`).pipe(
          Effect.annotateLogs({ source: id, reason: event.reason, retryInMillis: event.retryInMillis })
        )
      ])

    /**
     * One chunk of the source's events, as the connector handed it over: invalid events dead-lettered,
     * error events recorded, the item and `progress` events kept in order. A plain loop per chunk, where
     * three Stream stages (a filter with an effect, a tap, a filter) ran an effect per event.
     */
    const sortEvents = (events: ReadonlyArray<SourceEvent.SourceEvent>) =>
      Effect.gen(function* () {
        const kept: Array<SourceEvent.Positioned> = []
        for (const event of events) {
          const problems = SourceEvent.problems(event)
          if (problems.length > 0) yield* deadLetter(event, problems)
          else if (SourceEvent.isErrorEvent(event)) yield* upstreamError(event)
          else kept.push(event)
        }
        return kept
      })

    /** Whether this process has asked for the source's unrecognised items to be analysed again. */
    let requeued = false

    const once = Effect.gen(function* () {
      if (!requeued) {
        // Items the API answered without a verdict get one more try per start of the daemon (e.g. after
        // the API was fixed): once, not per source restart, so a still-broken API costs one call each.
        requeued = true
        const queued = yield* items
          .requestReanalysis("unrecognised", id)
          .pipe(
            Effect.catchCause((cause) =>
              Effect.as(Effect.logWarning("re-queueing unrecognised items failed", cause), 0)
            )
          )
        if (queued > 0) yield* Effect.logInfo(`${queued} items the API answered without a verdict are analysed again`)
      }
      const stored = yield* checkpoints.getCheckpoint(id)
      const from = yield* Effect.transposeOption(
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
      const source = yield* spec.connector.make(spec.config)
      const declared = spec.connector.capabilities.actions
      if (declared.length > 0 && source.act === undefined) {
        // Every action of its rules would fail: pause it with the reason rather than run it half-working.
        return yield* new ConnectorError.ConnectorError({
          source: id,
          reason: "InvalidConfig",
          retryable: false,
          message: `the connector declares actions [${declared.join(", ")}] but its source has no act (a bug in the plugin; its conformance kit's \`actions\` check fails)`
        })
      }
      yield* status.set(id, { state: "running" })
      /**
       * Tells the source (a message bus) that every event up to a committed checkpoint is recorded
       * (Source.acknowledge). A failure is logged once per start and never stops the source: what was
       * not acknowledged is delivered again, and the dedupe makes that free.
       */
      let ackFailed = false
      const acknowledge = (checkpoint: Checkpoint.Checkpoint) =>
        source.acknowledge === undefined
          ? Effect.void
          : source.acknowledge(checkpoint).pipe(
              Effect.catchCause((cause) => {
                if (Cause.hasInterruptsOnly(cause)) return Effect.failCause(cause)
                if (ackFailed) return Effect.void
                ackFailed = true
                return Effect.logWarning("the source's acknowledge failed (logged once)", cause)
              })
            )
      // Per start of the source: a claim of a stream that failed is dropped with it.
      const sendOrder = ReferenceOrder.make()
      yield* Effect.forkScoped(ActionExecutor.run(id, source))
      // Also in hold mode: items an operator asked to analyse again (`warden reanalyse`) wait here.
      yield* Effect.forkScoped(reanalyse)
      yield* source.events(from).pipe(
        Stream.mapArrayEffect((events) => Effect.map(sortEvents(events), (kept) => [kept] as const)),
        Stream.filter((kept): kept is Arr.NonEmptyArray<SourceEvent.Positioned> => kept.length > 0),
        Stream.flattenArray,
        // Legacy mode sends a partition message's events in micro-batches of 100, 4 at once
        // (LegacyAnalyzer): group enough events that each partition's share nearly fills its requests.
        Stream.groupedWithin(legacyAwareBatchSize(spec.settings.mode, options), options.maxWait),
        // Each batch's references claimed in stream order: one holding a reference of an earlier batch
        // not yet acknowledged (handed back, waiting to be sent again) is sent after it (ReferenceOrder.ts).
        Stream.map(
          (chunk) => [chunk, sendOrder.claim(chunk.filter(SourceEvent.isItemEvent).map((e) => e.reference))] as const
        ),
        Stream.mapEffect(([chunk, claim]) => claim.run(dispatch(chunk)), { concurrency: options.inflight }),
        Stream.runForEach((checkpoint) =>
          checkpoint === undefined
            ? Effect.void
            : commit(checkpoint).pipe(
                Effect.andThen(acknowledge(checkpoint)),
                Effect.andThen(status.committed(id)),
                Effect.andThen(
                  Effect.sync(() => {
                    restarts = 0
                  })
                ),
                Effect.andThen(purge)
              )
        )
      )
      // The stream ended: a finite source read to its end (Benthos' end of input). It is done, not
      // restarted; its scope stays open so the actions and re-analysis of its items still run.
      yield* Effect.logInfo(
        "source finished: its stream ended; it is not restarted (restart the daemon to read it again)"
      )
      yield* status.set(id, { state: "finished", reason: "the stream ended" })
      return yield* Effect.never
    }).pipe(Effect.scoped)

    /**
     * The source's supervisor. A singleton whose effect ends is not restarted until the next shard
     * re-sync: it never ends. A non-retryable ConnectorError (`Unauthorized`, `InvalidCheckpoint`,
     * `InvalidConfig`) pauses the source until its checkpoint changes (`warden source checkpoint reset`)
     * or the daemon restarts; any other failure (a retryable error, a defect) restarts it with backoff.
     */
    return yield* Effect.gen(function* () {
      while (true) {
        const exit = yield* Effect.exit(once)
        if (Exit.isSuccess(exit)) continue
        if (Cause.hasInterruptsOnly(exit.cause)) return yield* Effect.interrupt
        const typed = Cause.findErrorOption(exit.cause)
        const error =
          Option.isSome(typed) && typed.value instanceof ConnectorError.ConnectorError ? typed.value : undefined
        if (error !== undefined && !error.retryable) {
          const hint =
            error.reason === "InvalidCheckpoint"
              ? `warden source checkpoint reset --source ${id} starts it afresh`
              : "fix it and restart the daemon"
          yield* status.set(id, {
            state: "paused",
            by: "source",
            reason: `${error.reason}: ${error.message} (${hint})`
          })
          yield* Effect.logError(`source paused: ${error.reason}: ${error.message}; ${hint}`)
          const stored = yield* checkpoints.getCheckpoint(id)
          // A reset (or any new checkpoint) is the operator's answer: start again then.
          while (true) {
            yield* Effect.sleep(options.pauseRetry)
            const now = yield* checkpoints.getCheckpoint(id).pipe(Effect.orElseSucceed(() => stored))
            if (Option.getOrUndefined(now) !== Option.getOrUndefined(stored)) break
          }
          yield* Effect.logInfo("the source's checkpoint changed: starting it again")
          restarts = 0
          continue
        }
        restarts++
        const wait = Backoff.delay(restartBackoff, restarts)
        const what =
          error !== undefined
            ? `${error.reason}: ${error.message}`
            : Cause.hasDies(exit.cause)
              ? `defect: ${Cause.pretty(exit.cause).split("\n")[0]}`
              : (Cause.pretty(exit.cause).split("\n")[0] ?? "failure")
        yield* Metric.update(
          Metric.withAttributes(Metrics.sourceRestarts, {
            source: id,
            reason: error?.reason ?? (Cause.hasDies(exit.cause) ? "defect" : "failure")
          }),
          1
        )
        yield* status.set(id, {
          state: "restarting",
          attempt: restarts,
          reason: `stream failed: ${what}; restarting in ${Duration.format(wait)}`
        })
        // The state store down: its outage's line says so once (the restarts go on, with backoff).
        if (!health.covers(exit.cause)) {
          yield* Effect.logError(
            `source stream failed (${what}); restart ${restarts} in ${Duration.format(wait)}`,
            exit.cause
          )
        }
        yield* Effect.sleep(wait)
      }
    })
  }).pipe(Effect.annotateLogs({ source: spec.settings.id }))

/** Backoff of a source's restarts after its stream failed: 1 second doubling up to 5 minutes. */
const restartBackoff: Backoff.Backoff = { initial: Duration.seconds(1), max: Duration.minutes(5) }

/** An event as JSON text for the dead-letter table, whatever it holds (a BigInt is written as a string). */
const safeJson = (value: unknown): string => {
  try {
    return JSON.stringify(value, (_, v) => (typeof v === "bigint" ? `${v}n` : v)) ?? String(value)
  } catch {
    return String(value)
  }
}

/** `checkpoint.cursor.seq` -> `checkpoint`: a metric attribute with a bounded set of values. */
const topField = (field: string): string => field.split(/[.[]/u)[0] ?? field

/** One cluster singleton per source. */
export const sourcesLayer = (specs: ReadonlyArray<SourceSpec>, options: PipelineOptions) =>
  Layer.mergeAll(
    Layer.empty,
    ...specs.map((spec) => Singleton.make(`warden/source/${spec.settings.id}`, runSource(spec, options)))
  )
