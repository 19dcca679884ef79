/**
 * The RSS connector: polls RSS 0.9x/2.0, Atom, RDF/RSS 1.0 and JSON Feed documents and emits one
 * `upsert` per new or edited item.
 *
 * Error design: every upstream failure (network, timeout, HTTP status, size cap, malformed document)
 * is per feed and transient. It becomes an `error` event, the feed is retried with exponential
 * backoff (longer when the server sends `Retry-After`), other feeds keep polling, and the stream
 * goes on. The stream fails (with a `ConnectorError`) only on a checkpoint it cannot read.
 *
 * Delivery: all events of one poll but the last carry the checkpoint from before the poll, the last
 * one the checkpoint after it (the same two objects for the whole poll); a poll that finds nothing to
 * emit hands over a `progress` event with the checkpoint instead. The checkpoint holds each
 * feed's HTTP validators only; what was seen is kept in memory, so after a restart the first changed
 * document is emitted whole once (`duplicates: "possible"`, the daemon dedupes by reference + content
 * hash and re-analyses edits).
 *
 * @since 0.1.0
 */
import { createHash, hash as oneShotHash } from "node:crypto"
import { Backoff, Connector, ConnectorError, type Source, type SourceEvent } from "@warden/connector"
import { Clock, Context, Duration, Effect, Layer, Option, type Scope, Stream } from "effect"
import type * as EffectConfig from "effect/Config"
import * as AuthorIdentifier from "./AuthorIdentifier.ts"
import * as FeedFetcher from "./FeedFetcher.ts"
import * as FeedParser from "./FeedParser.ts"
import { toPlainText } from "./HtmlText.ts"
import * as LanguageCode from "./LanguageCode.ts"
import * as RssCheckpoint from "./RssCheckpoint.ts"
import * as RssConfig from "./RssConfig.ts"

const sha256 = (s: string): string => createHash("sha256").update(s).digest("hex")

/** One configured feed, resolved: its id in references, URL, content field and language hint. */
export interface FeedSpec {
  readonly id: string
  readonly url: string
  readonly content: RssConfig.ContentField
  /** Whether items without a language of their own are sent with the feed's (`feed`) or with none (`item`, the default). */
  readonly language?: RssConfig.LanguageSource | undefined
}

/** The feed id used in references when the config gives none: 12 hex digits of the URL's SHA-256. */
export const defaultFeedId = (url: string): string => sha256(url).slice(0, 12)

const specs = (config: RssConfig.Config): Array<FeedSpec> =>
  config.feeds.map((f) =>
    typeof f === "string"
      ? { id: defaultFeedId(f), url: f, content: config.content, language: config.language }
      : {
          id: f.id ?? defaultFeedId(f.url),
          url: f.url,
          content: f.content ?? config.content,
          language: f.language ?? config.language
        }
  )

/** An item ready to emit, with its identity and content hash. */
interface Prepared {
  readonly hash: string
  readonly contentHash: string
  readonly event: Omit<SourceEvent.Upsert, "checkpoint">
}

/**
 * What a feed item came to at the last poll, by the fingerprint of its parsed fields ({@link fingerprint}):
 * its identity and content hash, or `null` when it had no text to analyse. A window of items polled again
 * and again (a feed that grows by a few items a poll) then costs the parse and one hash per item, not
 * HTML to text and two SHA-256 each: in `bench/rss-parse.ts`, that was two thirds of a poll.
 */
export type KnownItems = ReadonlyMap<string, { readonly hash: string; readonly contentHash: string } | null>

/**
 * The fingerprint of everything {@link prepare} reads of an item (its fields and the feed's language): an
 * item with the same fingerprint prepares to the same identity and content hash.
 */
const fingerprint = (feed: FeedParser.Feed, item: FeedParser.FeedItem): string =>
  oneShotHash(
    "sha1",
    JSON.stringify([
      item.guid,
      item.link,
      item.title,
      item.summary,
      item.content,
      item.publishedAt,
      item.author?.name,
      item.author?.uri,
      item.author?.email,
      item.language,
      feed.language
    ]),
    "base64"
  )

const plain = (s: string | undefined): string => (s === undefined ? "" : toPlainText(s))

