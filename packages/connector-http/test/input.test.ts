/**
 * What the listener decodes before anything is recorded: the config (secrets marked and redacted), the
 * Standard Webhooks signature and bearer token, a posted item's per-field problems, the rate limit.
 */
import { randomBytes } from "node:crypto"
import { Connector, ConfigField } from "@warden/connector"
import { Effect, Redacted } from "effect"
import { describe, expect, it } from "vitest"
import { Authentication, connector, ItemInput, RateLimit } from "../src/index.ts"

const SECRET = `whsec_${randomBytes(24).toString("base64")}`
const TOKEN = "a-token-of-at-least-16-characters"

const decodeConfig = (input: unknown) => Effect.runPromise(Effect.result(Connector.decodeConfig(connector, input)))

describe("the http source's config", () => {
  it("decodes with its defaults; the secrets are Redacted and marked secret", async () => {
    const result = await decodeConfig({
      clients: [
        { name: "a", signingSecret: SECRET },
        { name: "b", bearer: TOKEN }
      ]
    })
    if (result._tag !== "Success") throw new Error(result.failure.message)
    expect(result.success.listen).toBe("0.0.0.0:8788")
    expect(result.success.maxItemsPerRequest).toBe(100)
    expect(result.success.maxBodyBytes).toBe(1024 * 1024)
    const [a] = result.success.clients
    expect(a?.signingSecret !== undefined && Redacted.isRedacted(a.signingSecret)).toBe(true)
    expect(ConfigField.secretFields(connector.configSchema).map((f) => f.path.join("."))).toEqual(
      expect.arrayContaining(["clients.*.bearer", "clients.*.signingSecret"])
    )
  })

  it("refuses two clients of one name", async () => {
    const result = await decodeConfig({
      clients: [
        { name: "b", bearer: TOKEN },
        { name: "b", signingSecret: SECRET }
      ]
    })
    expect(result._tag === "Failure" && result.failure.message).toContain("a second client named 'b'")
  })

  it("refuses more than 100 items per request, a secret that is not whsec_, a token and a secret", async () => {
    const result = await decodeConfig({
      maxItemsPerRequest: 101,
      clients: [
        { name: "a", signingSecret: "not-a-secret" },
        { name: "b", bearer: TOKEN },
        { name: "c", bearer: TOKEN, signingSecret: SECRET }
      ]
    })
    expect(result._tag).toBe("Failure")
    if (result._tag !== "Failure") return
    expect(result.failure.message).toContain("maxItemsPerRequest")
    expect(result.failure.message).toContain("clients")
    expect(result.failure.message).toContain("give one of bearer or signingSecret")
  })
})

describe("authentication", () => {
  const known = Authentication.prepare([
    { name: "signed", signingSecret: Redacted.make(SECRET) },
    { name: "bearer", bearer: Redacted.make(TOKEN) }
  ])
  const key = Buffer.from(SECRET.slice("whsec_".length), "base64")
  const body = Buffer.from('{"reference":"a","text":"hi"}')
  const now = 1_800_000_000

  it("takes a signature over the raw body within 5 minutes, and a bearer token", () => {
    const headers = {
      "webhook-id": "msg_1",
      "webhook-timestamp": String(now),
      "webhook-signature": Authentication.sign(key, "msg_1", now, body)
    }
    expect(Authentication.authenticate(known, headers, body, now + 299)).toEqual({ client: "signed" })
    // several signatures (a sender rotating its secret): one matching is enough
    expect(
      Authentication.authenticate(
        known,
        { ...headers, "webhook-signature": `v1,AAAA ${headers["webhook-signature"]}` },
        body,
        now
      )
    ).toEqual({ client: "signed" })
    expect(Authentication.authenticate(known, { authorization: `Bearer ${TOKEN}` }, body, now)).toEqual({
      client: "bearer"
    })
  })

  it("refuses a changed body, an old or future timestamp, another id, a wrong token, a lower-case scheme, nothing", () => {
    const headers = {
      "webhook-id": "msg_1",
      "webhook-timestamp": String(now),
      "webhook-signature": Authentication.sign(key, "msg_1", now, body)
    }
    const refused = (reason: string) => ({ refused: reason })
    expect(Authentication.authenticate(known, headers, Buffer.from('{"reference":"b","text":"hi"}'), now)).toEqual(
      refused("REASON_INVALID_CREDENTIALS")
    )
    expect(Authentication.authenticate(known, headers, body, now + 301)).toEqual(refused("REASON_EXPIRED_CREDENTIALS"))
    expect(Authentication.authenticate(known, headers, body, now - 301)).toEqual(refused("REASON_EXPIRED_CREDENTIALS"))
    expect(Authentication.authenticate(known, { ...headers, "webhook-id": "msg_2" }, body, now)).toEqual(
      refused("REASON_INVALID_CREDENTIALS")
    )
    expect(Authentication.authenticate(known, { authorization: "Bearer wrong-token-wrong-token" }, body, now)).toEqual(
      refused("REASON_INVALID_CREDENTIALS")
    )
    expect(Authentication.authenticate(known, { authorization: `bearer ${TOKEN}` }, body, now)).toEqual(
      refused("REASON_INVALID_CREDENTIALS")
    )
    expect(Authentication.authenticate(known, {}, body, now)).toEqual(refused("REASON_MISSING_CREDENTIALS"))
  })
})

describe("a posted item", () => {
  it("maps the analyze request's fields to the pushed item", () => {
    expect(
      ItemInput.decode(
        {
          reference: "c-1",
          text: "hello",
          language: "en",
          publishedAt: "2026-11-28T10:00:00Z",
          author: { identifier: "u-7", username: "ada" },
          post: { title: "Release notes" }
        },
        ""
      )
    ).toEqual({
      _tag: "Item",
      item: {
        reference: "c-1",
        content: { type: "text", text: "hello" },
        language: "en",
        publishedAt: "2026-11-28T10:00:00Z",
        author: { identifier: "u-7", username: "ada" },
        post: { title: "Release notes" }
      }
    })
    expect(ItemInput.decode({ reference: "i", imageUrl: "https://example.com/a.png" }, "")).toMatchObject({
      item: { content: { type: "image", url: "https://example.com/a.png" } }
    })
  })

  it("names every problem by its field, prefixed with the item's place", () => {
    const decoded = ItemInput.decode(
      { reference: "", text: "a", username: "b", language: "english", author: { username: 3 }, extra: 1 },
      "items[4]."
    )
    expect(decoded._tag).toBe("Invalid")
    if (decoded._tag !== "Invalid") return
    const fields = decoded.violations.map((v) => v.field)
    expect(fields).toEqual(
      expect.arrayContaining([
        "items[4].reference",
        "items[4].language",
        "items[4].author.username",
        "items[4].extra",
        "items[4].username"
      ])
    )
    expect(ItemInput.decode({ reference: "r" }, "")).toMatchObject({
      _tag: "Invalid",
      violations: [{ field: "text", message: "one of text, imageUrl, imageData or username is required" }]
    })
  })
})

describe("the rate limit", () => {
  it("lets a burst through, then refuses with the seconds to wait, and refills at the rate", () => {
    const bucket = RateLimit.bucket("forum", { perSecond: 2, burst: 3 })
    expect([bucket.take(1000), bucket.take(1000), bucket.take(1000)]).toEqual([0, 0, 0])
    expect(bucket.take(1000)).toBe(1)
    expect(bucket.take(1500)).toBe(0)
    expect(bucket.take(1500)).toBeGreaterThan(0)
    expect(bucket.quotaName).toBe("warden.http.forum.requests_per_second")
  })
})
