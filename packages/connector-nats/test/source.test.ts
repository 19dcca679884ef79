/**
 * The NATS source against a real nats-server with JetStream (one per test, on a free port, in a
 * temporary directory): events and their fields, malformed messages, acknowledgement, redelivery,
 * a server restart, authentication.
 */
import { assert, describe, it } from "@effect/vitest"
import { Connector, ConnectorError, SourceEvent } from "@warden/connector"
import { Cause, Effect, Exit, Fiber, Option, Stream } from "effect"
import { connector } from "../src/index.ts"
import { NatsServer } from "../src/testing/index.ts"
import { freshStream, run, waitUntil } from "./support/Running.ts"

const items = (from: number, count: number, text = "comment") =>
  Array.from({ length: count }, (_, i) => ({ reference: `c-${from + i}`, text: `${text} ${from + i}` }))

describe("events", () => {
  it.live("N published messages become N upserts, in stream order, with every field of the message", () =>
    Effect.gen(function* () {
      const server = yield* NatsServer.scoped()
      const s = yield* freshStream(server, "EVENTS")
      const full = {
        reference: "full",
        text: "hello",
        publishedAt: "2026-11-28T10:00:00Z",
        permalink: "https://example.com/c/full",
        language: "en",
        author: { identifier: "u-7", username: "ada", permalink: "https://example.com/u/7" },
        post: { title: "Release notes", permalink: "https://example.com/p/1" }
      }
      yield* s.publish([
        full,
        { reference: "img", imageUrl: "https://example.com/i.png" },
        { reference: "data", imageData: "aGVsbG8=" },
        { reference: "name", username: "new-member" },
        ...items(1, 21)
      ])
      const source = yield* run(s.config)
      yield* source.waitForUpserts(25)
      const upserts = source.upserts()
      assert.strictEqual(upserts.length, 25)
      assert.deepStrictEqual(
        upserts.map((e) => e.checkpoint),
        Array.from({ length: 25 }, (_, i) => ({ v: 1, seq: i + 1 }))
      )
      assert.deepStrictEqual(upserts[0], {
        kind: "upsert",
        reference: "nats:EVENTS/full",
        checkpoint: { v: 1, seq: 1 },
        content: { type: "text", text: "hello" },
        publishedAt: full.publishedAt,
        permalink: full.permalink,
        language: "en",
        author: full.author,
        post: full.post
      })
      assert.deepStrictEqual(
        upserts.slice(1, 4).map((e) => [e.reference, e.content]),
        [
          ["nats:EVENTS/img", { type: "image", url: "https://example.com/i.png" }],
          ["nats:EVENTS/data", { type: "image", data: "aGVsbG8=" }],
          ["nats:EVENTS/name", { type: "username", username: "new-member" }]
        ]
      )
      assert.deepStrictEqual(
        upserts.slice(4).map((e) => e.reference),
        items(1, 21).map((m) => `nats:EVENTS/${m.reference}`)
      )
      for (const event of upserts) assert.deepStrictEqual(SourceEvent.problems(event), [])
    })
  )

  it.live(
    "a malformed message is emitted for the daemon to dead-letter naming the field, then terminated; its neighbours flow",
    () =>
      Effect.gen(function* () {
        const server = yield* NatsServer.scoped()
        const s = yield* freshStream(server, "MALFORMED")
        yield* s.publish([
          ...items(1, 2),
          { reference: "bad-text", text: 5 },
          { reference: "bad-author", text: "hi", author: { identifier: "u-1" } },
          "not json at all",
          { reference: "x".repeat(250), text: "too long with its prefix" },
          { text: "no reference" },
          { reference: "no-content" },
          ...items(3, 2)
        ])
        const source = yield* run(s.config)
        yield* source.waitForUpserts(10)
        const byProblem = source.upserts().map((e) => SourceEvent.problems(e).map((p) => p.field))
        assert.deepStrictEqual(byProblem, [
          [],
          [],
          ["content.text"],
          ["author.username"],
          ["reference", "content"],
          ["reference"],
          ["reference"],
          ["content"],
          [],
          []
        ])
        assert.deepStrictEqual(
          source
            .upserts()
            .filter((e) => SourceEvent.problems(e).length === 0)
            .map((e) => e.reference),
          ["nats:MALFORMED/c-1", "nats:MALFORMED/c-2", "nats:MALFORMED/c-3", "nats:MALFORMED/c-4"]
        )
        // The daemon never commits a dead-lettered event's checkpoint: acknowledging the last good one
        // leaves nothing pending, the malformed ones having been terminated (never delivered again).
        yield* source.acknowledge(source.upserts().at(-1)!)
        yield* waitUntil(
          async () => (await s.info()).num_ack_pending === 0,
          () => "no message pending"
        )
        const info = yield* Effect.promise(s.info)
        assert.strictEqual(info.num_pending, 0)
        assert.strictEqual(info.num_redelivered, 0)
      })
  )
})

