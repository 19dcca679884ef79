/**
 * The conformance kit: checks any connector against the SDK's contract, driving a fake upstream.
 *
 * Each check is an Effect that fails with a {@link ConformanceFailure} naming what broke; run them one
 * by one (`Conformance.checks.resume(options)`), all at once ({@link runAll}) or register them as vitest
 * tests with `describeConformance` from `@warden/connector/testing`.
 *
 * @since 0.1.0
 */
import { Cause, Duration, Effect, Exit, Option, Schema, type Scope, Stream } from "effect"
import * as Checkpoint from "../Checkpoint.ts"
import { type Connector, makeSource } from "../Connector.ts"
import { ConnectorError } from "../ConnectorError.ts"
import * as SourceEvent from "../SourceEvent.ts"
import * as Handles from "./Handles.ts"

/**
 * Controls the connector's fake upstream (a local HTTP server, a fake gateway...).
 * - `publish(n)`: make `n` new items available (each must become an item event with a new reference).
 * - `stop`: take the upstream down (refuse connections or answer 503). `start`: bring it back.
 * - `edit(i)`, `remove(i)`: change or delete the `i`-th item published (1-based); the source must emit
 *   an upsert with the same reference and the new content, or a `delete` (`editsAndDeletes`).
 * - `actionsDone`: what the platform executed of `Source.act` (`actions`).
 * The last three are optional: a source that cannot see edits or deletes (either), or takes no actions,
 * leaves them out and those checks only test what it can.
 */
export interface UpstreamDriver {
  readonly publish: (count: number) => Effect.Effect<void>
  readonly stop: Effect.Effect<void>
  readonly start: Effect.Effect<void>
  readonly edit?: ((index: number) => Effect.Effect<void>) | undefined
  readonly remove?: ((index: number) => Effect.Effect<void>) | undefined
  readonly actionsDone?: Effect.Effect<ReadonlyArray<{ readonly kind: string; readonly reference: string }>> | undefined
}

/** A fresh upstream and the (encoded, as a user writes it) config pointing the connector at it. */
export interface Harness {
  readonly config: unknown
  readonly upstream: UpstreamDriver
}

/** What the kit needs. `setup` runs once per check, in the check's scope (close the server there). */
export interface Options {
  readonly connector: Connector
  readonly setup: Effect.Effect<Harness, unknown, Scope.Scope>
  /** How long to wait for expected events: cover a few poll intervals (default 10 seconds). */
  readonly timeout?: Duration.Input | undefined
  /** How long to keep watching for unexpected duplicates after the expected events (default 1 second). */
  readonly settle?: Duration.Input | undefined
}

/** A conformance check failed; `check` names it, `message` says what was expected and seen. */
export class ConformanceFailure extends Schema.TaggedError<ConformanceFailure>()("ConformanceFailure", {
  check: Schema.String,
  message: Schema.String
}) {}

const referenceOf = (event: SourceEvent.SourceEvent): string | undefined =>
  SourceEvent.isItemEvent(event) ? event.reference : undefined

/** An event with a checkpoint, for failure messages: its reference, or that it is a `progress` event. */
const nameOf = (event: SourceEvent.Positioned): string =>
  SourceEvent.isItemEvent(event) ? event.reference : "a progress event"

const distinctReferences = (events: ReadonlyArray<SourceEvent.SourceEvent>): Array<string> => [
  ...new Set(events.flatMap((e) => referenceOf(e) ?? []))
]

interface Collected {
  readonly events: ReadonlyArray<SourceEvent.SourceEvent>
  readonly exit: Exit.Exit<unknown, ConnectorError>
  readonly timedOut: boolean
}

