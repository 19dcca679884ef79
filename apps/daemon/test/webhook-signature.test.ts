/**
 * The webhook sink signs the Standard Webhooks way: a receiver written from that specification (not
 * from our code) accepts a delivery, refuses the same request replayed (id seen), replayed late
 * (timestamp outside its tolerance) or with a tampered body; retries keep the id; the deprecated
 * `X-Warden-Signature` is still sent for one release.
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto"
import { createServer, type IncomingHttpHeaders } from "node:http"
import type { AddressInfo } from "node:net"
import { Effect, Redacted } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as QueuedRecord from "../src/sinks/QueuedRecord.ts"
import * as WebhookSink from "../src/sinks/WebhookSink.ts"
import { verdictRecord } from "./support/ItemRecords.ts"

const record = verdictRecord("r/1")

const keyBytes = randomBytes(24)
const SECRET = `whsec_${keyBytes.toString("base64")}`
const TOLERANCE_SECONDS = 5 * 60

/** A receiver following standardwebhooks.com: tolerance, then signature, then replay by id. */
const startReceiver = async () => {
  const seen = new Set<string>()
  const captured: Array<{ headers: IncomingHttpHeaders; body: string }> = []
  let skewSeconds = 0
  const verify = (headers: IncomingHttpHeaders, body: string): [number, string] => {
    const id = headers["webhook-id"]
    const timestamp = Number(headers["webhook-timestamp"])
    const signatures = String(headers["webhook-signature"] ?? "").split(" ")
    if (typeof id !== "string" || !Number.isInteger(timestamp)) return [400, "missing headers"]
    const now = Math.floor(Date.now() / 1000) + skewSeconds
    if (Math.abs(now - timestamp) > TOLERANCE_SECONDS) return [400, "timestamp outside tolerance"]
    const expected = createHmac("sha256", keyBytes).update(`${id}.${timestamp}.${body}`).digest()
    const ok = signatures.some((s) => {
      const [version, value] = s.split(",")
      const given = Buffer.from(value ?? "", "base64")
      return version === "v1" && given.length === expected.length && timingSafeEqual(given, expected)
    })
    if (!ok) return [400, "bad signature"]
    if (seen.has(id)) return [409, "replayed"]
    seen.add(id)
    return [204, "ok"]
  }
  const server = createServer((req, res) => {
    let body = ""
    req.on("data", (c) => {
      body += c
    })
    req.on("end", () => {
      captured.push({ headers: req.headers, body })
      const [status, why] = verify(req.headers, body)
      res.writeHead(status, { "x-why": why })
      res.end()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`
  /** Sends a captured request again, as an attacker who recorded it would. */
  const replay = async (headers: IncomingHttpHeaders, body: string) => {
    const res = await fetch(url, {
      method: "POST",
      headers: Object.fromEntries(
        Object.entries(headers).filter(([k]) => k.startsWith("webhook-") || k === "content-type")
      ) as Record<string, string>,
      body
    })
    return { status: res.status, why: res.headers.get("x-why") }
  }
  return {
    url,
    captured,
    replay,
    forget: () => seen.clear(),
    skew: (seconds: number) => {
      skewSeconds = seconds
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve()))
  }
}

describe("Standard Webhooks signatures", () => {
  let receiver: Awaited<ReturnType<typeof startReceiver>>
  beforeAll(async () => {
    receiver = await startReceiver()
  })
  afterAll(() => receiver.close())

  const deliver = () => {
    const sink = WebhookSink.make({ name: "hook", url: receiver.url, secret: Redacted.make(SECRET) })
    return Effect.runPromise(sink.deliver([QueuedRecord.fromRecord(record)]))
  }

  it("a verifying receiver accepts the delivery and refuses it replayed, replayed late, or tampered", async () => {
    expect(await deliver()).toEqual([undefined])
    const original = receiver.captured[0]!
    expect(original.headers["webhook-signature"]).toMatch(/^v1,[A-Za-z0-9+/]+=*$/u)

    expect(await receiver.replay(original.headers, original.body)).toEqual({ status: 409, why: "replayed" })
    expect(await receiver.replay(original.headers, original.body.replace("HIGH", "LOW"))).toEqual({
      status: 400,
      why: "bad signature"
    })
    // Even a receiver that has forgotten the id refuses the request six minutes later.
    receiver.forget()
    receiver.skew(6 * 60)
    expect(await receiver.replay(original.headers, original.body)).toEqual({
      status: 400,
      why: "timestamp outside tolerance"
    })
    receiver.skew(0)
  })

  it("a retry of the same delivery carries the same webhook-id and a fresh timestamp and signature", async () => {
    const before = receiver.captured.length
    await deliver()
    await deliver()
    const [a, b] = receiver.captured.slice(before)
    expect(a!.headers["webhook-id"]).toBe(b!.headers["webhook-id"])
    expect(a!.headers["webhook-id"]).toMatch(/^msg_[A-Za-z0-9_-]+$/u)
    expect(Number(b!.headers["webhook-timestamp"])).toBeGreaterThanOrEqual(Number(a!.headers["webhook-timestamp"]))
    // b is signed over its own id, timestamp and body, not given a's signature again
    const signed = `${b!.headers["webhook-id"]}.${b!.headers["webhook-timestamp"]}.${b!.body}`
    expect(String(b!.headers["webhook-signature"]).split(" ")).toContain(
      `v1,${createHmac("sha256", keyBytes).update(signed).digest("base64")}`
    )
  })

  it("still sends the deprecated X-Warden-Signature (HMAC-SHA256 hex of the body with the secret) for one release", async () => {
    const before = receiver.captured.length
    await deliver()
    const sent = receiver.captured[before]!
    expect(sent.headers["x-warden-signature"]).toBe(
      `sha256=${createHmac("sha256", SECRET).update(sent.body).digest("hex")}`
    )
  })

  it("a secret not in the whsec_ form is used as its UTF-8 bytes", () => {
    const headers = WebhookSink.standardHeaders(Redacted.make("plain-secret"), "msg_1", 1700000000, "{}")
    expect(headers["webhook-signature"]).toBe(
      `v1,${createHmac("sha256", Buffer.from("plain-secret")).update("msg_1.1700000000.{}").digest("base64")}`
    )
  })
})
