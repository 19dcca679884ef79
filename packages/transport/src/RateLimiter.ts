/**
 * The client-side rate limiter: one token bucket per endpoint, shared by every fiber that uses the
 * same layer (build the layer once per process). Callers queue (FIFO); the head of the queue takes a
 * token when the bucket has one *at the moment it goes*, then hands the head on. Tokens are not
 * reserved ahead of time: reservations made before a stall of the event loop all fall due during it
 * and leave together after it, more at once than the bucket's size (seen under CI load: five calls
 * in one millisecond after a 234 ms stall, with the server's bucket full and wasting refill).
 *
 * It learns the organisation's quota. The spec publishes no numbers, but every 429 names the quota
 * and its value (`quotaError.violations[].quotaValue`), so:
 * - an endpoint with no configured rate starts in slow start (as TCP does): at most `INITIAL_WINDOW`
 *   calls out at once, one more for each call accepted while others wait (the window doubles per round
 *   trip), and at its first 429 it takes the named value (less the margin) as its rate. Unlimited, a
 *   backlog of thousands went out in the first second (issue 35: ~1,000 requests, 920 answered 429,
 *   against 80/s); the window bounds what is out when the first 429 comes back to about twice what the
 *   server accepted in a round trip;
 * - a configured rate above a named value is lowered to it (logged once);
 * - a 429 while already at or under the named value means the quota is shared (another process, another
 *   runner): the rate is cut multiplicatively;
 * - with a backlog it probes upward again: after a lower named value, back to the highest value that
 *   held before (after 2 s, then 4, 8 s while the server keeps refusing); after a "shared" cut, the
 *   same once (a lone 429 under load, say), but after a second one within 30 s in steps (half the
 *   way back to the level refused, at least 2% of the quota, every 2 s: jumping straight back to the
 *   level refused is refused again while the other client still sends); and in
 *   small steps above the highest value that held (+5% every 15 s, spaced out to 2 minutes while
 *   they are refused), so a quota that was lowered for a while, or raised, is found without a restart.
 *
 * Every call that goes takes a `Ticket`: when it went and the rate's epoch then. The epoch moves when
 * the rate is learnt or cut, so a 429 for a call sent before (it was sent at the old rate, or while
 * the server's bucket was still empty from it) counts but cuts nothing: the change already answered
 * it. Without that, a backlog's refusals in flight at the first 429 cut the rate again and again.
 *
 * A learnt rate is enforced with a bucket of at least two tokens. A bucket of one loses, for good, every
 * millisecond the limiter's timer wakes late: on a loaded event loop that was 0.1-0.4 s per second, and
 * a daemon learning Q = 80/s sent 0.82-0.93 Q with 70-100 calls waiting (issue 19). Each further token
 * keeps one more interval of lateness, so the next calls go that much sooner. The server's burst is not
 * named, so it is read from the answers of the calls sent before the first 429: k of them accepted
 * between the first one's send and the last one's answer, W ms apart, prove a bucket of at least
 * k - Q * W (a token bucket accepts at most its size plus Q * W in W); the limiter keeps one token
 * less. Without such proof (a distant server: W is long) it assumes three and keeps two.
 *
 * A server whose bucket is smaller than that is told by its answers to our bursts, not to paced
 * calls: a burst from a full bucket (the server's is full then too, unless the quota is shared) is a
 * `Run`, and a 429 for one of its calls, at or under the named rate, says the server takes fewer at
 * once than we sent. The bucket backs off by one and the rate stays; the size is tried again 2 s later
 * (4, 8 s... up to a minute while it is refused again within a minute), once a run of the smaller size
 * got through. Before, that 429 counted as a shared quota and cut the rate by a quarter: against a
 * server that takes no two calls at once, every stall of the event loop let a pair go, and the daemon
 * ended at a quarter of the quota with 4% of its calls refused (issue 35, on TestClock). The bucket is
 * not probed above the size proven or assumed: measured, a learnt bucket as large as the server's
 * left it no token for network and scheduling jitter, and its 429s cut the rate (docs/DECISIONS.md).
 *
 * Why the bucket pauses at the start of a burst: the server's bucket leaves "full" when our
 * requests *reach* it, which under load can be 100 ms and more after we sent them (new connections,
 * a busy event loop). Refill we credit meanwhile is refill the server's full bucket threw away, and
 * the requests paced on it arrive early (the CI flake of issue 17: the client's bucket started at
 * its first reservation, the server's 83 ms later, and the seventh request was refused; with the
 * burst's requests reaching the server over 150 ms, even the first answer was too early). So when a
 * burst starts from a full bucket, refill is credited only once every request then unanswered, and
 * every request of the burst, has been answered: the server has counted them all by then. Not once
 * nothing at all is out: a steady stream near the quota always has calls out, and refill held until
 * none was (or for the 2 s timeout) spent the whole bucket and left it empty at 97% of the quota, every
 * clump of calls queueing behind it (bench/daemon-push.ts, issue 39). And the calls still unanswered when the
 * burst starts (sent before a stall, say) may reach the server together with the burst, while its
 * bucket was full: each of them beyond the one the margin absorbs takes a token from the burst (seen
 * under CI load: two calls in flight across a stall, then a burst of four, six at once for a bucket
 * of five). Delays at other times cannot hurt: a token bucket that is not full loses nothing when
 * requests arrive late.
 */