/** Runs `stream` until `done(events so far)` holds, the stream ends, or `timeout` passes. */
const collect = (
  stream: Stream.Stream<SourceEvent.SourceEvent, ConnectorError>,
  done: (events: ReadonlyArray<SourceEvent.SourceEvent>) => boolean,
  timeout: Duration.Input,
  onStarted: Effect.Effect<void> = Effect.void
): Effect.Effect<Collected> =>
  Effect.gen(function* () {
    const events: Array<SourceEvent.SourceEvent> = []
    let timedOut = false
    const run = stream.pipe(
      Stream.tap((event) => Effect.sync(() => events.push(event))),
      Stream.takeUntil(() => done(events)),
      Stream.runDrain
    )
    const exit = yield* Effect.gen(function* () {
      // Let the stream begin (first poll / connect), then act on the upstream.
      yield* Effect.forkChild(Effect.andThen(Effect.sleep("50 millis"), onStarted))
      return yield* run
    }).pipe(
      Effect.timeoutOption(timeout),
      Effect.tap((o) =>
        Effect.sync(() => {
          timedOut = Option.isNone(o)
        })
      ),
      Effect.exit
    )
    return { events, exit, timedOut }
  })

const fail = (check: string, message: string) => Effect.fail(new ConformanceFailure({ check, message }))

const describeExit = (exit: Exit.Exit<unknown, unknown>): string =>
  Exit.isSuccess(exit) ? "the stream ended" : Cause.pretty(exit.cause).split("\n")[0]!

const settings = (options: Options) => ({
  timeout: options.timeout ?? "10 seconds",
  settle: options.settle ?? "1 second"
})

const startSource = (options: Options, harness: Harness, check: string) =>
  makeSource(options.connector, harness.config).pipe(
    Effect.mapError((e) => new ConformanceFailure({ check, message: `make failed: ${e.message}` }))
  )

/** Runs a fresh source from `from` in its own scope, closed before returning. */
const runOnce = (
  options: Options,
  harness: Harness,
  check: string,
  from: Option.Option<Checkpoint.Checkpoint>,
  done: (events: ReadonlyArray<SourceEvent.SourceEvent>) => boolean,
  onStarted?: Effect.Effect<void>
) =>
  Effect.scoped(
    Effect.gen(function* () {
      const source = yield* startSource(options, harness, check)
      return yield* collect(source.events(from), done, settings(options).timeout, onStarted)
    })
  )

/** Why a run ended: for failure messages. */
const ending = (collected: Collected): string => (collected.timedOut ? "timed out" : describeExit(collected.exit))

const expectItems = (check: string, collected: Collected, count: number) => {
  const refs = distinctReferences(collected.events)
  return refs.length >= count
    ? Effect.succeed(refs)
    : fail(check, `expected ${count} item events, got ${refs.length} (${ending(collected)})`)
}

/** A first run, from no checkpoint: publishes `count` items once the source started and waits for them. */
const firstRun = (options: Options, harness: Harness, check: string, count: number) =>
  Effect.gen(function* () {
    const collected = yield* runOnce(
      options,
      harness,
      check,
      Option.none(),
      (es) => distinctReferences(es).length >= count,
      harness.upstream.publish(count)
    )
    const seen = yield* expectItems(check, collected, count)
    return { ...collected, seen }
  })

/**
 * A run resumed from `from`, until `count` items not in `seen` came (`onStarted` publishes them);
 * fails with `problem` and the count when fewer did.
 */
const resumedRun = (
  options: Options,
  harness: Harness,
  check: string,
  from: Checkpoint.Checkpoint,
  seen: ReadonlyArray<string>,
  count: number,
  onStarted: Effect.Effect<void>,
  problem: string
) =>
  Effect.gen(function* () {
    const isNew = (r: string) => !seen.includes(r)
    const collected = yield* runOnce(
      options,
      harness,
      check,
      Option.some(from),
      (es) => distinctReferences(es).filter(isNew).length >= count,
      onStarted
    )
    const fresh = distinctReferences(collected.events).filter(isNew)
    if (fresh.length < count) {
      return yield* fail(check, `${problem}expected ${count} new items, got ${fresh.length} (${ending(collected)})`)
    }
    return collected
  })

