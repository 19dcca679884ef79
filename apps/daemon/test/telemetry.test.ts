/**
 * OTLP export against a local OTLP/HTTP receiver started here: with only the standard OTEL_* variables
 * set, `warden run` sends spans for a batch, an API call, a platform action and a feedback, and its
 * metrics; no attribute carries the content, the API key or the admin token.
 */
import { mkdtempSync } from "node:fs"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Sandbox } from "@warden/sandbox"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { freePort, startDaemon, waitFor, writeConfig } from "./support/DaemonProcess.ts"
import { pluginSourceConfig, startPlatform } from "./support/TestPlatform.ts"

const ADMIN_TOKEN = "otel-admin-token-5b1f0c"
const CONTENT = "[[THREAT]] otel-content-marker you will regret this"

/** A receiver of OTLP/HTTP JSON: every body by path. */
const startReceiver = async () => {
  const bodies: Array<{ path: string; text: string }> = []
  const server: Server = createServer((req, res) => {
    let text = ""
    req.setEncoding("utf8")
    req.on("data", (d: string) => {
      text += d
    })
    req.on("end", () => {
      bodies.push({ path: req.url ?? "", text })
      res.writeHead(200, { "content-type": "application/json" })
      res.end("{}")
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    bodies,
    spanNames: () =>
      bodies
        .filter((b) => b.path === "/v1/traces")
        .flatMap((b) =>
          (JSON.parse(b.text).resourceSpans ?? []).flatMap((r: any) =>
            r.scopeSpans.flatMap((s: any) => s.spans.map((span: any) => span.name as string))
          )
        ),
    metricNames: () =>
      bodies
        .filter((b) => b.path === "/v1/metrics")
        .flatMap((b) =>
          (JSON.parse(b.text).resourceMetrics ?? []).flatMap((r: any) =>
            r.scopeMetrics.flatMap((s: any) => s.metrics.map((m: any) => m.name as string))
          )
        ),
    close: () => new Promise<void>((resolve) => server.close(() => resolve()))
  }
}

describe("OpenTelemetry export", () => {
  let sandbox: Awaited<ReturnType<typeof Sandbox.startPromise>>
  let platform: Awaited<ReturnType<typeof startPlatform>>
  let receiver: Awaited<ReturnType<typeof startReceiver>>
  beforeAll(async () => {
    sandbox = await Sandbox.startPromise()
    platform = await startPlatform()
    receiver = await startReceiver()
  })
  afterAll(async () => {
    await receiver.close()
    await platform.close()
    await sandbox.close()
  })

  it("sends spans per batch, API call, action and feedback, and the metrics (build and process ones too), without content, key or token", async () => {
    const dir = mkdtempSync(join(tmpdir(), "warden-otel-"))
    const port = await freePort()
    const config = writeConfig(dir, {
      api: { apiKey: "sandbox-standard-key", baseUrl: sandbox.url },
      state: { dir },
      sources: [
        pluginSourceConfig(platform.url, {
          rules: [{ name: "threats", when: { classifications: { anyOf: ["THREAT"] } }, actions: ["hide"] }]
        })
      ],
      sinks: [],
      admin: { listen: `127.0.0.1:${port}`, token: ADMIN_TOKEN },
      log: { format: "json" }
    })
    platform.publish({ kind: "upsert", reference: "o/1", text: CONTENT })
    const daemon = startDaemon(config, {
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
      OTEL_BSP_SCHEDULE_DELAY: "200",
      OTEL_METRIC_EXPORT_INTERVAL: "500"
    })
    try {
      await waitFor(() => platform.executed.length === 1, 60_000, `the action\n${daemon.stderr()}`)
      const feedback = await fetch(`http://127.0.0.1:${port}/api/feedback`, {
        method: "POST",
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
        body: JSON.stringify({ reference: "o/1", notes: "a joke between friends" })
      })
      expect(feedback.status, await feedback.clone().text()).toBe(200)
      const wanted = [
        "BatchProcessor.process",
        "AnalyzeV1.textWithRequest",
        "ActionExecutor.act",
        "FeedbackService.send"
      ]
      await waitFor(
        () => wanted.every((n) => receiver.spanNames().includes(n)),
        30_000,
        () =>
          `spans ${wanted.join(", ")}; got ${[...new Set(receiver.spanNames())].join(", ")}\n${daemon.stderr().slice(-3000)}`
      )
      await waitFor(
        () =>
          ["warden_items_in_total", "warden_build_info", "process_resident_memory_bytes"].every((m) =>
            receiver.metricNames().includes(m)
          ),
        30_000,
        `metrics; got ${[...new Set(receiver.metricNames())].join(", ")}`
      )
    } finally {
      await daemon.stop()
    }
    const everything = receiver.bodies.map((b) => b.text).join("\n")
    expect(everything).toContain('"service.name"')
    expect(everything).not.toContain("otel-content-marker")
    expect(everything).not.toContain("a joke between friends")
    expect(everything).not.toContain("sandbox-standard-key")
    expect(everything).not.toContain(ADMIN_TOKEN)
  }, 120_000)
})