import type { EndpointName, QuotaViolation } from "@warden/core/client"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { ApiConfig } from "./ApiConfig.ts"
import * as QuotaPolicy from "./QuotaPolicy.ts"

/** A 429 names a per-second quota by a name ending in this (`analyze.message.requests_per_second`). */
const PER_SECOND = "requests_per_second"
/** Multiplicative cut when refused at or under the named value, or when no value is named. */
const SHARED_DECREASE = 0.75
const UNNAMED_DECREASE = 0.5
/** A 429 at or under the named value counts as "shared" only this long after the last change. */
const SETTLE_MS = 1_000
/** The first probe back up waits this long after a 429; each refused probe doubles it, up to the max. */
const PROBE_DELAY_MS = 2_000
const PROBE_DELAY_MAX_MS = 8_000
/** After this many refused probes the lower value is the new normal. */
const PROBES_BEFORE_ACCEPTING = 4
/** After a "shared" cut, each probe climbs at least this fraction of the quota (every `PROBE_DELAY_MS`). */
const SHARED_STEP = 0.02
/** A "shared" cut this soon after the last one climbs back in steps (the first jumps back). */
const SHARED_MEMORY_MS = 30_000
/**
 * Above the highest value that held, the rate climbs by this fraction every `CLIMB_INTERVAL_MS`; each
 * climb refused doubles the interval, up to the max (a quota that holds still costs a 429 per climb).
 */
const CLIMB_STEP = 0.05
const CLIMB_INTERVAL_MS = 15_000
const CLIMB_INTERVAL_MAX_MS = 120_000
/**
 * The smallest bucket of a learnt rate (see the module comment). The server's is assumed a token larger
 * (it is when configured with the default margin): a pair sent from a full bucket then keeps refill
 * going while it is out, the spare token absorbs what the server threw away meanwhile.
 */
const LEARNT_BURST = 2
/**
 * After the learnt bucket backed off, the size refused is tried again this long after, once a run of
 * the smaller size got through; a back-off within `BURST_MEMORY_MS` of the last doubles the wait, up to
 * the max.
 */
const BURST_RETRY_MS = 2_000
const BURST_RETRY_MAX_MS = 60_000
const BURST_MEMORY_MS = 60_000
/** Answers kept to read the server's burst from (the first calls accepted in slow start). */
const EVIDENCE_MAX = 64
/** Refill starts once a burst's requests are answered, or after this long without that. */
const ANCHOR_TIMEOUT_MS = 2_000
/**
 * Calls out at once when an endpoint starts with its quota unknown (slow start); each call accepted
 * while others wait for the window widens it by one.
 */
const INITIAL_WINDOW = 4
/** Rates (after the margin) never go below this many requests per second. */
const MIN_RATE = 0.2
/** The window for `recent429s`. */
const RECENT_WINDOW_MS = 60_000