/** Every event decodes with the SourceEvent schema; references are non-empty and at most 256 characters. */
export const validEvents = (options: Options): Effect.Effect<void, ConformanceFailure> =>
  Effect.scoped(
    Effect.gen(function* () {
      const check = "validEvents"
      const harness = yield* setupHarness(options, check)
      const collected = yield* firstRun(options, harness, check, 3)
      for (const event of collected.events) {
        const exit = SourceEvent.decodeUnknownExit(event)
        if (Exit.isFailure(exit)) {
          return yield* fail(check, `invalid event ${JSON.stringify(event)}: ${Cause.pretty(exit.cause)}`)
        }
        if (SourceEvent.isPositioned(event)) {
          const roundTrip = yield* Effect.exit(Checkpoint.roundTrip(event.checkpoint))
          if (Exit.isFailure(roundTrip)) return yield* fail(check, `checkpoint of ${nameOf(event)} is not JSON`)
        }
      }
    })
  )

/** Two runs from the start over the same upstream give the same references. */
export const stableReferences = (options: Options): Effect.Effect<void, ConformanceFailure> =>
  Effect.scoped(
    Effect.gen(function* () {
      const check = "stableReferences"
      const harness = yield* setupHarness(options, check)
      const a = (yield* firstRun(options, harness, check, 3)).seen
      const second = yield* runOnce(options, harness, check, Option.none(), (es) => distinctReferences(es).length >= 3)
      const b = yield* expectItems(check, second, 3)
      const missing = a.filter((r) => !b.includes(r))
      if (missing.length > 0) {
        return yield* fail(
          check,
          `references changed between runs: ${missing.join(", ")} not seen again in ${b.join(", ")}`
        )
      }
    })
  )

/**
 * Resume from the last checkpoint of a first run (round-tripped through JSON text, as the daemon stores
 * it): items published while stopped and after restart all arrive (no gap); items of the first run
 * come again only when the connector declares `duplicates: "possible"`.
 */
export const resume = (options: Options): Effect.Effect<void, ConformanceFailure> =>
  Effect.scoped(
    Effect.gen(function* () {
      const check = "resume"
      const harness = yield* setupHarness(options, check)
      const first = yield* firstRun(options, harness, check, 3)
      const { seen } = first
      const last = first.events.filter(SourceEvent.isPositioned).at(-1)!
      const checkpoint = yield* Checkpoint.roundTrip(last.checkpoint).pipe(
        Effect.mapError(() => new ConformanceFailure({ check, message: "checkpoint is not JSON" }))
      )
      // One item arrives while no source runs, one after the restart.
      yield* harness.upstream.publish(1)
      const isNew = (r: string) => !seen.includes(r)
      const second = yield* resumedRun(
        options,
        harness,
        check,
        checkpoint,
        seen,
        2,
        harness.upstream.publish(1),
        "gap after resume: "
      )
      if (options.connector.capabilities.duplicates === "never") {
        // Keep watching a little: a duplicate may come after the new items.
        const more = yield* runOnce(
          options,
          harness,
          check,
          Option.some(checkpointAfter(second.events) ?? checkpoint),
          () => false
        ).pipe(Effect.timeoutOption(settings(options).settle))
        const repeated = [
          ...distinctReferences(second.events).filter((r) => !isNew(r)),
          ...Option.match(more, { onNone: () => [], onSome: (c) => distinctReferences(c.events) })
        ]
        if (repeated.length > 0) {
          return yield* fail(check, `connector declares duplicates: "never" but repeated ${repeated.join(", ")}`)
        }
      }
    })
  )

/**
 * Every event that names an author names them by `author.identifier`: the platform's user id, or a
 * derivation the connector documents (an RSS author's URI, email or feed-and-name). The daemon keeps an
 * author's history and strikes by it, and `warden erase --author` finds their items by it: an author
 * named without one cannot be found again. A driver whose items name no author leaves nothing to
 * check, and the check says so.
 */
