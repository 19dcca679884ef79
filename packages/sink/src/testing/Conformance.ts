/**
 * The sink conformance kit: checks any sink against the SDK's contract, with a real receiver the
 * harness starts (a server, a database, a stream) and reads back.
 *
 * Each check is an Effect failing with a {@link ConformanceFailure} that says what was expected and
 * seen; run them one by one (`Conformance.checks.redelivery(options)`) or register them as vitest tests
 * with `describeConformance` from `@warden/sink/testing`. A check whose harness part is missing (a sink
 * whose receiver cannot refuse one record alone has no `refuse`) tests only what it can.
 *
 * @since 0.1.0
 */
import { spawn } from "node:child_process"
import { randomBytes } from "node:crypto"
import { Handles } from "@warden/connector/testing"
import { Clock, Duration, Effect, Schema, type Scope } from "effect"
import { SqlClient } from "effect/sql"
import * as DeliveryResult from "../DeliveryResult.ts"
import { type Deliverer, makeDeliverer, migrate, type Sink, type SinkHost } from "../Sink.ts"
import { deliveryId, type SinkRecord } from "../SinkRecord.ts"

/** What the receiver holds, and how to take it down. */
export interface Downstream {
  /**
   * The delivery ids (`source/reference/version`) of the records the receiver holds, in arrival order,
   * repeats included: a receiver holding one record twice lists its id twice.
   */
  readonly received: Effect.Effect<ReadonlyArray<string>, unknown>
  /** Makes the receiver unavailable (a connection refused, a 503, the server stopped)... */
  readonly stop?: Effect.Effect<void, unknown> | undefined
  /** ...and available again. */
  readonly start?: Effect.Effect<void, unknown> | undefined
}

/** A fresh receiver and the (encoded, as a user writes it) config pointing the sink at it. */
export interface Harness {
  readonly config: unknown
  readonly downstream: Downstream
  /**
   * Turns a record into one the receiver refuses, for good (`permanent`: a 400, a subject no stream
   * takes, a text that is not a record) or for now (`retryable`: a 503 for that record).
   */
  readonly refuse?:
    | {
        readonly permanent?: ((record: SinkRecord) => SinkRecord) | undefined
        readonly retryable?: ((record: SinkRecord) => SinkRecord) | undefined
      }
    | undefined
}

/** The process the `killNine` check kills: the sink's module and, for a host with a SQL client, its maker. */
export interface ChildOptions {
  /** The module exporting the sink (`sink` or `default`), as a file URL or an absolute path. */
  readonly module: string
  /** A module exporting `makeHost(args): Effect<SinkHost, unknown, Scope>`, and its (JSON) argument. */
  readonly host?: { readonly module: string; readonly args: unknown } | undefined
}

/** What the kit needs. `setup` runs once per check, in the check's scope (close the receiver there). */
export interface Options {
  readonly sink: Sink
  readonly setup: Effect.Effect<Harness, unknown, Scope.Scope>
  /** The host the sink is made with in this process (its SQL client, migrated by the kit). */
  readonly host?: Partial<SinkHost> | undefined
  /** The JSON text of a record with this key, as the daemon would record it (default: a minimal one). */
  readonly record?: ((key: { source: string; reference: string; version: number }) => string) | undefined
  /** For the `killNine` check (without it, that check only says it did not run). */
  readonly child?: ChildOptions | undefined
  /** How long a delivery or the receiver may take to show a record (default 10 seconds). */
  readonly timeout?: Duration.Input | undefined
}

/** A conformance check failed; `check` names it, `message` says what was expected and seen. */
export class ConformanceFailure extends Schema.TaggedError<ConformanceFailure>()("ConformanceFailure", {
  check: Schema.String,
  message: Schema.String
}) {}

const fail = (check: string, message: string) => Effect.fail(new ConformanceFailure({ check, message }))

const wrap =
  (check: string, what: string) =>
  <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, ConformanceFailure, R> =>
    Effect.mapError(effect, (e) => new ConformanceFailure({ check, message: `${what} failed: ${describe(e)}` }))

