/**
 * API failures: a flaky API loses nothing and only transient failures are retried; refused credentials
 * pause the source (readiness fails) until the key works, then it carries on.
 */
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Sandbox } from "@warden/sandbox"
import { Effect } from "effect"
import { afterEach, describe, expect, it } from "vitest"
import type * as Daemon from "../src/Daemon.ts"
import { waitFor } from "./support/DaemonProcess.ts"
import { jsonlRecords as lines, jsonlSink, rssSource } from "./support/FeedPipeline.ts"
import { startFeedServer } from "./support/FeedServer.ts"
import { startDaemonInProcess } from "./support/InProcess.ts"

const specFor = (options: { dir: string; feedUrl: string; apiUrl: string; apiKey: string }) => {
  const out = join(options.dir, "verdicts.jsonl")
  const spec: Omit<Daemon.DaemonSpec, "admin"> = {
    state: { _tag: "sqlite", filename: join(options.dir, "state.db") },
    api: {
      apiKey: options.apiKey,
      baseUrls: { global: options.apiUrl },
      timeout: "2 seconds",
      retry: { maxAttempts: 6, baseDelay: "20 millis", maxDelay: "200 millis" }
    },
    sources: [rssSource({ feeds: [options.feedUrl], pollInterval: "200 millis" })],
    ...jsonlSink(out),
    pipeline: { pauseRetry: "300 millis" }
  }
  return { spec, out }
}

const items = (n: number) =>
  Array.from({ length: n }, (_, i) => ({ guid: `i-${i}`, title: `t${i}`, description: `comment number ${i} here` }))

const cleanups: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c()
})

describe("a flaky API", () => {
  it("30% 503 and 5% dropped connections: every verdict arrives, only transient failures are retried", async () => {
    const N = 150
    const sandbox = await Sandbox.startPromise({
      requestLogSize: 10_000,
      faults: { transient: 0.3, drop: 0.05, seed: 42 }
    })
    cleanups.push(() => sandbox.close())
    const feed = await startFeedServer(items(N))
    cleanups.push(() => feed.close())
    const dir = mkdtempSync(join(tmpdir(), "warden-faults-"))
    const { spec, out } = specFor({ dir, feedUrl: feed.url, apiUrl: sandbox.url, apiKey: "sandbox-standard-key" })
    const daemon = await startDaemonInProcess(spec)
    cleanups.push(daemon.close)
    await waitFor(() => new Set(lines(out).map((l) => l.reference)).size >= N, 60_000, `${N} verdicts`)
    expect(lines(out).every((l) => l.status === "analysed")).toBe(true)

    const requests = (await Effect.runPromise(sandbox.requests)).filter((r) => r.endpoint === "analyzeText")
    const byCall = new Map<string, Array<number>>()
    for (const r of requests) {
      const id = r.headers["x-request-id"] ?? ""
      byCall.set(id, [...(byCall.get(id) ?? []), r.status])
    }
    // The faults were hit and retried ...
    expect(requests.some((r) => r.status === 503)).toBe(true)
    expect(requests.some((r) => r.status === 0)).toBe(true)
    expect([...byCall.values()].some((statuses) => statuses.length > 1)).toBe(true)
    // ... and no call was tried again after a 400, 401, 403 or 429.
    for (const statuses of byCall.values()) {
      const refused = statuses.findIndex((s) => [400, 401, 403, 429].includes(s))
      if (refused !== -1) expect(refused).toBe(statuses.length - 1)
    }
  }, 90_000)
})

describe("refused credentials", () => {
  it("pause the source, fail readiness, and recover when the key works", async () => {
    const N = 20
    const sandbox = await Sandbox.startPromise()
    const port = sandbox.port
    const feed = await startFeedServer(items(N))
    cleanups.push(() => feed.close())
    const dir = mkdtempSync(join(tmpdir(), "warden-auth-"))
    const { spec, out } = specFor({ dir, feedUrl: feed.url, apiUrl: sandbox.url, apiKey: "rotated-key" })
    const daemon = await startDaemonInProcess(spec)
    cleanups.push(daemon.close)

    await waitFor(async () => (await daemon.admin("/readyz")).status === 503, 20_000, "readiness to fail")
    const ready = await daemon.admin("/readyz")
    expect(ready.body.problems.join("\n")).toMatch(/source feed paused: .*AUTHENTICATION_ERROR/)
    expect(lines(out)).toEqual([])
    const refusedCalls = (await Effect.runPromise(sandbox.requests)).filter((r) => r.status === 401).length
    expect(refusedCalls).toBeGreaterThan(0)

    // The operator registers the key: the same API address now knows it.
    await sandbox.close()
    const fixed = await Sandbox.startPromise({
      port,
      keys: [{ key: "rotated-key", organisation: "org", kind: "standard", status: "active" }]
    })
    cleanups.push(() => fixed.close())
    await waitFor(() => new Set(lines(out).map((l) => l.reference)).size >= N, 30_000, "verdicts after the fix")
    await waitFor(async () => (await daemon.admin("/readyz")).status === 200, 10_000, "readiness to recover")
  }, 90_000)
})