export const authorIdentifiers = (options: Options): Effect.Effect<void, ConformanceFailure> =>
  Effect.scoped(
    Effect.gen(function* () {
      const check = "authorIdentifiers"
      const harness = yield* setupHarness(options, check)
      const first = yield* firstRun(options, harness, check, 3)
      const named = upserts(first.events).filter((e) => e.author !== undefined)
      if (named.length === 0) return yield* notRun(check, "no event named an author (publish items with authors)")
      const nameless = named.find((e) => (e.author!.identifier ?? "").trim() === "")
      if (nameless !== undefined) {
        return yield* fail(
          check,
          `${nameless.reference} names its author ${JSON.stringify(nameless.author!.username)} without an author.identifier (the platform's user id, or a documented derivation: docs/connectors.md, "Authors")`
        )
      }
    })
  )

/** Items published in the second run of {@link boundedCheckpoint}. */
const growthItems = 40
/** What those items may add to the checkpoint: a cursor's digits, not an entry per item. */
const growthAllowance = 256

/**
 * The checkpoint is small and does not grow with the feed's history (see `Checkpoint`'s contract):
 * every event's checkpoint is at most `Checkpoint.maxBytes` as JSON text, and after 40 more items the
 * last checkpoint is at most 256 bytes larger than after the first 3. A checkpoint that keeps a map of
 * the items seen (dedupe state, the daemon's job) fails here.
 */
export const boundedCheckpoint = (options: Options): Effect.Effect<void, ConformanceFailure> =>
  Effect.scoped(
    Effect.gen(function* () {
      const check = "boundedCheckpoint"
      const harness = yield* setupHarness(options, check)
      const first = yield* firstRun(options, harness, check, 3)
      const small = checkpointAfter(first.events)!
      const second = yield* resumedRun(
        options,
        harness,
        check,
        small,
        first.seen,
        growthItems,
        harness.upstream.publish(growthItems),
        ""
      )
      for (const event of [...first.events, ...second.events]) {
        if (!SourceEvent.isPositioned(event)) continue
        const size = Checkpoint.byteLength(event.checkpoint)
        if (size > Checkpoint.maxBytes) {
          return yield* fail(
            check,
            `the checkpoint of ${nameOf(event)} is ${size} bytes, above the contract's ${Checkpoint.maxBytes}`
          )
        }
      }
      const before = Checkpoint.byteLength(small)
      const after = Checkpoint.byteLength(checkpointAfter(second.events)!)
      if (after > before + growthAllowance) {
        return yield* fail(
          check,
          `the checkpoint grows with the items seen: ${before} bytes after 3 items, ${after} after ${growthItems} more (keep cursors and validators in it; dedupe is the daemon's job)`
        )
      }
    })
  )

/** The last checkpoint among `events`: an item event's or a `progress` event's (the daemon commits both). */
const checkpointAfter = (events: ReadonlyArray<SourceEvent.SourceEvent>): Checkpoint.Checkpoint | undefined =>
  events.filter(SourceEvent.isPositioned).at(-1)?.checkpoint

/**
 * Closing the source's scope leaves no timer, socket or handle behind: every handle created while the
 * source ran is gone (async_hooks), and `process.getActiveResourcesInfo()` shows nothing new.
 */
export const cleanShutdown = (options: Options): Effect.Effect<void, ConformanceFailure> =>
  Effect.scoped(
    Effect.gen(function* () {
      const check = "cleanShutdown"
      const harness = yield* setupHarness(options, check)
      // Let the harness settle (server listening) before taking the baseline.
      yield* Effect.sleep("50 millis")
      const tracker = yield* Handles.track
      yield* firstRun(options, harness, check, 1)
      const left = yield* tracker.left
      if (left.length > 0) {
        return yield* fail(check, `resources left after the scope closed: ${left.join(", ")}`)
      }
    })
  )