describe("acknowledgement", () => {
  it.live("acknowledge acks every message delivered up to the checkpoint, and no further", () =>
    Effect.gen(function* () {
      const server = yield* NatsServer.scoped()
      const s = yield* freshStream(server, "ACK")
      yield* s.publish(items(1, 10))
      const source = yield* run(s.config)
      yield* source.waitForUpserts(10)
      assert.strictEqual((yield* Effect.promise(s.info)).num_ack_pending, 10)
      yield* source.acknowledge(source.upserts()[3]!)
      yield* waitUntil(
        async () => (await s.info()).num_ack_pending === 6,
        () => "6 pending after acknowledging the 4th"
      )
      // A checkpoint not delivered by this run (another start's, or a foreign value) acks nothing.
      yield* source.source.acknowledge!({ v: 1, seq: 999 })
      yield* source.source.acknowledge!("not a nats checkpoint")
      yield* source.acknowledge(source.upserts()[9]!)
      yield* waitUntil(
        async () => (await s.info()).num_ack_pending === 0,
        () => "nothing pending after acknowledging the last"
      )
      assert.strictEqual((yield* Effect.promise(s.info)).num_pending, 0)
    })
  )

  it.live("without acknowledge, the next start gets every message again; after it, nothing", () =>
    Effect.gen(function* () {
      const server = yield* NatsServer.scoped()
      const s = yield* freshStream(server, "REDELIVER")
      yield* s.publish(items(1, 5))
      const refs = items(1, 5).map((m) => `nats:REDELIVER/${m.reference}`)
      // First start: read, never acknowledged, stopped (as a crash of the daemon before its commit).
      yield* Effect.scoped(
        Effect.gen(function* () {
          const first = yield* run(s.config)
          yield* first.waitForUpserts(5)
        })
      )
      const second = yield* Effect.scoped(
        Effect.gen(function* () {
          const again = yield* run(s.config)
          yield* again.waitForUpserts(5)
          assert.deepStrictEqual(
            again
              .upserts()
              .map((e) => e.reference)
              .sort(),
            refs
          )
          yield* again.acknowledge(again.upserts().at(-1)!)
          yield* waitUntil(
            async () => (await s.info()).num_ack_pending === 0,
            () => "all acknowledged"
          )
          return again.upserts().length
        })
      )
      assert.strictEqual(second, 5)
      // Acknowledged: the server has nothing left to deliver to a third start.
      const info = yield* Effect.promise(s.info)
      assert.strictEqual(info.num_pending + info.num_ack_pending, 0)
    })
  )

  it.live("a message delivered again while the daemon still works on it (ackWait passed) is not emitted twice", () =>
    Effect.gen(function* () {
      const server = yield* NatsServer.scoped()
      const s = yield* freshStream(server, "INFLIGHT", { ackWait: "1 second" })
      yield* s.publish(items(1, 1))
      const source = yield* run(s.config)
      yield* source.waitForUpserts(1)
      // The server delivered it again (ackWait passed without an ack).
      yield* waitUntil(
        async () => (await s.info()).num_redelivered >= 1,
        () => "a redelivery"
      )
      yield* s.publish(items(2, 1))
      yield* source.waitForUpserts(2)
      assert.deepStrictEqual(
        source.upserts().map((e) => e.reference),
        ["nats:INFLIGHT/c-1", "nats:INFLIGHT/c-2"]
      )
      yield* source.acknowledge(source.upserts()[1]!)
      yield* waitUntil(
        async () => (await s.info()).num_ack_pending === 0,
        () => "both acknowledged"
      )
    })
  )
})

