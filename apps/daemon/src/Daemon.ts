/**
 * The whole ingestion service as one Layer: state store -> cluster runner -> API clients -> batch
 * processor -> source singletons and sink workers -> admin HTTP. `warden run` and `warden demo` build
 * a `DaemonSpec` and launch this layer; tests do the same in-process.
 *
 * One machine: `SingleRunner` on the state database (SQLite by default). On PostgreSQL each daemon is
 * a socket runner of one cluster (`ClusterRunner`): the pipeline code does not know which runner it is
 * on, so the multi-runner mode only swaps the cluster layer and spreads a source over more partitions.
 */
import type { SinkStore } from "@warden/sink"
import { LegacyBatch } from "@warden/legacy"
import { type ApiConfig, type RateLimiter, Transport } from "@warden/transport"
import { AnalyzeV1, FeedbackV1 } from "@warden/v1"
import { Effect, Layer } from "effect"
import type { SqlClient } from "effect/sql"
import * as Admin from "./admin/AdminServer.ts"
import * as ClusterRunner from "./ClusterRunner.ts"
import * as ClusterStorageLogs from "./ClusterStorageLogs.ts"
import { StateOwner } from "./state/StateOwner.ts"
import * as BatchesInFlight from "./engine/BatchesInFlight.ts"
import { BatchProcessor } from "./engine/BatchProcessor.ts"
import { FeedbackService } from "./engine/FeedbackService.ts"
import { ReviewService } from "./engine/ReviewService.ts"
import * as StrikePolicy from "./domain/StrikePolicy.ts"
import { LegacyAnalyzer } from "./engine/LegacyAnalyzer.ts"
import * as Pipeline from "./engine/Pipeline.ts"
import * as PushIntake from "./engine/PushIntake.ts"
import * as Retention from "./engine/Retention.ts"
import { SourceStatus } from "./engine/SourceStatus.ts"
import { SinkList } from "./sinks/SinkList.ts"
import * as SinkWorker from "./sinks/SinkWorker.ts"
import * as AuthorBackfill from "./state/AuthorBackfill.ts"
import { Erasure } from "./state/Erasure.ts"
import * as SinkStoresModule from "./state/SinkStores.ts"
import { SinkStores } from "./state/SinkStores.ts"
import { type StateLocation, sqlLayer } from "./state/StateSql.ts"
import * as StateStore from "./state/StateStore.ts"

export { type StateLocation, sqlLayer } from "./state/StateSql.ts"

/** Everything the daemon runs with, resolved from the config file (or built by `demo` and tests). */
export interface DaemonSpec {
  readonly state: StateLocation
  readonly api: Parameters<typeof Transport.Transport.layerOptions>[0]
  readonly sources: ReadonlyArray<Pipeline.SourceSpec>
  /** The sinks; a sink that holds a resource (a file) is acquired in the layer's scope. */
  readonly sinks: Layer.Layer<SinkList, unknown, SqlClient.SqlClient>
  readonly sinkNames: ReadonlyArray<string>
  readonly admin: Admin.AdminOptions | undefined
  /** The sinks' tables erasure and retention rewrite (their `stores`); default the sql sink's. */
  readonly sinkStores?: ReadonlyArray<SinkStore.SinkStore> | undefined
  /** The sinks whose records carry the content text (their entry says `content: true`); default none. */
  readonly contentSinks?: ReadonlyArray<string> | undefined
  readonly pipeline?: Partial<Pipeline.PipelineOptions>
  /** effect/cluster settings (`cluster.*` keys). */
  readonly cluster?: ClusterRunner.ClusterSettings
  /**
   * PostgreSQL only: where this runner listens for the others and the address it gives them. Default:
   * `127.0.0.1`, a free port (one-machine tests).
   */
  readonly runner?: ClusterRunner.RunnerOptions
  /**
   * A span per API call (`AnalyzeV1.textWithRequest` and the like), for when traces are exported
   * (`warden run` sets it when an `OTEL_*` traces endpoint is set). Off by default: each such span
   * copies the fiber's whole context (every service of the daemon) to provide its parent span, ~11%
   * of the data path's allocation per item (docs/BENCHMARKS.md, "the data path, profiled"). The
   * batch's span (`BatchProcessor.process`) is there either way.
   */
  readonly traceApiCalls?: boolean
  /**
   * The strike policy and the appeal window (`authors`): what review decisions and appeals follow.
   * Default: rejections weigh 1, a 7-day half-life, 30 days to appeal.
   */
  readonly authors?: {
    readonly strikes: StrikePolicy.StrikePolicy
    readonly appealWindowMillis: number
  }
}