/**
 * With the upstream down, the source reports it (an `error` event, or a typed ConnectorError failure,
 * never a defect or a silent end); error events count attempts up; once the upstream is back, items flow again.
 */
export const upstreamDown = (options: Options): Effect.Effect<void, ConformanceFailure> =>
  Effect.scoped(
    Effect.gen(function* () {
      const check = "upstreamDown"
      const harness = yield* setupHarness(options, check)
      yield* harness.upstream.stop
      const source = yield* startSource(options, harness, check)
      const events: Array<SourceEvent.SourceEvent> = []
      const errors = () => events.filter(SourceEvent.isErrorEvent)
      const isItem = (e: SourceEvent.SourceEvent) => e.kind === "upsert"
      let phase: "down" | "up" = "down"
      const stream = source.events(Option.none()).pipe(
        Stream.tap((event) =>
          Effect.gen(function* () {
            events.push(event)
            if (phase === "down" && errors().length >= 2) {
              phase = "up"
              yield* harness.upstream.start
              yield* harness.upstream.publish(1)
            }
          })
        ),
        Stream.takeUntil((event) => phase === "up" && isItem(event)),
        Stream.runDrain
      )
      const result = yield* stream.pipe(Effect.timeoutOption(settings(options).timeout), Effect.exit)
      if (Exit.isFailure(result)) {
        if (Cause.hasDies(result.cause))
          return yield* fail(check, `defect while upstream down: ${Cause.pretty(result.cause)}`)
        const error = Cause.findErrorOption(result.cause)
        if (Option.isSome(error) && error.value instanceof ConnectorError) return
        return yield* fail(check, `unexpected failure: ${Cause.pretty(result.cause)}`)
      }
      if (Option.isNone(result.value)) {
        return yield* fail(
          check,
          phase === "down"
            ? `no error event or ConnectorError within the timeout while upstream was down (saw ${events.length} events)`
            : "no item after the upstream came back"
        )
      }
      const [a, b] = errors()
      if (a === undefined || b === undefined || b.attempt <= a.attempt) {
        return yield* fail(check, "consecutive error events must count attempts up")
      }
      // A poll that succeeds once the upstream is back may find nothing yet: `progress` is expected too.
      if (events.some((e) => e.kind !== "error" && e.kind !== "upsert" && e.kind !== "progress")) {
        return yield* fail(check, "unexpected event kinds while upstream was down")
      }
    })
  )

/**
 * Runs a fresh source from `from` in the background, collecting its events: `waitUntil(cond)` waits
 * for a condition on them (false at the timeout), `settle` keeps watching a little longer. The source
 * stops with the enclosing scope (or `stop`).
 */
const observe = (options: Options, harness: Harness, check: string, from: Option.Option<Checkpoint.Checkpoint>) =>
  Effect.gen(function* () {
    const source = yield* startSource(options, harness, check)
    const events: Array<SourceEvent.SourceEvent> = []
    const fiber = yield* source.events(from).pipe(
      Stream.runForEach((event) => Effect.sync(() => events.push(event))),
      Effect.forkScoped
    )
    const { timeout, settle } = settings(options)
    const deadline = Date.now() + durationMillis(timeout)
    return {
      events,
      waitUntil: (cond: (events: ReadonlyArray<SourceEvent.SourceEvent>) => boolean) =>
        Effect.gen(function* () {
          while (!cond(events)) {
            if (Date.now() >= deadline || fiber.pollUnsafe() !== undefined) return cond(events)
            yield* Effect.sleep("20 millis")
          }
          return true
        }),
      settle: Effect.sleep(settle)
    }
  })

/** {@link observe} from no checkpoint, once `count` items came (fails naming how many did). */
const observeItems = (options: Options, harness: Harness, check: string, count: number) =>
  Effect.gen(function* () {
    const run = yield* observe(options, harness, check, Option.none())
    if (!(yield* run.waitUntil((es) => distinctReferences(es).length >= count))) {
      return yield* fail(check, `expected ${count} item events, got ${distinctReferences(run.events).length}`)
    }
    return run
  })