const describe = (e: unknown): string => (e instanceof Error ? e.message : String(e))

/** A minimal verdict record's JSON text. */
const minimalRecord = (key: { source: string; reference: string; version: number }): string =>
  JSON.stringify({ ...key, status: "analysed", recordedAt: new Date(0).toISOString() })

let run = 0

/** When a check gives up waiting: `timeout` from now on the fiber's Clock (the loops sleep on it too). */
const deadlineOf = (options: Options) => Effect.map(Clock.currentTimeMillis, (now) => now + timeoutOf(options))

/** Whether `deadline` has passed. */
const past = (deadline: number) => Effect.map(Clock.currentTimeMillis, (now) => now > deadline)

/** `count` fresh records (a reference unique to this run and check), as the daemon would hand them over. */
export const records = (options: Options, check: string, count: number): ReadonlyArray<SinkRecord> => {
  run += 1
  const stamp = `${process.pid}-${randomBytes(4).toString("hex")}-${run}`
  return Array.from({ length: count }, (_, i) => {
    const key = { source: "conformance", reference: `${check}-${stamp}-${i + 1}`, version: 1 }
    return { ...key, json: (options.record ?? minimalRecord)(key) }
  })
}

const timeoutOf = (options: Options) => Duration.toMillis(Duration.fromInputUnsafe(options.timeout ?? "10 seconds"))

const hostOf = (options: Options): SinkHost => ({
  name: "conformance",
  setting: (field) => field,
  sql: undefined,
  ...options.host
})

/** The harness, then the sink's migrations on the host's SQL client (what the daemon runs before `make`). */
const prepare = (options: Options, check: string) =>
  Effect.gen(function* () {
    const harness = yield* wrap(check, "setup")(options.setup)
    const host = hostOf(options)
    if (host.sql !== undefined)
      yield* wrap(
        check,
        "the sink's migrations"
      )(Effect.provideService(migrate(options.sink), SqlClient.SqlClient, host.sql))
    return { harness, host }
  })

const makeIn = (options: Options, check: string, harness: Harness, host: SinkHost) =>
  wrap(check, "make")(makeDeliverer(options.sink, harness.config, host))

const deliver = (check: string, deliverer: Deliverer, batch: ReadonlyArray<SinkRecord>, options: Options) =>
  deliverer.deliver(batch).pipe(
    Effect.timeoutOrElse({
      duration: timeoutOf(options),
      orElse: () =>
        fail(check, `deliver of ${batch.length} records did not answer within ${options.timeout ?? "10 seconds"}`)
    }),
    Effect.flatMap((results) =>
      results.length === batch.length
        ? Effect.succeed(results)
        : fail(check, `deliver answered ${results.length} results for ${batch.length} records`)
    )
  )

const tags = (results: ReadonlyArray<DeliveryResult.DeliveryResult>) =>
  results.map((r) => (r._tag === "Delivered" ? r._tag : `${r._tag}(${r.reason})`)).join(", ")

/** Counts of each id among `received`. */
const countsOf = (received: ReadonlyArray<string>) => {
  const counts = new Map<string, number>()
  for (const id of received) counts.set(id, (counts.get(id) ?? 0) + 1)
  return counts
}

/**
 * Waits until the receiver holds each of `expected` (up to the timeout), then checks how often: once
 * each for an idempotent sink, at least once otherwise; and none of `absent`.
 */