describe("upstream trouble", () => {
  it.live(
    "a nats-server restart mid-run: error events, the stream goes on, and messages held across it are acked",
    () =>
      Effect.gen(function* () {
        const server = yield* NatsServer.scoped()
        const s = yield* freshStream(server, "RESTART")
        yield* s.publish(items(1, 3))
        const source = yield* run(s.config)
        yield* source.waitForUpserts(3)
        yield* Effect.promise(() => server.stop("SIGKILL"))
        yield* waitUntil(
          () => source.events.some(SourceEvent.isErrorEvent),
          () => "an error event while the server is down"
        )
        yield* Effect.promise(server.start)
        yield* s.publish(items(4, 3))
        yield* source.waitForUpserts(6)
        assert.isUndefined(source.fiber.pollUnsafe())
        const errors = source.events.filter(SourceEvent.isErrorEvent)
        assert.isTrue(errors.every((e) => e.reason === "Unavailable" && e.retryInMillis > 0))
        assert.deepStrictEqual(
          [
            ...new Set(
              source
                .upserts()
                .slice(0, 6)
                .map((e) => e.reference)
            )
          ],
          items(1, 6).map((m) => `nats:RESTART/${m.reference}`)
        )
        yield* source.acknowledge(source.upserts().at(-1)!)
        yield* waitUntil(
          async () => (await s.info()).num_ack_pending === 0,
          () => "nothing pending"
        )
      })
  )

  it.live("a stream that does not exist yet: error events until it is created, then its messages", () =>
    Effect.gen(function* () {
      const server = yield* NatsServer.scoped()
      const config = { servers: [server.url], stream: "LATER", retry: { initial: "50 millis", max: "200 millis" } }
      const source = yield* run(config)
      yield* waitUntil(
        () => source.events.filter(SourceEvent.isErrorEvent).length >= 2,
        () => "two error events"
      )
      const [first, second] = source.events.filter(SourceEvent.isErrorEvent)
      assert.include(first!.message, "stream not found")
      assert.strictEqual(second!.attempt, first!.attempt + 1)
      yield* Effect.promise(() => NatsServer.createStream(server.url, { name: "LATER", subjects: ["later"] }))
      yield* Effect.promise(() => NatsServer.publish(server.url, "later", [{ reference: "a", text: "b" }]))
      yield* source.waitForUpserts(1)
      assert.strictEqual(source.upserts()[0]!.reference, "nats:LATER/a")
    })
  )

  it.live("a refused token fails the stream as Unauthorized (not retried); the right one reads", () =>
    Effect.gen(function* () {
      const server = yield* NatsServer.scoped(["--auth", "s3cret-token"])
      yield* Effect.promise(() =>
        NatsServer.createStream(server.url, { name: "AUTH", subjects: ["auth"] }, "s3cret-token")
      )
      const wrong = yield* Effect.scoped(
        Effect.flatMap(
          Connector.makeSource(connector, { servers: [server.url], stream: "AUTH", token: "wrong" }),
          (s) => s.events(Option.none()).pipe(Stream.runDrain, Effect.exit)
        )
      )
      assert.isTrue(Exit.isFailure(wrong))
      const error = Exit.isFailure(wrong) ? Cause.findErrorOption(wrong.cause) : Option.none()
      assert.isTrue(Option.isSome(error) && error.value instanceof ConnectorError.ConnectorError)
      const failure = Option.getOrThrow(error) as ConnectorError.ConnectorError
      assert.strictEqual(failure.reason, "Unauthorized")
      assert.isFalse(failure.retryable)
      assert.notInclude(failure.message, "wrong")

      const right = yield* run({ servers: [server.url], stream: "AUTH", token: "s3cret-token" })
      yield* Effect.promise(() =>
        NatsServer.publish(server.url, "auth", [{ reference: "a", text: "b" }], "s3cret-token")
      )
      yield* right.waitForUpserts(1)
      yield* Fiber.interrupt(right.fiber)
    })
  )
})