const upserts = (events: ReadonlyArray<SourceEvent.SourceEvent>) =>
  events.filter((e): e is SourceEvent.Upsert => e.kind === "upsert")

/**
 * A connector declaring `duplicates: "never"` emits no item twice in one run: the same reference with
 * the same content is a duplicate (an edit, new content, is not). `"possible"` connectors pass.
 */
export const noDuplicates = (options: Options): Effect.Effect<void, ConformanceFailure> =>
  Effect.scoped(
    Effect.gen(function* () {
      const check = "noDuplicates"
      if (options.connector.capabilities.duplicates === "possible") return
      const harness = yield* setupHarness(options, check)
      yield* harness.upstream.publish(3)
      const run = yield* observeItems(options, harness, check, 3)
      yield* run.settle
      const seen = new Set<string>()
      for (const event of upserts(run.events)) {
        const key = `${event.reference}\u0000${JSON.stringify(event.content)}`
        if (seen.has(key)) {
          return yield* fail(
            check,
            `connector declares duplicates: "never" but emitted ${event.reference} twice with the same content`
          )
        }
        seen.add(key)
      }
    })
  )

/**
 * Checkpoints only move forward: resuming from a later event's checkpoint never reads an item again
 * that resuming from an earlier one does not (the daemon commits them in stream order; a checkpoint
 * that goes back makes a restart read old items again, or skip new ones).
 */
export const checkpointsForward = (options: Options): Effect.Effect<void, ConformanceFailure> =>
  Effect.scoped(
    Effect.gen(function* () {
      const check = "checkpointsForward"
      const harness = yield* setupHarness(options, check)
      yield* harness.upstream.publish(4)
      // The first run stops before the resumes, as the daemon runs one instance of a source at a time:
      // instances of a source reading a queue (a durable consumer) share its messages, and a resumed run
      // would not get those the first one still holds.
      const items = yield* Effect.scoped(
        Effect.map(observeItems(options, harness, check, 4), (first) =>
          first.events.filter(SourceEvent.isItemEvent).slice(0, 4)
        )
      )
      const firstReads = distinctReferences(items)
      let previous: { reference: string; reads: ReadonlyArray<string> } | undefined
      for (const [index, event] of items.entries()) {
        const from = yield* Checkpoint.roundTrip(event.checkpoint).pipe(
          Effect.mapError(
            () => new ConformanceFailure({ check, message: `checkpoint of ${event.reference} is not JSON` })
          )
        )
        // Resuming from this checkpoint must read the items the first run saw after it. Wait for them
        // (up to the timeout) before settling: a fixed settle alone let a slow poll on a loaded machine
        // read nothing from an earlier checkpoint, and a correct connector then looked as if a later
        // checkpoint went backwards.
        const later = firstReads.slice(firstReads.indexOf(event.reference) + 1)
        const reads = yield* Effect.scoped(
          Effect.gen(function* () {
            const run = yield* observe(options, harness, check, Option.some(from))
            const readLater = yield* run.waitUntil((es) => {
              const seen = distinctReferences(es)
              return later.every((r) => seen.includes(r))
            })
            if (!readLater) {
              const seen = distinctReferences(run.events)
              return yield* fail(
                check,
                `resuming from the checkpoint of ${event.reference} did not read ${later.filter((r) => !seen.includes(r)).join(", ")}, emitted after it (item ${index + 1} of ${items.length})`
              )
            }
            yield* run.settle
            return distinctReferences(run.events)
          })
        )
        if (previous !== undefined) {
          const again = reads.filter((r) => !previous!.reads.includes(r))
          if (again.length > 0) {
            return yield* fail(
              check,
              `the checkpoint of ${event.reference} goes backwards: resuming from it reads ${again.join(", ")}, which resuming from the checkpoint of ${previous.reference} (emitted before it) does not`
            )
          }
        }
        previous = { reference: event.reference, reads }
      }
    })
  )

