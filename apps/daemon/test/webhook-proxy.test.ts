/** The webhook sink goes through HTTP_PROXY when it is set, and straight to the host NO_PROXY names. */
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { Effect, Redacted } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as QueuedRecord from "../src/sinks/QueuedRecord.ts"
import * as WebhookSink from "../src/sinks/WebhookSink.ts"
import { verdictRecord } from "./support/ItemRecords.ts"

const record = verdictRecord("p/1")

describe("the webhook sink behind a proxy", () => {
  const seen: Array<{ url: string; signature: string | undefined }> = []
  const proxy = createServer((req, res) => {
    seen.push({ url: req.url ?? "", signature: req.headers["webhook-signature"] as string | undefined })
    req.resume()
    req.on("end", () => {
      res.writeHead(204)
      res.end()
    })
  })
  const saved = { ...process.env }
  beforeAll(async () => {
    await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve))
    process.env.HTTP_PROXY = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`
  })
  afterAll(async () => {
    process.env = saved
    await new Promise<void>((resolve) => proxy.close(() => resolve()))
  })

  const deliver = (url: string) =>
    Effect.runPromise(
      WebhookSink.make({
        name: "hook",
        url,
        secret: Redacted.make("s3cret"),
        timeoutMillis: 3000
      }).deliver([QueuedRecord.fromRecord(record)])
    )

  it("sends to the proxy, asking for the webhook's absolute URL (a host only the proxy could reach)", async () => {
    expect(await deliver("http://hooks.warden-test.invalid:8080/hook?x=1")).toEqual([undefined])
    expect(seen.at(-1)?.url).toBe("http://hooks.warden-test.invalid:8080/hook?x=1")
    expect(seen.at(-1)?.signature).toMatch(/^v1,/u)
  })

  it("bypasses the proxy for a host NO_PROXY names", async () => {
    process.env.NO_PROXY = "hooks.warden-test.invalid"
    const before = seen.length
    const [result] = await deliver("http://hooks.warden-test.invalid:8080/hook")
    // No answer is worth trying again (the host may come back).
    expect(result?.retryable).toBe(true)
    expect(result?.message).toMatch(/^no answer: /u)
    expect(seen.length).toBe(before)
    delete process.env.NO_PROXY
  })
})