/** The `authors` defaults (the config file's). */
export const defaultAuthors = {
  strikes: { halfLifeMillis: StrikePolicy.DEFAULT_HALF_LIFE_MILLIS, verdicts: [], rejection: 1 },
  appealWindowMillis: 30 * 86_400_000
} as const

/**
 * Defaults of the pipeline, measured with bench/daemon-throughput.ts and bench/daemon-quota.ts: batches
 * of 100 (bigger batches were ~20% faster unthrottled, but one item waiting out a 429 then holds more
 * work and the sustained rate under a quota fell from 0.8 to 0.2-0.5 of it), 16 in flight so the next
 * batches are ready while one is analysed. One partition on a single runner: each batch is one
 * persisted message, one reply and one record transaction, where 4 partitions split it in ~4. Same
 * runs, 10,000 items (docs/BENCHMARKS.md, "One message per batch"): CPU per item 506-527 against
 * 601-605 µs and 1,544-1,613 against 1,329-1,394 items/s at load ~2; with a 100 ms API round trip 613
 * against 586 items/s, the whole message's calls in flight at once (`analysisConcurrency`). The entity
 * works on 4 of those messages at once (`batchesAtOnce`): with one, its thread was idle 30-37% of the
 * steady state, waiting for a batch's slowest answer before recording it (docs/BENCHMARKS.md, "Batches
 * side by side").
 */
export const defaultPipeline: Pipeline.PipelineOptions = {
  batchSize: 100,
  maxWait: "50 millis",
  inflight: 16,
  partitions: 1,
  batchesAtOnce: 4,
  pauseRetry: "15 seconds"
}

/**
 * The pipeline's changes on a PostgreSQL cluster: a source's references spread over 32 partitions
 * (entities), so its work reaches every runner; with 4, three runners left one idle for about half of
 * the source ids (shards land on runners by a hash ring). Batches grow so each partition message still
 * holds ~12 events.
 */
export const clusterPipeline: Partial<Pipeline.PipelineOptions> = {
  partitions: 32,
  batchSize: 400
}

/**
 * How many of a batch message's v1 calls go at once: the whole message, so a message's calls overlap
 * as the 4 partitions' messages of 25 did before (against a remote API, throughput is calls in flight
 * over its round trip), and at least 32.
 */
const analysisConcurrency = (pipeline: Pipeline.PipelineOptions): number =>
  Math.max(32, Math.ceil(pipeline.batchSize / Math.max(1, pipeline.partitions)))

/**
 * Counts the work this runner's entities do (`GET /api/cluster`, the per-runner share), and the
 * batches in progress (a shutdown's last sink drain waits for them).
 */
const countedWork = <E, R>(inner: Layer.Layer<BatchProcessor, E, R>) =>
  Layer.effect(
    BatchProcessor,
    Effect.gen(function* () {
      const processor = yield* BatchProcessor
      const { work } = yield* ClusterRunner.RunnerIdentity
      const inFlight = yield* BatchesInFlight.BatchesInFlight
      return {
        ...processor,
        process: (...args: Parameters<BatchProcessor["Service"]["process"]>) =>
          processor.process(...args).pipe(
            Effect.tap(() =>
              Effect.sync(() => {
                work.items += args[1].length
                work.batches++
              })
            ),
            inFlight.counted
          )
      }
    })
  ).pipe(Layer.provide(inner))

/**
 * The API clients' services among those {@link layer} provides, named here so that the package's
 * declaration files can name them (their modules are not export paths of their packages).
 */
export type ClientServices = ApiConfig.ApiConfig | RateLimiter.RateLimiter | AnalyzeV1.AnalyzeV1 | FeedbackV1.FeedbackV1

