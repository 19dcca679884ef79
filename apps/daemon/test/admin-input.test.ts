/**
 * The admin API on input a user gets wrong: never a 500, one error envelope, 400 naming the
 * parameter, 413 over the body limit; a reference several sources recorded is ambiguous (409 naming
 * them) unless `source` is given, and `source` is honoured on every route; lists page with a cursor.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { MAX_BODY_BYTES } from "../src/admin/RequestInput.ts"
import { waitFor } from "./support/DaemonProcess.ts"
import { startSandboxDaemon } from "./support/SandboxDaemon.ts"
import { platformSource } from "./support/TestPlatform.ts"

let t: Awaited<ReturnType<typeof startSandboxDaemon>>
let daemon: Awaited<ReturnType<typeof startSandboxDaemon>>["daemon"]

beforeAll(async () => {
  t = await startSandboxDaemon({
    platforms: 2,
    sources: ([one, two]) => [platformSource(one!, { id: "one" }), platformSource(two!, { id: "two" })]
  })
  daemon = t.daemon
  const [one, two] = t.platforms
  // The same reference on two platforms: e.g. two RSS sources reading one feed.
  one!.publish({ kind: "upsert", reference: "shared/1", text: "You are an idiot" })
  two!.publish({ kind: "upsert", reference: "shared/1", text: "Thank you, lovely article" })
  two!.publish({ kind: "upsert", reference: "only-two/1", text: "Hello there" })
  await waitFor(async () => (await daemon.admin("/api/decisions")).body.decisions?.length === 3, 20_000, "decisions")
})
afterAll(() => t?.close())

describe("a reference recorded by several sources", () => {
  it("is ambiguous without source: 409 naming the sources, on decisions and on feedback", async () => {
    const decision = await daemon.admin("/api/decisions/shared%2F1")
    expect(decision.status).toBe(409)
    expect(decision.body.error).toMatchObject({ code: "AMBIGUOUS_REFERENCE", sources: ["one", "two"] })
    const feedback = await daemon.admin("/api/feedback", {
      method: "POST",
      body: JSON.stringify({ reference: "shared/1", notes: "banter" })
    })
    expect(feedback.status).toBe(409)
    expect(feedback.body.error).toMatchObject({ code: "AMBIGUOUS_REFERENCE", sources: ["one", "two"] })
  })

  it("source is honoured: each source's own versions, actions and feedback", async () => {
    const a = await daemon.admin("/api/decisions/shared%2F1?source=one")
    expect(a.status).toBe(200)
    expect(a.body.versions.map((v: { source: string }) => v.source)).toEqual(["one"])
    const b = await daemon.admin("/api/decisions/shared%2F1?source=two")
    expect(b.body.versions.map((v: { source: string }) => v.source)).toEqual(["two"])
    expect(b.body.latest.request.text).toBe("Thank you, lovely article")
    const sent = await daemon.admin("/api/feedback", {
      method: "POST",
      body: JSON.stringify({ reference: "shared/1", source: "one", notes: "banter" })
    })
    expect(sent.status).toBe(200)
    expect(sent.body).toMatchObject({ source: "one", reference: "shared/1" })
    expect((await daemon.admin("/api/decisions/shared%2F1?source=one")).body.feedback).toHaveLength(1)
    expect((await daemon.admin("/api/decisions/shared%2F1?source=two")).body.feedback).toHaveLength(0)
    expect((await daemon.admin("/api/decisions/only-two%2F1?source=one")).status).toBe(404)
  })

  it("a reference one source recorded needs no source", async () => {
    const only = await daemon.admin("/api/decisions/only-two%2F1")
    expect(only.status).toBe(200)
    expect(only.body.source).toBe("two")
  })
})

/** Every error answer has this shape, whatever the route and the status. */
const expectEnvelope = (body: any) => {
  expect(Object.keys(body)).toEqual(["error"])
  expect(typeof body.error.code).toBe("string")
  expect(typeof body.error.message).toBe("string")
}

