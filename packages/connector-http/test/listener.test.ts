/**
 * The listener alone, on a host of the test's own (no daemon): what reaches the host and what every
 * refusal looks like. A body over the limit is 413, an invalid lone item or a batch with no valid item is
 * 400 naming every field, a state that cannot record is 503 TRANSIENT_ERROR (nothing accepted), a check
 * asks the host for no more than the source's deadline.
 */
import type { PushHost } from "@warden/connector"
import { Connector, PushHost as Host } from "@warden/connector"
import { Effect, Exit, Option, Scope, Stream } from "effect"
import { afterEach, describe, expect, it } from "vitest"
import { connector, Listener } from "../src/index.ts"

const TOKEN = "a-token-of-at-least-16-characters"
const scopes: Array<Scope.Closeable> = []
afterEach(async () => {
  for (const scope of scopes.splice(0)) await Effect.runPromise(Scope.close(scope, Exit.void))
})

const start = async (host: Partial<PushHost.PushHostShape>, config: Record<string, unknown> = {}) => {
  const decoded = await Effect.runPromise(
    Connector.decodeConfig(connector, {
      listen: "127.0.0.1:0",
      clients: [{ name: "t", bearer: TOKEN }],
      maxBodyBytes: 2048,
      maxItemsPerRequest: 3,
      check: { deadline: "300 millis" },
      ...config
    })
  )
  const full: PushHost.PushHostShape = {
    source: "site",
    receive: () => Effect.void,
    check: (item) =>
      Effect.succeed({
        decision: "allow",
        reference: item.reference,
        version: 1,
        verdict: null,
        rule: null,
        actions: [],
        decidedBy: "verdict"
      }),
    events: () => Stream.never,
    acknowledge: () => Effect.void,
    ...host
  }
  const scope = await Effect.runPromise(Scope.make())
  scopes.push(scope)
  const { url } = await Effect.runPromise(Scope.provide(Listener.serve("site", decoded, full), scope))
  const post = async (path: string, body: string, headers: Record<string, string> = {}) => {
    const response = await fetch(`${url}${path}`, {
      method: "POST",
      body,
      headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json", ...headers }
    })
    return { status: response.status, body: (await response.json()) as any }
  }
  return { url, post }
}

const violations = (body: any): Array<{ field: string }> => body.error.details.badRequestError.fieldViolations

describe("the listener", () => {
  it("hands the valid items to the host in order, and answers 202 only after it returned", async () => {
    const received: Array<ReadonlyArray<PushHost.PushItem>> = []
    const { post } = await start({
      receive: (items) =>
        Effect.sleep("50 millis").pipe(
          Effect.andThen(
            Effect.sync(() => {
              received.push(items)
            })
          )
        )
    })
    const answer = await post(
      "/v1/items",
      JSON.stringify([{ reference: "a", text: "x" }, { reference: "b" }, { reference: "c", username: "cy" }])
    )
    expect(answer.status).toBe(202)
    expect(received.map((batch) => batch.map((i) => i.reference))).toEqual([["a", "c"]])
    expect(answer.body.items.map((i: any) => i.status)).toEqual(["accepted", "rejected", "accepted"])
  })

  it("refuses a batch with no valid item (400, every field), too many items, a body over the limit, a non-JSON type", async () => {
    const received: Array<unknown> = []
    const { post } = await start({ receive: (items) => Effect.sync(() => void received.push(items)) })
    const none = await post("/v1/items", JSON.stringify({ items: [{ reference: "a" }, { text: "x" }] }))
    expect(none.status).toBe(400)
    expect(violations(none.body).map((v) => v.field)).toEqual(["items[0].text", "items[1].reference"])
    const many = await post(
      "/v1/items",
      JSON.stringify(Array.from({ length: 4 }, (_, i) => ({ reference: `r${i}`, text: "x" })))
    )
    expect(many.status).toBe(400)
    expect(violations(many.body)[0]?.field).toBe("items")
    const big = await post("/v1/items", JSON.stringify({ reference: "a", text: "x".repeat(3000) }))
    expect(big.status).toBe(413)
    expect(big.body.error.code).toBe("BAD_REQUEST_ERROR")
    const text = await post("/v1/items", JSON.stringify({ reference: "a", text: "x" }), {
      "content-type": "text/plain"
    })
    expect(text.status).toBe(400)
    expect(violations(text.body)[0]?.field).toBe("Content-Type")
    const notJson = await post("/v1/items", "{nope")
    expect(notJson.status).toBe(400)
    expect(received).toEqual([])
  })

  it("answers 503 TRANSIENT_ERROR when the host cannot record: nothing was accepted", async () => {
    const { post } = await start({
      receive: () => Effect.fail(new Host.PushHostError({ message: "disk full" })),
      check: () => Effect.fail(new Host.PushHostError({ message: "disk full" }))
    })
    const items = await post("/v1/items", JSON.stringify({ reference: "a", text: "x" }))
    expect(items.status).toBe(503)
    expect(items.body.error.code).toBe("TRANSIENT_ERROR")
    expect((await post("/v1/check", JSON.stringify({ reference: "a", text: "x" }))).status).toBe(503)
  })

  it("asks the host for the source's deadline at most; a request may ask for less", async () => {
    const asked: Array<number> = []
    const { post } = await start({
      check: (item, deadline) =>
        Effect.sync(() => {
          asked.push(deadline)
          return {
            decision: "review" as const,
            reference: item.reference,
            version: null,
            verdict: null,
            rule: null,
            actions: [],
            decidedBy: "failureMode" as const
          }
        })
    })
    const body = JSON.stringify({ reference: "a", text: "x" })
    expect((await post("/v1/check", body)).body).toMatchObject({ decision: "review", decidedBy: "failureMode" })
    await post("/v1/check?deadlineMillis=100", body)
    await post("/v1/check?deadlineMillis=100000", body)
    expect(asked).toEqual([300, 100, 300])
    const bad = await post("/v1/check?deadlineMillis=-1", body)
    expect(bad.status).toBe(400)
    expect(violations(bad.body)[0]?.field).toBe("deadlineMillis")
    const two = await post(
      "/v1/check",
      JSON.stringify({ reference: "a", text: "x", imageUrl: "https://example.com/a.png" })
    )
    expect(two.status).toBe(400)
    expect(violations(two.body)[0]?.field).toBe("imageUrl")
  })

  it("without the daemon's host, the source's stream fails at once, not retried", async () => {
    const source = await Effect.runPromise(
      Effect.scoped(Connector.makeSource(connector, { clients: [{ name: "t", bearer: TOKEN }] }))
    )
    const exit = await Effect.runPromise(Effect.exit(Stream.runDrain(source.events(Option.none()))))
    expect(Exit.isFailure(exit)).toBe(true)
    expect(JSON.stringify(exit)).toContain('"retryable":false')
  })
})
