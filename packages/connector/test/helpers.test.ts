import * as NodeHttp from "node:http"
import type { AddressInfo } from "node:net"
import { assert, describe, it } from "@effect/vitest"
import { Backoff, Checkpoint, Http, SourceEvent } from "@warden/connector"
import { Duration, Effect, Exit, Option, Schedule, Schema } from "effect"

const upsert = (fields: Record<string, unknown>) => ({
  kind: "upsert",
  reference: "hn:1",
  checkpoint: { seq: 1 },
  content: { type: "text", text: "hello" },
  ...fields
})

describe("SourceEvent.problems", () => {
  it("names a reference over 256 characters", () => {
    const problems = SourceEvent.problems(upsert({ reference: "x".repeat(325) }))
    assert.deepStrictEqual(
      problems.map((p) => p.field),
      ["reference"]
    )
    assert.include(problems[0]!.message, "256")
  })
  it("names the field of a checkpoint holding a BigInt", () => {
    const problems = SourceEvent.problems(upsert({ checkpoint: { cursor: { seq: 40n } } }))
    assert.deepStrictEqual(problems, [{ field: "checkpoint.cursor.seq", message: "a bigint is not JSON" }])
  })
  it("names content that fails the schema", () => {
    const problems = SourceEvent.problems(upsert({ content: { type: "text" } }))
    assert.deepStrictEqual(
      problems.map((p) => p.field),
      ["content.text"]
    )
  })
  it("names every problem of an event, not only the first", () => {
    const problems = SourceEvent.problems(upsert({ reference: "", content: { type: "text" }, permalink: 7 }))
    assert.deepStrictEqual(problems.map((p) => p.field).sort(), ["content.text", "permalink", "reference"])
  })
  it("is empty for a valid event", () => {
    assert.deepStrictEqual(SourceEvent.problems(upsert({})), [])
  })
})

describe("Checkpoint.decode", () => {
  const Position = Schema.Struct({ seq: Schema.Int })
  it.effect("decodes a checkpoint the connector wrote, none when there is none", () =>
    Effect.gen(function* () {
      assert.deepStrictEqual(yield* Checkpoint.decode(Position, "hn")(Option.some({ seq: 3 })), Option.some({ seq: 3 }))
      assert.deepStrictEqual(yield* Checkpoint.decode(Position, "hn")(Option.none()), Option.none())
    })
  )
  it.effect("maps a foreign checkpoint to a non-retryable InvalidCheckpoint naming the field", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(Checkpoint.decode(Position, "hn")(Option.some({ seq: "x" })))
      assert.strictEqual(error.reason, "InvalidCheckpoint")
      assert.strictEqual(error.retryable, false)
      assert.include(error.message, "seq")
    })
  )
})

describe("Backoff", () => {
  const backoff = { initial: Duration.seconds(1), max: Duration.seconds(10) }
  it("doubles per attempt up to max, jittered by at most 20%", () => {
    assert.deepStrictEqual(
      [1, 2, 3, 4, 5, 50].map((a) => Backoff.baseMillis(backoff, a)),
      [1000, 2000, 4000, 8000, 10_000, 10_000]
    )
    assert.strictEqual(
      Backoff.delayMillis(backoff, 1, () => 0),
      800
    )
    assert.strictEqual(
      Backoff.delayMillis(backoff, 1, () => 1),
      1200
    )
  })
  it.effect("the Schedule waits what delay() says, within the jitter", () =>
    Effect.gen(function* () {
      const step = yield* Schedule.toStep(Backoff.schedule(backoff))
      for (let attempt = 1; attempt <= 6; attempt++) {
        const [, delay] = yield* step(0, undefined)
        const base = Backoff.baseMillis(backoff, attempt)
        const millis = Duration.toMillis(delay)
        assert.isTrue(millis >= base * 0.8 && millis <= base * 1.2, `attempt ${attempt}: ${millis} vs ${base}`)
      }
    })
  )
  it("its config schema has defaults and refuses initial above max", () => {
    const Settings = Backoff.Settings({ initial: "1 second", max: "5 minutes" })
    const Config = Schema.Struct({ retry: Settings })
    const decoded = Schema.decodeUnknownSync(Config)({})
    assert.strictEqual(Duration.toMillis(decoded.retry.max), 300_000)
    const bad = Schema.decodeUnknownExit(Config)({ retry: { initial: "10 minutes" } })
    assert.isTrue(Exit.isFailure(bad))
  })
})

describe("Http", () => {
  it.live("reads an answer and leaves no socket open", () =>
    Effect.gen(function* () {
      const server = NodeHttp.createServer((req, res) => {
        res.writeHead(req.url?.startsWith("/missing") ? 404 : 200, { "content-type": "application/json" })
        res.end(JSON.stringify([{ id: 1 }]))
      })
      yield* Effect.acquireRelease(
        Effect.callback<void>((resume) => {
          server.listen(0, "127.0.0.1", () => resume(Effect.void))
        }),
        () =>
          Effect.callback<void>((resume) => {
            server.close(() => resume(Effect.void))
          })
      )
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
      const items = yield* Http.getJson("hn", Schema.Array(Schema.Struct({ id: Schema.Int })), { url: `${url}/items` })
      assert.deepStrictEqual(items, [{ id: 1 }])
      const missing = yield* Effect.flip(Http.getJson("hn", Schema.Unknown, { url: `${url}/missing?token=secret` }))
      assert.strictEqual(missing.reason, "InvalidResponse")
      assert.notInclude(missing.message, "secret")
      // The server sees no connection left once the answers are read.
      for (let i = 0; i < 40; i++) {
        const open = yield* Effect.callback<number>((resume) => {
          server.getConnections((_, n) => resume(Effect.succeed(n)))
        })
        if (open === 0) return
        yield* Effect.sleep("25 millis")
      }
      assert.fail("a connection stayed open")
    }).pipe(Effect.scoped)
  )
  it.live("a refused connection is a retryable Unavailable", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(Http.request("hn", { url: "http://127.0.0.1:1/" }))
      assert.strictEqual(error.reason, "Unavailable")
      assert.isTrue(error.retryable)
    })
  )
})