interface Bucket {
  readonly endpoint: EndpointName
  /** The configured quota (before the margin), if any. */
  readonly configured: number | undefined
  /** The configured burst after the margin, if any. */
  readonly configuredBurst: number | undefined
  /**
   * The server's bucket size: configured (before the margin), else proven by answers (see the module
   * comment), at least `LEARNT_BURST + 1` (assumed).
   */
  serverBurst: number
  /**
   * The bucket of a learnt rate (no configured burst): a token less than the server's, proven or
   * assumed, less what it backed off (see the module comment).
   */
  learntBurst: number
  /** Whether a run as large as the bucket was accepted since it last changed. */
  burstHeld: boolean
  /** After a back-off: the bucket grows back by one no sooner than this, then waits this long again. */
  nextBurstRetryAt: number
  burstRetryDelay: number
  /** When the bucket last backed off, and last grew back (a retry, until a run of its size got through). */
  burstBackedAt: number
  burstRetriedAt: number
  /** The run of calls sent together (see `Ticket.run`), and when its last call went. */
  run: Run
  runAt: number
  /** Calls sent in slow start and accepted: `[sent, answered]` (Clock ms), the first `EVIDENCE_MAX`. */
  readonly accepted: Array<readonly [number, number]>
  /** Slow start: calls that may be out at once while no rate is known. */
  window: number
  /** Moves when the rate is learnt or cut: a 429 for a call sent under an older epoch cuts nothing. */
  epoch: number
  /** The quota value the server named last. */
  learnt: number | undefined
  /** The quota the limiter aims at (before the margin); `Infinity` when none is known. */
  limit: number
  /** The highest quota that held recently: where probes go back to. */
  ceiling: number | undefined
  /** The level refused at or under the named value (the quota is shared): probes climb towards it in steps. */
  shared: number | undefined
  /** When the last "shared" cut was. */
  sharedAt: number
  /** The enforced rate (`limit` less the margin) and bucket size. */
  rate: number
  burst: number
  tokens: number
  last: number
  /** Callers waiting for a token, in order; the first is the head, the only one that looks at the bucket. */
  readonly queue: Array<Deferred.Deferred<void>>
  /** Completed to make the head look again (the rate changed, refill was anchored). */
  poke: Deferred.Deferred<void>
  /**
   * False from the start of a burst until every request then out, and every request of the burst, is
   * answered (`held`): no refill meanwhile.
   */
  anchored: boolean
  pausedSince: number
  /** Requests sent so far (each ticket's `seq`). */
  sent: number
  /** While not anchored: the requests refill waits for are those of `seq` up to this... */
  holdThrough: number
  /** ...and this many of them are not answered yet. */
  held: number
  /** Requests that went out (with a ticket) and are not answered yet. */
  pending: number
  /** When the rate last changed (up or down): a 429 at the named value this soon after is no conclusion. */
  changedAt: number
  /** The probe in progress: back to the ceiling, a step after a "shared" cut, or a climb above the ceiling. */
  probe: "none" | "back" | "step" | "climb"
  probeDelay: number
  nextProbeAt: number
  failedProbes: number
  /** How long a climb above the ceiling waits (grows while climbs are refused). */
  climbEvery: number
  /** When the last 429 arrived, and the 429s of the last minute. */
  recent429: Array<number>
  /** Requests sent in the current and the previous second (for a 429 that names no value). */
  windowStart: number
  windowCount: number
  previousCount: number
  /** The rate last logged. */
  loggedRate: number
  warnedConfigured: boolean
}

/** The limiter's state for one endpoint, for `/api/quota`, logs and tests. */
export interface Status {
  readonly endpoint: EndpointName
  /** The configured quota in requests per second (before the margin), if any. */
  readonly configuredRate: number | undefined
  /** The quota value the server named in its last 429, if any. */
  readonly learntRate: number | undefined
  /** The rate enforced now (after the margin); `undefined` while no rate is known (slow start). */
  readonly currentRate: number | undefined
  /** Tokens available now. */
  readonly tokens: number
  /** The bucket's size: how many calls may go at once. */
  readonly burst: number
  /** 429s answered in the last minute. */
  readonly recent429s: number
  /** While no rate is known (slow start): how many calls may be out at once; `undefined` once paced. */
  readonly window: number | undefined
}

/**
 * One call let go by the limiter. Give it back to `settle` once its answer is in (or none will come),
 * and to `penalize` if that answer was a 429.
 */
export interface Ticket {
  readonly endpoint: EndpointName
  /** When it went (Clock ms). */
  readonly sentAt: number
  /** How long it waited for the limiter (ms). */
  readonly waited: number
  /** The rate's epoch when it went (see the module comment). */
  readonly epoch: number
  /** Whether a rate paced it (else it went in slow start's window). */
  readonly paced: boolean
  /** The calls sent together with it (a run of one for a call paced on its own). */
  readonly run: Run
  /** Set by the first `settle`: a ticket is settled once. */
  settled: boolean
  /** Its place among the endpoint's calls (what a burst's refill waits for, see the module comment). */
  readonly seq?: number | undefined
}

/**
 * Calls sent together: a burst from a full bucket, each call within half an interval of the rate of the
 * one before, so they may reach the server in any order. Its calls share it, and it grows while they
 * go. A call sent otherwise (paced) is a run of its own that did not start from a full bucket.
 */
export interface Run {
  /** Whether it started from a full bucket (the server's is full then too, unless it is shared). */
  readonly full: boolean
  /** The calls in it so far. */
  calls: number
  /** Calls still unanswered beyond one when it started: they may arrive with it. */
  readonly out: number
  /** Its calls answered 429 so far. */
  refused: number
}

const newRun = (full: boolean, out: number): Run => ({ full, calls: 0, out, refused: 0 })

/** Shape of the limiter. */
export interface Shape {
  /** Waits until a call to `endpoint` may go (a token of its rate, or room in slow start's window). */
  readonly acquire: (endpoint: EndpointName) => Effect.Effect<Ticket>
  /**
   * A ticket without waiting, or `undefined`: only in slow start with room and nobody waiting (a paced
   * endpoint, or a full window, goes through `acquire`). `now` is the Clock's time.
   */
  readonly tryAcquireUnsafe: (endpoint: EndpointName, now: number) => Ticket | undefined
  /**
   * The call of `ticket` got its answer (`accepted`: a 2xx), or gave up: the server has counted it.
   * Once per ticket (later calls do nothing); `now` is the Clock's time.
   */
  readonly settleUnsafe: (ticket: Ticket, accepted: boolean, now: number) => void
  /** `settleUnsafe` at the Clock's time. */
  readonly settle: (ticket: Ticket, accepted: boolean) => Effect.Effect<void>
  /**
   * Learns from a 429 that named `violations`, for the call of `ticket` (one sent before the rate was
   * last learnt or cut only counts).
   */
  readonly penalize: (ticket: Ticket, violations: ReadonlyArray<QuotaViolation>) => Effect.Effect<void>
  /** The current state of an endpoint's bucket (`undefined` for one never used nor configured). */
  readonly status: (endpoint: EndpointName) => Effect.Effect<Status | undefined>
  /** Every endpoint used or configured. */
  readonly statusAll: Effect.Effect<ReadonlyArray<Status>>
}