const expectReceived = (
  check: string,
  options: Options,
  harness: Harness,
  expected: ReadonlyArray<SinkRecord>,
  absent: ReadonlyArray<SinkRecord> = []
) =>
  Effect.gen(function* () {
    const ids = expected.map(deliveryId)
    const deadline = yield* deadlineOf(options)
    let counts = new Map<string, number>()
    while (true) {
      counts = countsOf(yield* wrap(check, "reading the receiver")(harness.downstream.received))
      if (ids.every((id) => (counts.get(id) ?? 0) > 0) || (yield* past(deadline))) break
      yield* Effect.sleep("50 millis")
    }
    const missing = ids.filter((id) => (counts.get(id) ?? 0) === 0)
    if (missing.length > 0)
      return yield* fail(
        check,
        `the receiver lacks ${missing.length} of ${ids.length} delivered records: ${missing.slice(0, 3).join(", ")}`
      )
    if (options.sink.delivery === "idempotent") {
      const repeated = ids.filter((id) => (counts.get(id) ?? 0) > 1)
      if (repeated.length > 0)
        return yield* fail(
          check,
          `the sink says idempotent, but the receiver holds ${repeated.length} records more than once: ${repeated
            .slice(0, 3)
            .map((id) => `${id} ×${counts.get(id)}`)
            .join(", ")}`
        )
    }
    const present = absent.map(deliveryId).filter((id) => (counts.get(id) ?? 0) > 0)
    if (present.length > 0) return yield* fail(check, `the receiver holds records it refused: ${present.join(", ")}`)
  })

/** A batch is delivered, each record reaches the receiver, and each result says `Delivered`. */
export const delivers = (options: Options) =>
  Effect.scoped(
    Effect.gen(function* () {
      const check = "delivers"
      const { harness, host } = yield* prepare(options, check)
      const deliverer = yield* makeIn(options, check, harness, host)
      const batch = records(options, check, 5)
      const results = yield* deliver(check, deliverer, batch, options)
      if (!results.every(DeliveryResult.isDelivered))
        return yield* fail(check, `expected 5 × Delivered, got ${tags(results)}`)
      yield* expectReceived(check, options, harness, batch)
    })
  )

/**
 * Records handed over again (as the outbox does after a crash between delivery and acknowledgement),
 * in the same batch and in another, answer `Delivered`, and an idempotent sink leaves each once
 * downstream (by `source` + `reference` + `version`); an at-least-once sink at least once. A new
 * version of a record is a new record.
 */
export const redelivery = (options: Options) =>
  Effect.scoped(
    Effect.gen(function* () {
      const check = "redelivery"
      const { harness, host } = yield* prepare(options, check)
      const deliverer = yield* makeIn(options, check, harness, host)
      const batch = records(options, check, 4)
      const edited = { ...batch[0]!, version: 2 }
      const next = { ...edited, json: (options.record ?? minimalRecord)(edited) }
      for (const again of [batch, [...batch.slice(0, 2), next, batch[2]!], [batch[3]!, next]]) {
        const results = yield* deliver(check, deliverer, again, options)
        if (!results.every(DeliveryResult.isDelivered))
          return yield* fail(check, `a redelivered batch should be Delivered, got ${tags(results)}`)
      }
      yield* expectReceived(check, options, harness, [...batch, next])
    })
  )

/**
 * In a batch where some records are refused, each record has its own result, in order: the others
 * are delivered, a record refused for good is `Permanent`, one refused for now `Retryable`.
 */
export const partialBatch = (options: Options) =>
  Effect.scoped(
    Effect.gen(function* () {
      const check = "partialBatch"
      const { harness, host } = yield* prepare(options, check)
      const refuse = harness.refuse
      if (refuse?.permanent === undefined && refuse?.retryable === undefined) return
      const deliverer = yield* makeIn(options, check, harness, host)
      const [a, b, c, d, e] = records(options, check, 5) as [SinkRecord, SinkRecord, SinkRecord, SinkRecord, SinkRecord]
      const batch = [a, refuse.permanent?.(b) ?? b, c, refuse.retryable?.(d) ?? d, e]
      const expected = [
        "Delivered",
        refuse.permanent === undefined ? "Delivered" : "Permanent",
        "Delivered",
        refuse.retryable === undefined ? "Delivered" : "Retryable",
        "Delivered"
      ]
      const results = yield* deliver(check, deliverer, batch, options)
      if (results.some((r, i) => r._tag !== expected[i] || (r._tag !== "Delivered" && r.reason.trim() === "")))
        return yield* fail(check, `expected ${expected.join(", ")} (failures with a reason), got ${tags(results)}`)
      const refused = batch.filter((_, i) => expected[i] !== "Delivered")
      yield* expectReceived(
        check,
        options,
        harness,
        batch.filter((_, i) => expected[i] === "Delivered"),
        refused
      )
    })
  )