/**
 * An item edited upstream comes again as an upsert with the same reference and the new content; an
 * item deleted upstream comes as a `delete` with its reference (not an upsert with empty content).
 * Each half needs its control in the driver (`edit`, `remove`): a platform that cannot show deletes (a
 * feed drops old items; YouTube's Data API lists no deletions) gives `edit` only. A missing control is
 * logged as a warning saying that half did not run, so it is seen rather than taken for a pass.
 */
export const editsAndDeletes = (options: Options): Effect.Effect<void, ConformanceFailure> =>
  Effect.scoped(
    Effect.gen(function* () {
      const check = "editsAndDeletes"
      const harness = yield* setupHarness(options, check)
      const { edit, remove } = harness.upstream
      if (edit === undefined && remove === undefined) return yield* notRun(check, "the driver has no edit and remove")
      if (edit === undefined) yield* notRun(check, "the driver has no edit (only deletes were checked)")
      if (remove === undefined) yield* notRun(check, "the driver has no remove (only edits were checked)")
      // One item at a time, so that the first reference seen is item 1's: a source may emit what one
      // read found newest first (RSS does), and two items published at once would come as 2, 1.
      yield* harness.upstream.publish(1)
      const run = yield* observeItems(options, harness, check, 1)
      yield* harness.upstream.publish(1)
      if (!(yield* run.waitUntil((es) => distinctReferences(es).length >= 2))) {
        return yield* fail(check, `expected 2 item events, got ${distinctReferences(run.events).length}`)
      }
      const [edited, deleted] = distinctReferences(run.events)
      const before = upserts(run.events).find((e) => e.reference === edited)
      const seenBefore = run.events.length
      if (edit !== undefined) yield* edit(1)
      if (remove !== undefined) yield* remove(2)
      const later = () => run.events.slice(seenBefore)
      const done = yield* run.waitUntil(
        () =>
          (edit === undefined || upserts(later()).some((e) => e.reference === edited)) &&
          (remove === undefined || later().some((e) => SourceEvent.isItemEvent(e) && e.reference === deleted))
      )
      if (edit !== undefined) {
        const editEvent = upserts(later()).find((e) => e.reference === edited)
        if (editEvent === undefined)
          return yield* fail(check, `item 1 (${edited}) was edited upstream: no upsert with its reference came`)
        if (JSON.stringify(editEvent.content) === JSON.stringify(before?.content)) {
          return yield* fail(check, `item 1 (${edited}) was edited upstream: its upsert came with the old content`)
        }
      }
      if (remove !== undefined) {
        const gone = later().find((e) => SourceEvent.isItemEvent(e) && e.reference === deleted)
        if (!done || gone === undefined)
          return yield* fail(check, `item 2 (${deleted}) was deleted upstream: no event with its reference came`)
        if (gone.kind !== "delete") {
          const what =
            gone.kind === "upsert" ? `an upsert with content ${JSON.stringify(gone.content)}` : `a ${gone.kind}`
          return yield* fail(check, `item 2 (${deleted}) was deleted upstream: expected a delete event, got ${what}`)
        }
      }
    })
  )

/**
 * A connector declaring action kinds has `act` on its source; given the driver's `actionsDone`, the
 * first declared kind is executed once on a published item, and asking again is not an error (the
 * daemon retries: `act` must be idempotent, `alreadyDone` is the answer for a repeat).
 */