const enforced = (limit: number, margin: number): number =>
  Number.isFinite(limit) ? Math.max(MIN_RATE, limit * (1 - margin)) : Number.POSITIVE_INFINITY

/** Builds a limiter from quota settings. */
export const make = (options: QuotaPolicy.Options): Effect.Effect<Shape> =>
  Effect.sync(() => {
    const margin = QuotaPolicy.marginOf(options)
    const buckets = new Map<EndpointName, Bucket>()

    const bucket = (endpoint: EndpointName, now: number): Bucket => {
      let b = buckets.get(endpoint)
      if (b === undefined) {
        const configured = QuotaPolicy.rateFor(options, endpoint)
        const effective = QuotaPolicy.effectiveRate(options, endpoint)
        const limit =
          configured !== undefined && configured.requestsPerSecond > 0 && Number.isFinite(configured.requestsPerSecond)
            ? configured.requestsPerSecond
            : Number.POSITIVE_INFINITY
        const burst = Number.isFinite(limit) ? Math.max(1, effective?.burst ?? 1) : 1
        b = {
          endpoint,
          configured: Number.isFinite(limit) ? limit : undefined,
          configuredBurst: Number.isFinite(limit) ? burst : undefined,
          serverBurst:
            Number.isFinite(limit) && configured !== undefined
              ? Math.max(1, Math.floor(configured.burst ?? configured.requestsPerSecond))
              : LEARNT_BURST + 1,
          learntBurst: LEARNT_BURST,
          burstHeld: false,
          nextBurstRetryAt: Number.NEGATIVE_INFINITY,
          burstRetryDelay: BURST_RETRY_MS,
          burstBackedAt: Number.NEGATIVE_INFINITY,
          burstRetriedAt: Number.NEGATIVE_INFINITY,
          run: newRun(false, 0),
          runAt: Number.NEGATIVE_INFINITY,
          accepted: [],
          window: INITIAL_WINDOW,
          epoch: 0,
          learnt: undefined,
          limit,
          ceiling: Number.isFinite(limit) ? limit : undefined,
          shared: undefined,
          sharedAt: Number.NEGATIVE_INFINITY,
          rate: enforced(limit, margin),
          burst,
          tokens: burst,
          last: now,
          queue: [],
          poke: Deferred.makeUnsafe<void>(),
          anchored: true,
          pausedSince: now,
          sent: 0,
          holdThrough: 0,
          held: 0,
          pending: 0,
          changedAt: Number.NEGATIVE_INFINITY,
          probe: "none",
          probeDelay: PROBE_DELAY_MS,
          // a configured rate is probed above too (in small steps, with a backlog): quotas change
          nextProbeAt: now + CLIMB_INTERVAL_MS,
          failedProbes: 0,
          climbEvery: CLIMB_INTERVAL_MS,
          recent429: [],
          windowStart: now,
          windowCount: 0,
          previousCount: 0,
          loggedRate: enforced(limit, margin),
          warnedConfigured: false
        }
        buckets.set(endpoint, b)
      }
      return b
    }

    /**
     * Whether a burst from a full bucket holds refill until its answers are in (see the module comment):
     * not for a pair at most while the server's bucket is larger (its spare token absorbs the refill).
     */
    const pausesBursts = (b: Bucket): boolean => b.burst >= 2 && (b.burst > LEARNT_BURST || b.burst >= b.serverBurst)

    const refill = (b: Bucket, now: number) => {
      if (!b.anchored && now - b.pausedSince >= ANCHOR_TIMEOUT_MS) anchor(b, now)
      if (b.anchored && Number.isFinite(b.rate)) {
        const elapsed = Math.max(0, now - b.last) / 1000
        b.tokens = Math.min(b.burst, b.tokens + elapsed * b.rate)
      }
      b.last = now
    }

    /** The head of the queue looks at the bucket again. */
    const pokeHead = (b: Bucket) => {
      const poke = b.poke
      b.poke = Deferred.makeUnsafe<void>()
      Deferred.doneUnsafe(poke, Effect.void)
    }

    const anchor = (b: Bucket, now: number) => {
      b.anchored = true
      b.last = now
      pokeHead(b)
    }

    /** Forgets the 429s older than the window; returns how many are left. */
    const recent429s = (b: Bucket, now: number): number => {
      while (b.recent429.length > 0 && b.recent429[0]! < now - RECENT_WINDOW_MS) b.recent429.shift()
      return b.recent429.length
    }

    const countSend = (b: Bucket, now: number) => {
      if (now - b.windowStart >= 1000) {
        b.previousCount = now - b.windowStart >= 2000 ? 0 : b.windowCount
        b.windowStart = now
        b.windowCount = 0
      }
      b.windowCount++
    }

    /** The learnt bucket before any back-off: a token less than the server's (proven or assumed). */
    const burstCeiling = (b: Bucket): number => Math.max(LEARNT_BURST, b.serverBurst - 1)

    /**
     * The bucket for `limit`: the configured burst at or above the configured rate; below it (the server
     * named less) a learnt bucket no larger; with nothing configured, the learnt bucket.
     */
    const burstFor = (b: Bucket, limit: number): number =>
      b.configuredBurst === undefined
        ? b.learntBurst
        : limit >= b.configured!
          ? b.configuredBurst
          : Math.min(b.configuredBurst, LEARNT_BURST)

    /**
     * Reads the server's burst from the calls accepted in slow start (see the module comment), once
     * the quota is known, and sizes the bucket by it.
     */
    const learnBurst = (b: Bucket) => {
      if (b.configured !== undefined || b.learnt === undefined || b.accepted.length === 0) return
      const perMs = b.learnt / 1000
      // every window from a send to an answer: the calls sent and answered within it
      let proven = 0
      for (const [from] of b.accepted) {
        const answers = b.accepted
          .filter(([sent]) => sent >= from)
          .map(([, answered]) => answered)
          .sort((x, y) => x - y)
        answers.forEach((to, i) => {
          proven = Math.max(proven, i + 1 - perMs * (to - from))
        })
      }
      // a bucket holds whole tokens: "at least 4.2" is at least 5
      const size = Math.ceil(proven - 1e-9)
      if (size <= b.serverBurst) return
      b.serverBurst = size
      // unless it backed off since
      if (b.burstBackedAt === Number.NEGATIVE_INFINITY) b.learntBurst = burstCeiling(b)
      if (Number.isFinite(b.limit)) b.burst = burstFor(b, b.limit)
    }

    /**
     * With calls waiting, after a back-off: one token more (up to the ceiling) once a run as large as
     * the bucket got through and the retry's wait is over.
     */
    const maybeRetryBurst = (b: Bucket, now: number): Effect.Effect<void> => {
      if (b.configuredBurst !== undefined || b.learntBurst >= burstCeiling(b)) return Effect.void
      if (!b.burstHeld || now < b.nextBurstRetryAt) return Effect.void
      b.nextBurstRetryAt = now + b.burstRetryDelay
      b.burstRetriedAt = now
      return setBurst(b, b.learntBurst + 1, now, `${b.learntBurst} at once were accepted`)
    }

    /** Sets the learnt bucket (logged). */
    const setBurst = (b: Bucket, size: number, now: number, why: string): Effect.Effect<void> => {
      refill(b, now)
      b.learntBurst = size
      b.burstHeld = false
      if (!Number.isFinite(b.limit)) return Effect.void
      const before = b.burst
      b.burst = burstFor(b, b.limit)
      b.tokens = Math.min(b.tokens, b.burst)
      if (b.burst === before) return Effect.void
      if (!pausesBursts(b)) b.anchored = true
      pokeHead(b)
      return Effect.logInfo(`quota: ${b.endpoint} now ${b.burst} at once (${why})`)
    }

    /** Applies a new `limit`: the enforced rate, the bucket size, waiters re-reserve. */
    const setLimit = (b: Bucket, limit: number, now: number): Effect.Effect<void> => {
      refill(b, now)
      // learnt or cut: 429s for calls sent before say nothing new (a probe up keeps the epoch)
      if (limit < b.limit) b.epoch++
      b.limit = limit
      b.rate = enforced(limit, margin)
      b.burst = burstFor(b, limit)
      b.tokens = Math.min(b.tokens, b.burst)
      b.changedAt = now
      // nothing to wait for when bursts do not pause
      if (!pausesBursts(b)) b.anchored = true
      pokeHead(b)
      const changed = Math.abs(b.rate - b.loggedRate) > 0.2 * Math.min(b.rate, b.loggedRate)
      if (!changed) return Effect.void
      b.loggedRate = b.rate
      return Effect.logInfo(
        `quota: ${b.endpoint} now ${b.rate.toFixed(1)} requests/s, ${b.burst} at once` +
          (b.learnt !== undefined ? ` (the server's quota was ${b.learnt}/s at its last 429)` : "")
      )
    }

    /**
     * With a backlog: goes back up to what held before (in steps after a "shared" cut), or a step above
     * it.
     */
    const maybeProbe = (b: Bucket, now: number): Effect.Effect<void> => {
      if (!Number.isFinite(b.limit) || now < b.nextProbeAt) return Effect.void
      if (b.probe !== "none") {
        // the last probe held
        if (b.probe === "climb") b.climbEvery = CLIMB_INTERVAL_MS
        b.probe = "none"
        b.failedProbes = 0
        b.probeDelay = PROBE_DELAY_MS
        b.ceiling = Math.max(b.ceiling ?? b.limit, b.limit)
      }
      const ceiling = b.ceiling ?? b.limit
      if (b.limit >= ceiling) b.shared = undefined
      if (b.limit < ceiling && b.shared !== undefined) {
        // shared: half the way back to the level refused, then on in additive steps
        const step = Math.max(SHARED_STEP * ceiling, (b.shared - b.limit) / 2)
        b.probe = "step"
        b.nextProbeAt = now + PROBE_DELAY_MS
        return setLimit(b, Math.min(ceiling, b.limit + step), now)
      }
      if (b.limit < ceiling) {
        b.probe = "back"
        b.nextProbeAt = now + b.probeDelay
        return setLimit(b, ceiling, now)
      }
      b.probe = "climb"
      b.nextProbeAt = now + b.climbEvery
      return setLimit(b, b.limit * (1 + CLIMB_STEP), now)
    }

    /** Takes a token if the bucket has one now. */
    const tryTake = (b: Bucket, now: number): boolean => {
      refill(b, now)
      // a burst starts from a full bucket: no refill until the server has answered what is out, and
      // what is still out beyond one request counts against the burst. "Full" is within a token of
      // the top: the server's bucket is a token larger and fills up first (its rate is ours plus the
      // margin), so it throws refill away while ours still takes it (seen under CI load: ours at 3.9
      // of 4 after a stall). (A bucket of one sends no burst: the server's spare token absorbs one
      // late request.)
      // a burst from a full bucket goes on while its calls go within half an interval of each other (`Run`)
      if (!b.run.full || ((now - b.runAt) * b.rate) / 1000 >= 0.5) b.run = newRun(false, 0)
      if (b.anchored && b.burst >= 2 && b.tokens >= Math.max(b.burst - 1, 1.5)) {
        b.run = newRun(true, Math.max(0, b.pending - 1))
        const spare = b.burst - Math.max(0, b.pending - 1)
        if (pausesBursts(b)) {
          b.anchored = false
          b.pausedSince = now
          // refill waits for the requests out now and for the burst's own (added as they go, below)
          b.holdThrough = b.sent
          b.held = b.pending
          b.tokens = Math.min(b.tokens, Math.max(0, spare))
        } else {
          // a pair at most, and refill goes on: the server's spare token absorbs what it threw away
          // meanwhile; still, what is out beyond one request may arrive with the pair
          b.tokens = Math.min(b.tokens, Math.max(1, spare))
        }
      }
      if (b.tokens < 1) return false
      b.tokens -= 1
      b.pending++
      b.sent++
      if (!b.anchored && b.run.full) {
        // a call of the burst that paused refill: refill waits for its answer too
        b.holdThrough = b.sent
        b.held++
      }
      b.run.calls++
      b.runAt = now
      return true
    }

    const ticketAt = (b: Bucket, now: number, start: number, paced: boolean): Ticket => ({
      endpoint: b.endpoint,
      sentAt: now,
      waited: now - start,
      seq: b.sent,
      epoch: b.epoch,
      paced,
      run: paced ? b.run : { full: false, calls: 1, out: 0, refused: 0 },
      settled: false
    })

    /** A ticket if the call may go now: room in slow start's window, or a token of the rate. */
    const take = (b: Bucket, now: number, start: number): Ticket | undefined => {
      if (!Number.isFinite(b.rate)) {
        if (b.pending >= b.window) return undefined
        // what a 429 naming no value is judged against
        countSend(b, now)
        b.pending++
        return ticketAt(b, now, start, false)
      }
      return tryTake(b, now) ? ticketAt(b, now, start, true) : undefined
    }

    /** Leaves the queue (done or interrupted); a head that leaves hands on to the next. */
    const leave = (b: Bucket, me: Deferred.Deferred<void>) =>
      Effect.sync(() => {
        const index = b.queue.indexOf(me)
        if (index < 0) return
        b.queue.splice(index, 1)
        if (index === 0 && b.queue.length > 0) Deferred.doneUnsafe(b.queue[0]!, Effect.void)
      })

    /**
     * As the head: waits until a ticket can be taken now. Only the waits are interruptible (`restore`):
     * a ticket taken is always handed back, never lost to an interruption on its way out.
     */
    const takeAsHead = (
      b: Bucket,
      start: number,
      restore: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
    ): Effect.Effect<Ticket> =>
      Effect.gen(function* () {
        for (;;) {
          const now = yield* Clock.currentTimeMillis
          const ticket = take(b, now, start)
          if (ticket !== undefined) return ticket
          if (!Number.isFinite(b.rate)) {
            // slow start: an answer (settle) or a learnt rate (setLimit) pokes
            yield* restore(Deferred.await(b.poke))
            continue
          }
          yield* maybeProbe(b, now)
          yield* maybeRetryBurst(b, now)
          const wait = b.anchored
            ? Math.max(1, Math.ceil(((1 - b.tokens) / b.rate) * 1000))
            : // no refill yet: wait for the burst's answers (or the anchor timeout)
              Math.max(1, ANCHOR_TIMEOUT_MS - (now - b.pausedSince))
          yield* restore(Effect.raceFirst(Effect.sleep(Duration.millis(wait)), Deferred.await(b.poke)))
        }
      })

    const acquire = (endpoint: EndpointName): Effect.Effect<Ticket> =>
      Effect.uninterruptibleMask((restore) =>
        Effect.gen(function* () {
          const start = yield* Clock.currentTimeMillis
          const b = bucket(endpoint, start)
          if (b.queue.length === 0) {
            const ticket = take(b, start, start)
            if (ticket !== undefined) return ticket
          }
          const me = Deferred.makeUnsafe<void>()
          b.queue.push(me)
          return yield* Effect.gen(function* () {
            if (b.queue[0] !== me) yield* restore(Deferred.await(me))
            return yield* takeAsHead(b, start, restore)
          }).pipe(Effect.ensuring(leave(b, me)))
        })
      )

    const tryAcquireUnsafe = (endpoint: EndpointName, now: number): Ticket | undefined => {
      const b = bucket(endpoint, now)
      return Number.isFinite(b.rate) || b.queue.length > 0 ? undefined : take(b, now, now)
    }

    const penalize = (ticket: Ticket, violations: ReadonlyArray<QuotaViolation>): Effect.Effect<void> =>
      Effect.flatMap(Clock.currentTimeMillis, (now) => {
        const b = bucket(ticket.endpoint, now)
        b.recent429.push(now)
        recent429s(b, now)
        // sent before the rate was last learnt or cut: that change already answered this refusal
        if (ticket.epoch < b.epoch) return Effect.void
        const named = violations
          .filter((v) => v.quotaName.endsWith(PER_SECOND))
          .map((v) => Number(v.quotaValue))
          .filter((n) => Number.isFinite(n) && n > 0)
        const quota = named.length > 0 ? Math.min(...named) : undefined
        let limit: number
        if (quota !== undefined) {
          b.learnt = quota
          learnBurst(b)
          const run = ticket.run
          const atOnce = run.calls + run.out
          const ofBurst = run.full && run.calls >= 2
          // sent after the bucket grew back, before a run of its size got through: the retry's
          const ofRetry =
            !b.burstHeld && ticket.sentAt >= b.burstRetriedAt && ticket.sentAt < b.burstRetriedAt + BURST_RETRY_MS
          if (b.limit <= quota && ticket.paced && (ofBurst || ofRetry) && b.configuredBurst === undefined) {
            // the server refused a call of a burst from a full bucket at the named rate (or one paced by a
            // bucket that just grew back): its bucket is smaller than ours, the quota is not shared. The
            // bucket backs off by one, the rate stays.
            b.tokens = Math.min(b.tokens, 0)
            if (run.refused++ > 0) return Effect.void
            const size = Math.max(1, (ofBurst ? Math.min(b.learntBurst, atOnce) : b.learntBurst) - 1)
            if (size >= b.learntBurst) return Effect.void
            // refused again soon after the last back-off: the retry waits twice as long
            b.burstRetryDelay =
              now - b.burstBackedAt < BURST_MEMORY_MS
                ? Math.min(BURST_RETRY_MAX_MS, b.burstRetryDelay * 2)
                : BURST_RETRY_MS
            b.burstBackedAt = now
            b.nextBurstRetryAt = now + b.burstRetryDelay
            return setBurst(
              b,
              size,
              now,
              ofBurst ? `the server refused one of ${atOnce} calls sent at once` : "the server refused it again"
            )
          }
          if (b.limit <= quota && ticket.sentAt < b.changedAt + SETTLE_MS) {
            // already at the named value, and the server's bucket is still draining what came before
            return Effect.void
          }
          if (b.limit > quota) {
            limit = quota
            b.shared = undefined
          } else {
            // shared: the second time running, the level refused is where the steps back up slow down
            b.shared = now - b.sharedAt < SHARED_MEMORY_MS ? b.limit : undefined
            b.sharedAt = now
            limit = Math.max(quota * 0.25, b.limit * SHARED_DECREASE)
          }
          if (b.ceiling === undefined) b.ceiling = quota
        } else {
          const observed = Math.max(b.previousCount, b.windowCount, 1)
          limit = (Number.isFinite(b.limit) ? b.limit : observed) * UNNAMED_DECREASE
        }
        if (b.probe === "climb") b.climbEvery = Math.min(CLIMB_INTERVAL_MAX_MS, b.climbEvery * 2)
        if (b.probe === "back") {
          b.failedProbes++
          b.probeDelay = Math.min(PROBE_DELAY_MAX_MS, b.probeDelay * 2)
          if (b.failedProbes >= PROBES_BEFORE_ACCEPTING) {
            b.ceiling = quota ?? limit
            b.failedProbes = 0
          }
        }
        b.probe = "none"
        // at the ceiling (a value learnt, a climb refused) the next probe is a climb: it waits its interval
        const atCeiling = b.ceiling !== undefined && limit >= b.ceiling
        b.nextProbeAt = now + (atCeiling ? b.climbEvery : b.shared !== undefined ? PROBE_DELAY_MS : b.probeDelay)
        // the server said "too many": spend what is left of the burst
        b.tokens = Math.min(b.tokens, 0)
        const lowered = quota !== undefined && b.configured !== undefined && b.configured > quota
        const warn =
          lowered && !b.warnedConfigured
            ? Effect.logWarning(
                `quota for ${violations.find((v) => Number(v.quotaValue) === quota)?.quotaName ?? ticket.endpoint} is ` +
                  `${quota}/s, configured ${b.configured}/s: using ${quota}/s`
              )
            : Effect.void
        if (lowered) b.warnedConfigured = true
        return Effect.andThen(setLimit(b, limit, now), warn)
      })

    const settleUnsafe = (ticket: Ticket, accepted: boolean, now: number): void => {
      if (ticket.settled) return
      ticket.settled = true
      const b = buckets.get(ticket.endpoint)
      if (b === undefined) return
      b.pending = Math.max(0, b.pending - 1)
      if (!b.anchored && ticket.seq !== undefined && ticket.seq <= b.holdThrough) b.held = Math.max(0, b.held - 1)
      // a run as large as the bucket got through: after a back-off, the bucket may grow back
      const run = ticket.run
      if (
        ticket.paced &&
        accepted &&
        run.refused === 0 &&
        (run.full || b.burst === 1) &&
        run.calls + run.out >= b.burst
      ) {
        b.burstHeld = true
      }
      if (!ticket.paced && accepted) {
        // what the server's burst is read from once a 429 names the quota (see the module comment)
        if (b.accepted.length < EVIDENCE_MAX) {
          b.accepted.push([ticket.sentAt, now])
          learnBurst(b)
        }
        // slow start: one more out at once for each call accepted while others wait
        if (!Number.isFinite(b.rate) && b.queue.length > 0) b.window++
      }
      if (!Number.isFinite(b.rate)) pokeHead(b)
      // every request out when the burst started, and the burst's own, answered: the server has counted them
      // all (calls sent after the burst, paced, may still be out: waiting for them held refill for good at a
      // steady stream near the quota, which always has calls out)
      else if (!b.anchored && (b.pending === 0 || b.held === 0)) anchor(b, now)
    }

    const settle = (ticket: Ticket, accepted: boolean): Effect.Effect<void> =>
      Effect.map(Clock.currentTimeMillis, (now) => settleUnsafe(ticket, accepted, now))

    const statusOf = (b: Bucket, now: number): Status => {
      refill(b, now)
      return {
        endpoint: b.endpoint,
        configuredRate: b.configured,
        learntRate: b.learnt,
        currentRate: Number.isFinite(b.rate) ? b.rate : undefined,
        tokens: b.tokens,
        burst: b.burst,
        recent429s: recent429s(b, now),
        window: Number.isFinite(b.rate) ? undefined : b.window
      }
    }
    const status = (endpoint: EndpointName): Effect.Effect<Status | undefined> =>
      Effect.map(Clock.currentTimeMillis, (now) => {
        const known = buckets.has(endpoint) || QuotaPolicy.rateFor(options, endpoint) !== undefined
        return known ? statusOf(bucket(endpoint, now), now) : undefined
      })
    const statusAll: Effect.Effect<ReadonlyArray<Status>> = Effect.map(Clock.currentTimeMillis, (now) => {
      for (const endpoint of QuotaPolicy.configuredEndpoints(options)) bucket(endpoint, now)
      return [...buckets.values()].map((b) => statusOf(b, now))
    })
    return { acquire, tryAcquireUnsafe, settleUnsafe, settle, penalize, status, statusAll }
  })

/** The process-wide rate limiter service. */
export class RateLimiter extends Context.Service<RateLimiter, Shape>()("@warden/transport/RateLimiter") {
  /** A limiter with these settings. */
  static readonly layerOptions = (options: QuotaPolicy.Options): Layer.Layer<RateLimiter> =>
    Layer.effect(RateLimiter, make(options))
  /** A limiter with the quota settings of `ApiConfig`. */
  static readonly layer: Layer.Layer<RateLimiter, never, ApiConfig> = Layer.effect(
    RateLimiter,
    Effect.flatMap(ApiConfig, (config) => make(config.quotas))
  )
}