/**
 * With the receiver down, every record is `Retryable` (never `Permanent`: the daemon would drop it to
 * the dead letters), answered within the timeout; once it is back, the same records are delivered.
 */
export const receiverDown = (options: Options) =>
  Effect.scoped(
    Effect.gen(function* () {
      const check = "receiverDown"
      const { harness, host } = yield* prepare(options, check)
      const { stop, start } = harness.downstream
      if (stop === undefined || start === undefined) return
      const deliverer = yield* makeIn(options, check, harness, host)
      const batch = records(options, check, 3)
      yield* wrap(check, "stopping the receiver")(stop)
      const down = yield* deliver(check, deliverer, batch, options)
      if (!down.every((r) => r._tag === "Retryable"))
        return yield* fail(check, `with the receiver down, expected 3 × Retryable, got ${tags(down)}`)
      yield* wrap(check, "starting the receiver")(start)
      // The daemon retries with backoff: so does the kit, for the timeout.
      const deadline = yield* deadlineOf(options)
      let pending = batch
      while (pending.length > 0) {
        const results = yield* deliver(check, deliverer, pending, options)
        if (results.some((r) => r._tag === "Permanent"))
          return yield* fail(check, `once the receiver is back, expected Delivered, got ${tags(results)}`)
        pending = pending.filter((_, i) => !DeliveryResult.isDelivered(results[i]!))
        if (pending.length > 0 && (yield* past(deadline)))
          return yield* fail(check, `once the receiver is back, still not delivered: ${tags(results)}`)
        if (pending.length > 0) yield* Effect.sleep("200 millis")
      }
      yield* expectReceived(check, options, harness, batch)
    })
  )

/**
 * Closing the sink's scope ends it cleanly: within the timeout, and leaving no timer, socket or handle
 * behind (async_hooks); what it delivered before is at the receiver.
 */
export const cleanShutdown = (options: Options) =>
  Effect.scoped(
    Effect.gen(function* () {
      const check = "cleanShutdown"
      const { harness, host } = yield* prepare(options, check)
      yield* Effect.sleep("50 millis")
      const tracker = yield* Handles.track
      const batch = records(options, check, 3)
      const results = yield* Effect.scoped(
        Effect.flatMap(makeIn(options, check, harness, host), (deliverer) => deliver(check, deliverer, batch, options))
      ).pipe(
        Effect.timeoutOrElse({
          duration: timeoutOf(options) * 2,
          orElse: () => fail(check, "making, delivering and closing the sink did not end within twice the timeout")
        })
      )
      if (!results.every(DeliveryResult.isDelivered))
        return yield* fail(check, `expected 3 × Delivered, got ${tags(results)}`)
      const left = yield* tracker.left
      if (left.length > 0) return yield* fail(check, `resources left after the sink's scope closed: ${left.join(", ")}`)
      yield* expectReceived(check, options, harness, batch)
    })
  )

/** The child's entry: `Child.ts` beside this file in the sources, `Child.js` in the built package. */
const childEntry = () => {
  const own = new URL(import.meta.url)
  const source = own.pathname.endsWith(".ts")
  return { file: new URL(source ? "./Child.ts" : "./Child.js", own), source }
}

const ChildLine = Schema.fromJsonString(
  Schema.Union([
    Schema.Struct({ delivering: Schema.Int }),
    Schema.Struct({ acked: Schema.Array(Schema.String) }),
    Schema.Struct({ done: Schema.Boolean })
  ])
)
const decodeLine = Schema.decodeUnknownSync(ChildLine)