/** The whole daemon. */
export const layer = (spec: DaemonSpec) => {
  const clustered = spec.state._tag === "postgres"
  const pipeline = { ...defaultPipeline, ...(clustered ? clusterPipeline : {}), ...spec.pipeline }
  const sql = sqlLayer(spec.state)
  const store = StateStore.layer.pipe(Layer.provideMerge(sql))
  const runner = clustered ? (spec.runner ?? { listen: { host: "127.0.0.1", port: 0 } }) : undefined
  const cluster = ClusterRunner.layer(runner, spec.cluster).pipe(Layer.provide(sql))
  const api = Layer.mergeAll(
    spec.traceApiCalls === true ? AnalyzeV1.AnalyzeV1.layer : AnalyzeV1.AnalyzeV1.layerUntraced,
    spec.traceApiCalls === true ? FeedbackV1.FeedbackV1.layer : FeedbackV1.FeedbackV1.layerUntraced(),
    LegacyBatch.LegacyBatch.layer
  ).pipe(Layer.provideMerge(Transport.Transport.layerOptions(spec.api)))
  const sources = Layer.succeed(Pipeline.Sources, new Map(spec.sources.map((s) => [s.settings.id, s])))
  const processor = BatchProcessor.layer({
    sinks: spec.sinkNames,
    contentSinks: spec.contentSinks,
    concurrency: analysisConcurrency(pipeline)
  }).pipe(Layer.provide(LegacyAnalyzer.layer), countedWork)
  const feedback = FeedbackService.layer
  const authors = spec.authors ?? defaultAuthors
  const review = ReviewService.layer({
    sources: new Map(
      spec.sources.map((s) => [s.settings.id, { actions: s.connector.capabilities.actions, dryRun: s.settings.dryRun }])
    ),
    strikes: authors.strikes,
    appealWindowMillis: authors.appealWindowMillis
  })
  const work = Layer.mergeAll(
    Pipeline.itemBatchLayer(pipeline).pipe(Layer.provide(processor), Layer.provide(sources)),
    // Each source's connector gets its push host (PushIntake): a push connector's intake is the state's.
    Layer.unwrap(Effect.map(PushIntake.withHosts(spec.sources), (specs) => Pipeline.sourcesLayer(specs, pipeline))),
    Layer.unwrap(
      Effect.gen(function* () {
        return SinkWorker.layer(yield* SinkList)
      })
    ),
    Retention.layer(
      spec.sources.map((s) => ({
        id: s.settings.id,
        retentionMillis: s.settings.retentionMillis,
        appealWindowMillis: authors.appealWindowMillis
      }))
    ),
    // Author keys of the items recorded before them (once; nothing to do after).
    Layer.effectDiscard(
      AuthorBackfill.run(new Map(spec.sources.map((s) => [s.settings.id, s.settings.platform ?? s.settings.connector])))
    )
  )
  const view = ClusterRunner.viewLayer(
    spec.sources.map((s) => s.settings.id),
    spec.sinkNames
  )
  const admin =
    spec.admin === undefined
      ? Layer.empty
      : Admin.layer({
          ...spec.admin,
          // Every configured sink, so the pipeline page lists those with empty queues too.
          sinks: spec.sinkNames,
          rules: new Map(spec.sources.map((s) => [s.settings.id, s.settings.rules ?? []])),
          review: {
            sources: new Map(
              spec.sources.map((s) => [
                s.settings.id,
                {
                  platform: s.settings.platform ?? s.connector.type,
                  actions: s.connector.capabilities.actions,
                  dryRun: s.settings.dryRun
                }
              ])
            ),
            halfLifeMillis: authors.strikes.halfLifeMillis
          },
          sources: new Map(
            spec.sources.map((s) => [
              s.settings.id,
              {
                actions: s.connector.capabilities.actions,
                autoFeedback: s.settings.autoFeedback === true,
                dryRun: s.settings.dryRun,
                platform: s.settings.platform ?? s.connector.type
              }
            ])
          )
        }).pipe(Layer.provide(view))
  return Layer.mergeAll(work, admin).pipe(
    Layer.provide(cluster),
    // effect/cluster's lines about a storage failure fold into the state store's outage: its sharding
    // (built here) and its entity managers (built with the entities, in `work`) log through this.
    Layer.provide(ClusterStorageLogs.layer),
    Layer.provideMerge(Erasure.layer),
    Layer.provide(Layer.succeed(SinkStores, SinkStoresModule.unique(spec.sinkStores ?? []))),
    Layer.provide(spec.sinks.pipe(Layer.provide(sql))),
    Layer.provideMerge(review),
    Layer.provideMerge(feedback),
    Layer.provideMerge(api),
    Layer.provideMerge(SourceStatus.layer),
    Layer.provideMerge(Layer.sync(BatchesInFlight.BatchesInFlight, BatchesInFlight.make)),
    // Before anything reads a source: a second daemon on one SQLite file refuses to start.
    Layer.provideMerge(spec.state._tag === "sqlite" ? StateOwner.layer(spec.state.filename) : StateOwner.layerNone),
    Layer.provideMerge(store)
  )
}