const selectText = (item: FeedParser.FeedItem, mode: RssConfig.ContentField): string => {
  const title = plain(item.title)
  const body = plain(item.content ?? item.summary)
  let text: string
  switch (mode) {
    case "title":
      text = title
      break
    case "summary":
      text = plain(item.summary)
      break
    case "content":
    case "comments":
      text = body
      break
    case "auto":
      text = title === "" || body.startsWith(title) ? body : body === "" ? title : `${title}\n\n${body}`
      break
  }
  return text !== "" ? text : body !== "" ? body : title !== "" ? title : plain(item.summary)
}

/** The item's identity: guid, else link, else title + date, else its content. */
export const itemKey = (item: FeedParser.FeedItem): string =>
  item.guid !== undefined
    ? `guid:${item.guid.trim()}`
    : item.link !== undefined
      ? `link:${item.link}`
      : item.title !== undefined || item.publishedAt !== undefined
        ? `title:${item.title ?? ""}|${item.publishedAt ?? ""}`
        : `content:${item.content ?? item.summary ?? ""}`

const commentedPost = (title: string): string => title.replace(/^Comment on (.*) by .*$/s, "$1")

const prepare = (
  spec: FeedSpec,
  feed: FeedParser.Feed,
  item: FeedParser.FeedItem,
  key: string
): Prepared | undefined => {
  const text = selectText(item, spec.content)
  if (text === "") return undefined
  const hash = sha256(key).slice(0, 32)
  const title = plain(item.title)
  // The item's own language; the feed's (the site's default) only when the config asks for it.
  const language =
    LanguageCode.isoCode(item.language) ?? (spec.language === "feed" ? LanguageCode.isoCode(feed.language) : undefined)
  const event: Omit<SourceEvent.Upsert, "checkpoint"> = {
    kind: "upsert",
    reference: `rss:${spec.id}/${hash}`,
    content: { type: "text", text },
    ...(item.publishedAt === undefined ? {} : { publishedAt: item.publishedAt }),
    ...(item.link === undefined ? {} : { permalink: item.link }),
    ...(language === undefined ? {} : { language }),
    ...(item.author === undefined
      ? {}
      : {
          author: {
            identifier: AuthorIdentifier.identifier(spec.id, item.author),
            username: item.author.name,
            ...(item.author.uri === undefined ? {} : { permalink: item.author.uri })
          }
        }),
    ...(title === "" || spec.content === "title"
      ? {}
      : spec.content === "comments"
        ? {
            post: {
              title: commentedPost(title),
              ...(item.link === undefined ? {} : { permalink: item.link.replace(/#.*$/, "") })
            }
          }
        : {
            post: {
              title,
              ...(item.link === undefined ? {} : { permalink: item.link }),
              ...(item.publishedAt === undefined ? {} : { publishedAt: item.publishedAt })
            }
          })
  }
  const contentHash = sha256(JSON.stringify([text, event.permalink, event.post?.title, event.publishedAt])).slice(0, 16)
  return { hash, contentHash, event }
}

type Polled =
  | { readonly _tag: "NotModified" }
  /** The document the feed's last poll parsed and emitted all of: nothing new, only its validators may differ. */
  | { readonly _tag: "Unchanged"; readonly validators: FeedFetcher.Validators }
  | {
      readonly _tag: "Parsed"
      readonly validators: FeedFetcher.Validators
      readonly feed: FeedParser.Feed
      readonly digest: string
      /** The document's inventory when it is the one whose backlog is being read (not parsed again). */
      readonly inventory?: Inventory | undefined
    }

/** A feed's state with the validators of its latest answer (the conditional GET sends them back). */
const withValidators = (
  items: RssCheckpoint.FeedState["items"],
  v: FeedFetcher.Validators
): RssCheckpoint.FeedState => ({
  ...(v.etag === undefined ? {} : { etag: v.etag }),
  ...(v.lastModified === undefined ? {} : { lastModified: v.lastModified }),
  items
})

/** Per-feed schedule, not persisted: a restart polls every feed at once. */
interface FeedRuntime {
  readonly spec: FeedSpec
  nextAt: number
  failures: number
  /** Items the last poll left for the next (`maxItemsPerPoll`), when it left any. */
  backlog: number | undefined
}

/**
 * The outcome of one poll of one feed: the events, the feed's new state, whether it was truncated (and how
 * many new or edited items it left for the next poll), and its items as known for the next poll's diff.
 */
export interface PollOutcome {
  readonly events: ReadonlyArray<Omit<SourceEvent.Upsert, "checkpoint">>
  readonly state: RssCheckpoint.FeedState
  readonly truncated: boolean
  readonly backlog: number
  readonly known: KnownItems
}

/** An item of the document being diffed: prepared, or known from the last poll (its event made if emitted). */
export interface Current {
  readonly hash: string
  readonly contentHash: string
  readonly event: Omit<SourceEvent.Upsert, "checkpoint"> | undefined
  readonly item: FeedParser.FeedItem
}

/**
 * The items to emit, newest first: what was just posted is analysed first and a backlog (after a restart,
 * a gap, a first poll) after it (issue 35 §7, docs/DECISIONS.md). By date when every one has a date;
 * otherwise in the document's order, which is newest first in feeds (RSS and Atom say nothing, but
 * every CMS writes them so).
 */
const newestFirst = (items: Array<Current>): Array<Current> =>
  items.every((c) => c.item.publishedAt !== undefined)
    ? items.sort((a, b) =>
        a.item.publishedAt! < b.item.publishedAt! ? 1 : a.item.publishedAt! > b.item.publishedAt! ? -1 : 0
      )
    : items

/**
 * A parsed document's items as a diff sees them, in the document's order (distinct, with text), and
 * their fingerprints for the next poll's `known`: the costly half of a diff (a fingerprint per item,
 * HTML to text and two SHA-256 for each one not known). Made once per document: the turns of a
 * backlog over the same document select from the same inventory.
 */
export interface Inventory {
  readonly current: ReadonlyArray<Current>
  readonly known: KnownItems
}

/**
 * Diffs a parsed document against what was seen: new and edited items (newest first, at most
 * `maxItems`: the newest), and the bounded new state. `options.known` is the last poll's {@link PollOutcome.known} of
 * the same feed: items it fingerprinted are not prepared again unless emitted. Pure; exported for tests
 * and the benchmark.
 */
export const diff = (
  spec: FeedSpec,
  feed: FeedParser.Feed,
  previous: RssCheckpoint.FeedState,
  validators: FeedFetcher.Validators,
  options: { readonly maxItems: number; readonly retain: number; readonly known?: KnownItems | undefined }
): PollOutcome => select(spec, feed, inventory(spec, feed, options.known), previous, validators, options)

/** The {@link Inventory} of a parsed document; `known` as in {@link diff}. Pure. */
export const inventory = (spec: FeedSpec, feed: FeedParser.Feed, lastKnown?: KnownItems | undefined): Inventory => {
  const current: Array<Current> = []
  const inFeed = new Set<string>()
  const known = new Map<string, { readonly hash: string; readonly contentHash: string } | null>()
  for (const item of feed.items) {
    const print = fingerprint(feed, item)
    const last = lastKnown?.get(print)
    let p: Current | Prepared | null | undefined =
      last === undefined
        ? prepare(spec, feed, item, itemKey(item))
        : last === null
          ? null
          : { ...last, event: undefined, item }
    // Known by its own key's identity: whether that collides depends on the other items, checked at every poll.
    known.set(print, p == null ? null : { hash: p.hash, contentHash: p.contentHash })
    // Distinct items sharing a link (no guid): tell them apart by title and date.
    if (p != null && inFeed.has(p.hash) && item.guid === undefined && item.link !== undefined) {
      p = prepare(spec, feed, item, `${itemKey(item)}|${item.title ?? ""}|${item.publishedAt ?? ""}`)
    }
    if (p == null || inFeed.has(p.hash)) continue
    inFeed.add(p.hash)
    current.push({ hash: p.hash, contentHash: p.contentHash, event: p.event, item })
  }
  return { current, known }
}

/**
 * The cheap half of {@link diff}: what to emit of a document's inventory, given what was seen (the
 * events of the emitted items known from the last poll are made now). Pure.
 */
export const select = (
  spec: FeedSpec,
  feed: FeedParser.Feed,
  { current, known }: Inventory,
  previous: RssCheckpoint.FeedState,
  validators: FeedFetcher.Validators,
  options: { readonly maxItems: number; readonly retain: number }
): PollOutcome => {
  const inFeed = new Set(current.map((p) => p.hash))
  const seen = previous.items
  const pending = newestFirst(current.filter((p) => seen[p.hash] !== p.contentHash))
  const emitted = pending.slice(0, options.maxItems).map((p) => ({
    hash: p.hash,
    contentHash: p.contentHash,
    // Known from the last poll but not emitted then (truncated, or forgotten past `retain`): made now.
    event: p.event ?? eventOf(spec, feed, p.item)
  }))
  const emittedHashes = new Set(emitted.map((p) => p.hash))
  const truncated = emitted.length < pending.length
  const items: Record<string, string> = {}
  const older = Object.keys(seen).filter((k) => !inFeed.has(k))
  const room = Math.max(0, options.retain - current.length)
  for (const k of older.slice(Math.max(0, older.length - room))) items[k] = seen[k]!
  for (const p of [...current].reverse()) {
    if (emittedHashes.has(p.hash)) items[p.hash] = p.contentHash
    else if (seen[p.hash] !== undefined) items[p.hash] = seen[p.hash]!
  }
  // When truncated, keep the old validators so the next poll gets the full document again.
  const state = withValidators(items, truncated ? previous : validators)
  return { events: emitted.map((p) => p.event), state, truncated, backlog: pending.length - emitted.length, known }
}

/** The event of an item known from the last poll: it prepared then, so it prepares the same now. */
const eventOf = (spec: FeedSpec, feed: FeedParser.Feed, item: FeedParser.FeedItem) => {
  const prepared = prepare(spec, feed, item, itemKey(item))
  if (prepared === undefined) throw new Error("an RSS item known to have text prepared without it")
  return prepared.event
}

const backoffMillis = (config: RssConfig.Config, failures: number, retryAfter: number | undefined): number => {
  // A server's Retry-After wins when longer (capped at a day).
  return Math.round(Math.max(Backoff.delayMillis(config.retry, failures), Math.min(retryAfter ?? 0, 86_400_000)))
}

/** Events handed downstream per chunk: a poll's events go out in chunks of this size. */
export const handOverChunk = 100

/**
 * Hands one poll's events over in chunks of {@link handOverChunk}, letting go of each as it goes: a
 * 20,000-item poll is not kept whole until its last event is taken (the daemon analyses it for
 * minutes), and what was handed over can be collected meanwhile. The feed's document and parsed
 * items are already gone by then: only the events are kept, and fewer and fewer of them.
 */
const handOver = <A>(events: Array<A | undefined>): Stream.Stream<A> =>
  Stream.fromIteratorSucceed(
    (function* () {
      for (let i = 0; i < events.length; i++) {
        const event = events[i] as A
        events[i] = undefined
        yield event
      }
    })(),
    handOverChunk
  )

/**
 * What a poll that found nothing to emit (a 304, the same document, nothing new or edited) hands over:
 * the source's checkpoint, which the daemon commits once what came before is handled, so that its
 * checkpoint lag counts from the last successful poll (a quiet feed is not a stuck pipeline).
 */
const caughtUp = (checkpoint: RssCheckpoint.State): SourceEvent.SourceEvent => ({ kind: "progress", checkpoint })

const invalidCheckpoint = (message: string) =>
  new ConnectorError.ConnectorError({ source: "rss", reason: "InvalidCheckpoint", retryable: false, message })

/** The connector's source over a decoded config; its sockets live in the scope. */
export const make = (
  config: RssConfig.Config
): Effect.Effect<Source.Source, ConnectorError.ConnectorError, Scope.Scope> =>
  Effect.gen(function* () {
    const feeds = specs(config)
    const ids = feeds.map((f) => f.id)
    const duplicate = ids.find((id, i) => ids.indexOf(id) !== i)
    if (duplicate !== undefined) {
      return yield* new ConnectorError.ConnectorError({
        source: "rss",
        reason: "InvalidConfig",
        retryable: false,
        message: `feeds: two feeds share the id '${duplicate}' (give each an explicit distinct id)`
      })
    }
    const fetcher = yield* FeedFetcher.make({
      timeout: config.timeout,
      maxBytes: config.maxBytes,
      maxRedirects: config.maxRedirects,
      userAgent: config.userAgent,
      headers: config.headers
    })
    const interval = Duration.toMillis(config.pollInterval)

    // `once`: one round over every feed, a failure fails the stream (Source.pollOnce); otherwise
    // endless, a failure is an error event and a retry with backoff (Source.events).
    const run = (
      from: Option.Option<unknown>,
      once: boolean
    ): Stream.Stream<SourceEvent.SourceEvent, ConnectorError.ConnectorError> =>
      Stream.unwrap(
        Effect.gen(function* () {
          const initial = Option.isSome(from)
            ? yield* RssCheckpoint.decode(from.value).pipe(
                Effect.mapError((e) => invalidCheckpoint(`not an RSS checkpoint: ${e.message}`))
              )
            : {}
          // What was seen per feed, in memory (bounded by `retain`); feeds no longer configured are forgotten.
          const seen: Record<string, RssCheckpoint.FeedState> = Object.fromEntries(
            ids.flatMap((id) => (initial[id] ? [[id, initial[id]]] : []))
          )
          let checkpoint: RssCheckpoint.State = RssCheckpoint.fromFeeds(seen)
          // Each feed's items as of its last parsed document, by fingerprint (diff's `known`).
          const known: Record<string, KnownItems> = {}
          // Each feed's last parsed document, by digest, when its diff emitted all it had (not truncated).
          const lastDocuments: Record<string, string> = {}
          // Each feed's document while its backlog is read on (truncated), by digest, parsed and inventoried:
          // a turn that fetches the same document again selects from it, where parsing and fingerprinting
          // the whole document again for each turn of `maxItemsPerPoll` stalled the event loop for 0.1-0.4 s
          // a turn with an 8,000-item feed (issue 35). A changed document (something posted meanwhile)
          // is parsed as any other.
          const backlogs: Record<
            string,
            { readonly digest: string; readonly feed: FeedParser.Feed; readonly inventory: Inventory }
          > = {}
          const runtimes: Array<FeedRuntime> = feeds.map((spec) => ({
            spec,
            nextAt: 0,
            failures: 0,
            backlog: undefined
          }))

          // A span per feed polled: the fetch, the parse and the diff of one document.
          const poll = Effect.fn("RssConnector.poll")(function* (rt: FeedRuntime) {
            const previous = seen[rt.spec.id] ?? { items: {} }
            const result = yield* fetcher.fetch(rt.spec.url, previous).pipe(
              Effect.flatMap((r): Effect.Effect<Polled, FeedParser.FeedParseError> => {
                if (r._tag === "NotModified") return Effect.succeed(r)
                // The same digest parses to the same feed. A server that sends no validators (no 304
                // possible) answers the same document poll after poll, and its parse and diff were then
                // the whole cost of a poll that found nothing (`bench/daemon-idle.ts`).
                const digest = r.digest
                if (digest === lastDocuments[rt.spec.id]) {
                  return Effect.succeed({ _tag: "Unchanged" as const, validators: r.validators })
                }
                const backlog = backlogs[rt.spec.id]
                if (backlog?.digest === digest) {
                  return Effect.succeed({ _tag: "Parsed" as const, validators: r.validators, ...backlog })
                }
                return FeedParser.parse(FeedFetcher.decodeBody(r.bytes, r.contentType), r.url).pipe(
                  Effect.map((feed) => ({ _tag: "Parsed" as const, validators: r.validators, feed, digest }))
                )
              }),
              Effect.result
            )
            const now = yield* Clock.currentTimeMillis
            if (result._tag === "Failure") {
              const error = result.failure
              const connectorError =
                error._tag === "FetchError"
                  ? FeedFetcher.toConnectorError(rt.spec.url, error)
                  : new ConnectorError.ConnectorError({
                      source: "rss",
                      reason: "InvalidResponse",
                      retryable: true,
                      message: `${ConnectorError.redactUrl(rt.spec.url)}: ${error.message}`
                    })
              if (once) return yield* connectorError
              rt.failures++
              const retryAfter = error._tag === "FetchError" ? error.retryAfterMillis : undefined
              const wait = backoffMillis(config, rt.failures, retryAfter)
              rt.nextAt = now + wait
              yield* Effect.logWarning(`rss feed ${rt.spec.id} failed, retrying in ${wait} ms`).pipe(
                Effect.annotateLogs({ feed: rt.spec.id, reason: connectorError.reason, attempt: rt.failures }),
                Effect.annotateLogs("error", connectorError.message)
              )
              const event: SourceEvent.ErrorEvent = {
                kind: "error",
                source: `rss:${rt.spec.id}`,
                reason: connectorError.reason,
                message: connectorError.message,
                attempt: rt.failures,
                retryInMillis: wait
              }
              return [event] as Array<SourceEvent.SourceEvent>
            }
            rt.failures = 0
            const fetched = result.success
            if (fetched._tag === "NotModified") {
              rt.nextAt = now + interval
              return [caughtUp(checkpoint)]
            }
            if (fetched._tag === "Unchanged") {
              // What its diff would find: nothing to emit, the same items, the answer's validators.
              rt.nextAt = now + interval
              seen[rt.spec.id] = withValidators(previous.items, fetched.validators)
              checkpoint = RssCheckpoint.fromFeeds(seen)
              return [caughtUp(checkpoint)]
            }
            const documentItems = fetched.inventory ?? inventory(rt.spec, fetched.feed, known[rt.spec.id])
            const outcome = select(rt.spec, fetched.feed, documentItems, previous, fetched.validators, {
              maxItems: config.maxItemsPerPoll,
              retain: config.retain
            })
            // A backlog cut by maxItemsPerPoll is read on at once (after the feeds already due), not
            // pollInterval later, while it shrinks: a feed whose items change at every fetch never
            // drains, and waits the interval.
            const draining = outcome.truncated && outcome.backlog < (rt.backlog ?? Number.POSITIVE_INFINITY)
            rt.backlog = outcome.truncated ? outcome.backlog : undefined
            rt.nextAt = draining ? now : now + interval
            seen[rt.spec.id] = outcome.state
            known[rt.spec.id] = outcome.known
            // A truncated poll left items for the next: the same document must be diffed again then.
            if (outcome.truncated) {
              delete lastDocuments[rt.spec.id]
              backlogs[rt.spec.id] = { digest: fetched.digest, feed: fetched.feed, inventory: documentItems }
            } else {
              lastDocuments[rt.spec.id] = fetched.digest
              delete backlogs[rt.spec.id]
            }
            const before = checkpoint
            const after = RssCheckpoint.fromFeeds(seen)
            checkpoint = after
            if (outcome.events.length === 0) return [caughtUp(after)]
            // The checkpoint is set on the poll's own event objects in place: a copy of each is a few MB
            // more at the poll's peak (20,000 items), when the parsed document is still about.
            const events = outcome.events as Array<Omit<SourceEvent.Upsert, "checkpoint"> & { checkpoint?: unknown }>
            const last = events.length - 1
            for (let i = 0; i <= last; i++) events[i]!.checkpoint = i === last ? after : before
            return events as Array<SourceEvent.SourceEvent>
          })

          const step = Effect.gen(function* () {
            let next = runtimes[0]!
            for (const rt of runtimes) if (rt.nextAt < next.nextAt) next = rt
            const now = yield* Clock.currentTimeMillis
            if (next.nextAt > now) yield* Effect.sleep(Duration.millis(next.nextAt - now))
            return yield* poll(next)
          })

          if (once) return Stream.fromIterable(runtimes).pipe(Stream.mapEffect(poll), Stream.flatMap(handOver))
          return Stream.paginate(0, () => Effect.map(step, (events) => [[events], Option.some(0)] as const)).pipe(
            Stream.flatMap(handOver)
          )
        })
      )

    return { events: (from) => run(from, false), pollOnce: (from) => run(from, true) }
  })

/** The connector definition, found by the registry as `connector` (type `rss`). */
export const connector: Connector.Connector<RssConfig.Config> = Connector.make({
  type: "rss",
  configSchema: RssConfig.Config,
  capabilities: { actions: [], duplicates: "possible", contentTypes: ["text"] },
  make
})

/** A running RSS source as a service, for programs that use the connector directly (not via the daemon). */
export class RssSource extends Context.Service<RssSource, Source.Source>()("@warden/connector-rss/RssSource") {}

/** Provides {@link RssSource} from a config as a user writes it (durations as strings, defaults optional). */
export const layer = (options: RssConfig.ConfigInput): Layer.Layer<RssSource, ConnectorError.ConnectorError> =>
  Layer.effect(RssSource, Effect.flatMap(Connector.decodeConfig(connector, options), make))

/**
 * Provides {@link RssSource} from an Effect `Config`, e.g. `Config.schema(RssConfig.Config, "rss")`
 * read from the environment or a ConfigProvider.
 */
export const layerConfig = (
  config: EffectConfig.Config<RssConfig.Config>
): Layer.Layer<RssSource, ConnectorError.ConnectorError | EffectConfig.ConfigError> =>
  Layer.effect(RssSource, Effect.flatMap(config, make))