/**
 * At-least-once across a crash: a child process delivering 1000 records in batches of 20 is killed
 * (SIGKILL) as its third batch starts; the records it had not acknowledged are then delivered again by
 * a fresh sink (as the daemon's outbox does at the next start), and the receiver holds every record:
 * once each for an idempotent sink.
 */
export const killNine = (options: Options) =>
  Effect.scoped(
    Effect.gen(function* () {
      const check = "killNine"
      if (options.child === undefined) return
      const { harness, host } = yield* prepare(options, check)
      const batch = records(options, check, 1000)
      const acked = new Set<string>()
      const { file, source } = childEntry()
      const killed = yield* Effect.callback<{ killedAt: number; stderr: string }, ConformanceFailure>((resume) => {
        const child = spawn(
          process.execPath,
          [
            ...(source ? ["--conditions=@warden/source", "--disable-warning=ExperimentalWarning"] : []),
            file.pathname,
            JSON.stringify({
              module: options.child!.module,
              config: harness.config,
              batch: 20,
              host: options.child!.host
            })
          ],
          { stdio: ["pipe", "pipe", "pipe"] }
        )
        let stderr = ""
        let buffer = ""
        let killedAt = 0
        child.stderr.on("data", (chunk: Buffer) => {
          stderr += chunk.toString()
        })
        child.stdout.on("data", (chunk: Buffer) => {
          buffer += chunk.toString()
          let at = buffer.indexOf("\n")
          while (at >= 0) {
            const message = decodeLine(buffer.slice(0, at))
            buffer = buffer.slice(at + 1)
            at = buffer.indexOf("\n")
            if ("acked" in message) for (const id of message.acked) acked.add(id)
            if ("delivering" in message && message.delivering === 3 && killedAt === 0) {
              killedAt = message.delivering
              child.kill("SIGKILL")
            }
          }
        })
        child.once("exit", (code, signal) =>
          resume(
            signal === "SIGKILL" && killedAt > 0
              ? Effect.succeed({ killedAt, stderr })
              : fail(check, `the child ended before the kill (exit ${code ?? signal}): ${stderr.slice(-2000)}`)
          )
        )
        child.stdin.end(JSON.stringify(batch))
        return Effect.sync(() => child.kill("SIGKILL"))
      }).pipe(
        Effect.timeoutOrElse({
          duration: timeoutOf(options) * 3,
          orElse: () => fail(check, "the child did not start its third batch within three times the timeout")
        })
      )
      if (acked.size >= batch.length)
        return yield* fail(check, `the child acknowledged everything before the kill (batch ${killed.killedAt})`)
      // The restart: a fresh sink delivers what was not acknowledged, retrying what is refused for now.
      const deliverer = yield* makeIn(options, check, harness, host)
      let pending = batch.filter((r) => !acked.has(deliveryId(r)))
      const deadline = yield* deadlineOf(options)
      while (pending.length > 0) {
        const results = yield* deliver(check, deliverer, pending.slice(0, options.sink.batchSize), options)
        if (results.some((r) => r._tag === "Permanent"))
          return yield* fail(check, `redelivery after the kill: ${tags(results)}`)
        const done = new Set(
          pending
            .slice(0, results.length)
            .flatMap((r, i) => (DeliveryResult.isDelivered(results[i]!) ? [deliveryId(r)] : []))
        )
        pending = pending.filter((r) => !done.has(deliveryId(r)))
        if (done.size === 0 && (yield* past(deadline)))
          return yield* fail(check, `redelivery after the kill: ${tags(results)}`)
      }
      yield* expectReceived(check, options, harness, batch)
    })
  )

/** Every check, by name. */
export const checks = { delivers, redelivery, partialBatch, receiverDown, cleanShutdown, killNine } as const

/** Runs every check in turn; fails with the first failure. */
export const runAll = (options: Options): Effect.Effect<void, ConformanceFailure> =>
  Effect.forEach(Object.values(checks), (check) => check(options), { discard: true })
