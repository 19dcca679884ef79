/**
 * Sinks: the webhook signs each body and names the delivery, failed deliveries are retried with
 * backoff, and after `maxAttempts` a record moves to the dead-letter table; the stdout line format.
 */
import { createHmac } from "node:crypto"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect, Fiber, Layer, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import { describe, expect, it } from "vitest"
import * as SinkWorker from "../src/sinks/SinkWorker.ts"
import * as StdoutSink from "../src/sinks/StdoutSink.ts"
import * as WebhookSink from "../src/sinks/WebhookSink.ts"
import * as SqliteClient from "../src/state/SqliteClient.ts"
import { ItemStore } from "../src/state/ItemStore.ts"
import * as StateStore from "../src/state/StateStore.ts"
import { waitFor } from "./support/DaemonProcess.ts"
import { itemRecord, verdictRecord } from "./support/ItemRecords.ts"

describe("the webhook sink", () => {
  it("signs, retries with backoff, and dead-letters after maxAttempts", async () => {
    const received: Array<{ body: string; signature: string | undefined; delivery: string | undefined }> = []
    let flaky = 2
    const server = createServer((req, res) => {
      let body = ""
      req.on("data", (c) => {
        body += c
      })
      req.on("end", () => {
        const reference = JSON.parse(body).reference as string
        received.push({
          body,
          signature: req.headers["x-warden-signature"] as string | undefined,
          delivery: req.headers["x-warden-delivery"] as string | undefined
        })
        const fail = reference === "always-fails" || (reference === "flaky" && flaky-- > 0)
        res.writeHead(fail ? 500 : 204)
        res.end()
      })
    })
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r))
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`
    const secret = Redacted.make("hook-secret")
    const sink = WebhookSink.make({ name: "hook", url, secret, maxAttempts: 3, timeoutMillis: 2000 })
    const filename = join(mkdtempSync(join(tmpdir(), "warden-sink-")), "state.db")
    const layer = StateStore.layer.pipe(Layer.provideMerge(SqliteClient.layer({ filename })))

    await Effect.runPromise(
      Effect.gen(function* () {
        const store = yield* ItemStore
        const sql = yield* SqlClient.SqlClient
        for (const [i, ref] of ["ok", "flaky", "always-fails"].entries()) {
          const r = verdictRecord(ref)
          yield* store.recordItems([
            {
              item: itemRecord("s", ref, 1, {
                verdict: r.verdict,
                analysedAt: r.analysedAt,
                createdAt: Date.now() + i
              }),
              sinks: ["hook"],
              payload: JSON.stringify(r)
            }
          ])
        }
        const worker = yield* Effect.forkChild(SinkWorker.run(sink, 20))
        yield* Effect.promise(() =>
          waitFor(
            () => received.filter((r) => r.delivery === "s/always-fails/1").length === 3 && received.length >= 7,
            20_000,
            "deliveries"
          )
        )
        yield* Fiber.interrupt(worker)
        const dead = yield* sql<{ reference: string; attempts: number; last_error: string }>`
          SELECT reference, attempts, last_error FROM warden_dead_letters`
        expect(dead.map((d) => ({ ...d, attempts: Number(d.attempts) }))).toEqual([
          { reference: "always-fails", attempts: 3, last_error: "HTTP 500" }
        ])
        const left = yield* sql`SELECT id FROM warden_outbox`
        expect(left).toEqual([])
      }).pipe(Effect.provide(layer), Effect.scoped)
    )
    server.close()

    // Every body is signed with HMAC-SHA256 of its exact bytes and names its delivery.
    for (const r of received) {
      expect(r.signature).toBe(`sha256=${createHmac("sha256", "hook-secret").update(r.body).digest("hex")}`)
      expect(r.delivery).toBe(`s/${JSON.parse(r.body).reference}/1`)
    }
    expect(received.filter((r) => r.delivery === "s/ok/1").length).toBe(1)
    expect(received.filter((r) => r.delivery === "s/flaky/1").length).toBe(3)
  }, 30_000)

  it("backs off exponentially between attempts", () => {
    expect([1, 2, 3, 4].map(SinkWorker.retryDelayMillis)).toEqual([500, 1000, 2000, 4000])
    expect(SinkWorker.retryDelayMillis(30)).toBe(300_000)
  })
})

describe("the stdout sink", () => {
  it("prints one readable line per verdict on a terminal", () => {
    const line = StdoutSink.prettyLine({ ...verdictRecord("rss:f/1"), text: "you idiot" }, false)
    expect(line).toContain("REMOVE")
    expect(line).toContain("INSULT")
    expect(line).toContain("rss:f/1 v1")
    expect(line).toContain('"you idiot"')
  })
})