export const actions = (options: Options): Effect.Effect<void, ConformanceFailure> =>
  Effect.scoped(
    Effect.gen(function* () {
      const check = "actions"
      const declared = options.connector.capabilities.actions
      if (declared.length === 0) return
      const harness = yield* setupHarness(options, check)
      const source = yield* startSource(options, harness, check)
      if (source.act === undefined) {
        return yield* fail(check, `declares actions [${declared.join(", ")}] but its source has no act`)
      }
      const done = harness.upstream.actionsDone
      if (done === undefined) return yield* notRun(check, "the driver has no actionsDone (only `act` was checked)")
      yield* harness.upstream.publish(1)
      const run = yield* observe(options, harness, check, Option.none())
      if (!(yield* run.waitUntil((es) => distinctReferences(es).length >= 1))) {
        return yield* fail(check, "expected an item event to act on")
      }
      const reference = distinctReferences(run.events)[0]!
      const kind = declared[0]!
      for (const attempt of [1, 2]) {
        const result = yield* Effect.exit(source.act({ kind, reference }))
        if (Exit.isFailure(result)) {
          return yield* fail(
            check,
            `act ${kind} on ${reference} (attempt ${attempt}) failed: ${Cause.pretty(result.cause).split("\n")[0]}`
          )
        }
      }
      const executed = (yield* done).filter((a) => a.kind === kind && a.reference === reference)
      if (executed.length !== 1) {
        return yield* fail(
          check,
          `act ${kind} on ${reference} twice: the platform executed it ${executed.length} times (expected once)`
        )
      }
    })
  )

/**
 * A poll-based source's `pollOnce` (when it has one) reads the upstream once and ends by itself, with
 * the items published before it; with the upstream down it fails with a ConnectorError (no `error`
 * event, no defect, no wait). A source without `pollOnce` passes.
 */
export const pollOnce = (options: Options): Effect.Effect<void, ConformanceFailure> =>
  Effect.scoped(
    Effect.gen(function* () {
      const check = "pollOnce"
      const harness = yield* setupHarness(options, check)
      yield* harness.upstream.publish(2)
      const source = yield* startSource(options, harness, check)
      if (source.pollOnce === undefined) return
      const up = yield* collect(source.pollOnce(Option.none()), () => false, settings(options).timeout)
      if (up.timedOut) return yield* fail(check, "pollOnce did not end by itself within the timeout")
      if (Exit.isFailure(up.exit)) return yield* fail(check, `pollOnce failed: ${describeExit(up.exit)}`)
      if (up.events.some(SourceEvent.isErrorEvent))
        return yield* fail(check, "pollOnce emitted an error event (it must fail with the ConnectorError instead)")
      yield* expectItems(check, up, 2)
      yield* harness.upstream.stop
      const down = yield* collect(source.pollOnce(Option.none()), () => false, settings(options).timeout)
      yield* harness.upstream.start
      if (down.timedOut) return yield* fail(check, "with the upstream down, pollOnce did not end within the timeout")
      const error = Exit.isFailure(down.exit) ? Cause.findErrorOption(down.exit.cause) : Option.none()
      if (Option.isNone(error) || !(error.value instanceof ConnectorError))
        return yield* fail(
          check,
          `with the upstream down, pollOnce must fail with a ConnectorError: ${describeExit(down.exit)}`
        )
    })
  )

/** A check with nothing to drive passes, and says so where the test output shows it. */
const notRun = (check: string, why: string) => Effect.logWarning(`conformance: ${check} did not run: ${why}`)

const setupHarness = (options: Options, check: string) =>
  options.setup.pipe(Effect.mapError((e) => new ConformanceFailure({ check, message: `setup failed: ${String(e)}` })))

/** All checks by name. */
export const checks = {
  validEvents,
  stableReferences,
  resume,
  noDuplicates,
  checkpointsForward,
  editsAndDeletes,
  actions,
  boundedCheckpoint,
  authorIdentifiers,
  cleanShutdown,
  upstreamDown,
  pollOnce
} as const

/** Runs every check in turn; fails with the first failure. */
export const runAll = (options: Options): Effect.Effect<void, ConformanceFailure> =>
  Effect.forEach(Object.values(checks), (run) => run(options), { discard: true })

/** @internal used by the vitest registration */
export const durationMillis = (input: Duration.Input): number => Duration.toMillis(Duration.fromInputUnsafe(input))