describe("bad input on every admin route", () => {
  const post = (body: string): RequestInit => ({ method: "POST", body })
  const cases: ReadonlyArray<
    readonly [name: string, path: string, init: RequestInit, status: number, code: string, parameter?: string]
  > = [
    ["a reference that is not valid percent-encoding", "/api/decisions/%ZZ", {}, 400, "BAD_REQUEST", "reference"],
    ["a NUL in source", "/api/decisions?source=%00", {}, 400, "BAD_REQUEST", "source"],
    ["a NUL in a reference", "/api/decisions/a%00b", {}, 400, "BAD_REQUEST", "reference"],
    ["limit=abc", "/api/decisions?limit=abc", {}, 400, "BAD_REQUEST", "limit"],
    ["limit=0", "/api/decisions?limit=0", {}, 400, "BAD_REQUEST", "limit"],
    ["limit=-1", "/api/decisions?limit=-1", {}, 400, "BAD_REQUEST", "limit"],
    ["limit over 1000", "/api/decisions?limit=1001", {}, 400, "BAD_REQUEST", "limit"],
    ["since=garbage", "/api/decisions?since=garbage", {}, 400, "BAD_REQUEST", "since"],
    ["an unknown parameter", "/api/decisions?sorce=one", {}, 400, "BAD_REQUEST", "sorce"],
    ["a parameter given twice", "/api/decisions?limit=1&limit=2", {}, 400, "BAD_REQUEST", "limit"],
    ["a forged cursor", "/api/decisions?cursor=bm9wZQ", {}, 400, "BAD_REQUEST", "cursor"],
    ["an unknown parameter on one decision", "/api/decisions/only-two%2F1?limit=1", {}, 400, "BAD_REQUEST", "limit"],
    ["a parameter on /readyz", "/readyz?verbose=1", {}, 400, "BAD_REQUEST", "verbose"],
    ["a parameter on /metrics", "/metrics?x=1", {}, 400, "BAD_REQUEST", "x"],
    ["feedback with a body that is not JSON", "/api/feedback", post("{nope"), 400, "BAD_REQUEST"],
    ["feedback with an empty body", "/api/feedback", post(""), 400, "BAD_REQUEST"],
    ["feedback with an unknown field", "/api/feedback", post('{"reference":"x","nots":"a"}'), 400, "BAD_REQUEST"],
    ["feedback with none of the three inputs", "/api/feedback", post('{"reference":"only-two/1"}'), 400, "BAD_REQUEST"],
    [
      "feedback with a NUL in source",
      "/api/feedback",
      post(JSON.stringify({ reference: "x", source: "a\u0000", notes: "n" })),
      400,
      "BAD_REQUEST"
    ],
    [
      "feedback on a reference never seen",
      "/api/feedback",
      post('{"reference":"nope","notes":"x"}'),
      404,
      "NOT_ANALYSED"
    ],
    ["an unknown route", "/api/nothing", {}, 404, "NOT_FOUND"],
    ["a wrong method", "/api/decisions", { method: "DELETE" }, 404, "NOT_FOUND"],
    ["an unknown reference", "/api/decisions/none", {}, 404, "NOT_FOUND"]
  ]
  for (const [name, path, init, status, code, parameter] of cases) {
    it(`${name}: ${status} ${code}, never a 500`, async () => {
      const res = await daemon.admin(path, init)
      expect(res.status).toBe(status)
      expectEnvelope(res.body)
      expect(res.body.error.code).toBe(code)
      if (parameter !== undefined) {
        expect(res.body.error.parameter).toBe(parameter)
        expect(res.body.error.message.startsWith(`${parameter}: `)).toBe(true)
      }
    })
  }

  it("a JSON route refuses a body of another Content-Type, or without one, with a 415 in the envelope", async () => {
    const body = JSON.stringify({ reference: "nope", notes: "x" })
    const send = (headers: Record<string, string>, payload: BodyInit) =>
      fetch(`${daemon.adminUrl}/api/feedback`, {
        method: "POST",
        headers: { authorization: "Bearer test-admin-token", ...headers },
        body: payload
      })
    const plain = await send({ "content-type": "text/plain" }, body)
    expect(plain.status).toBe(415)
    expect(plain.headers.get("content-type")).toContain("application/json")
    const refused = await plain.json()
    expectEnvelope(refused)
    expect(refused.error).toEqual({
      code: "UNSUPPORTED_MEDIA_TYPE",
      message: "Content-Type text/plain is not taken here: send application/json"
    })
    // A byte body: fetch adds no Content-Type (HttpApi alone would have read it as JSON).
    const untyped = await send({}, new TextEncoder().encode(body))
    expect(untyped.status).toBe(415)
    expect((await untyped.json()).error).toEqual({
      code: "UNSUPPORTED_MEDIA_TYPE",
      message: "the body needs Content-Type: application/json"
    })
    // The JSON type with its parameters is the JSON type.
    const json = await send({ "content-type": "Application/JSON; charset=utf-8" }, body)
    expect(json.status).toBe(404)
    expect((await json.json()).error.code).toBe("NOT_ANALYSED")
  })

  it("a missing token is a 401 in the same envelope", async () => {
    const res = await fetch(`${daemon.adminUrl}/api/decisions`)
    expect(res.status).toBe(401)
    expect(res.headers.get("www-authenticate")).toBe("Bearer")
    expectEnvelope(await res.json())
  })

  it("a body over the documented limit is a 413 with the envelope, not a closed connection", async () => {
    const big = JSON.stringify({ reference: "x", notes: "a".repeat(2 * 1024 * 1024) })
    const res = await daemon.admin("/api/feedback", { method: "POST", body: big })
    expect(res.status).toBe(413)
    expectEnvelope(res.body)
    expect(res.body.error.code).toBe("PAYLOAD_TOO_LARGE")
    expect(res.body.error.message).toContain(String(MAX_BODY_BYTES))
    // One byte under the limit is read (and refused for what it says, not for its size).
    const fits = JSON.stringify({ reference: "nope", notes: "a".repeat(MAX_BODY_BYTES - 40) })
    expect((await daemon.admin("/api/feedback", { method: "POST", body: fits })).status).toBe(404)
  })
})

describe("paging decisions", () => {
  it("a cursor walks every decision once, newest first, past any page size", async () => {
    const seen: Array<string> = []
    let cursor: string | null = null
    let pages = 0
    do {
      const res: { status: number; body: any } = await daemon.admin(
        `/api/decisions?limit=1${cursor === null ? "" : `&cursor=${cursor}`}`
      )
      expect(res.status).toBe(200)
      for (const d of res.body.decisions) seen.push(`${d.source}:${d.reference}:${d.version}`)
      cursor = res.body.nextCursor
      pages++
    } while (cursor !== null && pages < 10)
    expect(pages).toBe(3)
    expect(seen.sort()).toEqual(["one:shared/1:1", "two:only-two/1:1", "two:shared/1:1"])
    const all = await daemon.admin("/api/decisions")
    expect(all.body.nextCursor).toBeNull()
  })

  it("filters keep working with the cursor", async () => {
    const first = await daemon.admin("/api/decisions?source=two&limit=1")
    expect(first.body.decisions).toHaveLength(1)
    const second = await daemon.admin(`/api/decisions?source=two&limit=1&cursor=${first.body.nextCursor}`)
    expect(second.body.decisions).toHaveLength(1)
    expect(second.body.nextCursor).toBeNull()
    expect(second.body.decisions[0].reference).not.toBe(first.body.decisions[0].reference)
  })
})
