/**
 * The NATS sink in the daemon (issue 38): a config naming `type: nats` finds the installed package
 * `@warden/sink-nats`, and every verdict reaches the JetStream stream once, as JSON a receiver can use
 * (the record's key in the headers, the record as recorded), also with nats-server restarted mid-run.
 */
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { NatsServer } from "@warden/connector-nats/testing"
import { Sandbox } from "@warden/sandbox"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { checkConfig } from "../src/config/index.ts"
import { specOf } from "../src/FromConfig.ts"
import { waitFor, writeConfig } from "./support/DaemonProcess.ts"
import { startDaemonInProcess } from "./support/InProcess.ts"
import { pluginSourceConfig, startPlatform } from "./support/TestPlatform.ts"

let sandbox: Awaited<ReturnType<typeof Sandbox.startPromise>>
let platform: Awaited<ReturnType<typeof startPlatform>>
let server: NatsServer.NatsServer

beforeAll(async () => {
  sandbox = await Sandbox.startPromise()
  platform = await startPlatform()
  server = await NatsServer.start()
  await NatsServer.createStream(server.url, { name: "VERDICTS", subjects: ["warden.verdicts.>"] })
})
afterAll(async () => {
  await server.close()
  await platform.close()
  await sandbox.close()
})

/** Every message in the stream: its `Nats-Msg-Id`, subject and JSON body. */
const stored = async () =>
  (await NatsServer.messages(server.url, "VERDICTS")).map((m) => ({
    id: m.msgId,
    subject: m.subject,
    body: JSON.parse(m.data) as { reference: string; version: number }
  }))

describe("warden with a NATS sink", () => {
  it("publishes each verdict once, across a restart of nats-server", async () => {
    const dir = mkdtempSync(join(tmpdir(), "warden-nats-sink-"))
    const config = writeConfig(dir, {
      api: { apiKey: "sandbox-standard-key", baseUrl: sandbox.url },
      state: { sqlite: join(dir, "state.db") },
      sources: [pluginSourceConfig(platform.url)],
      sinks: [
        {
          name: "bus",
          type: "nats",
          servers: [server.url],
          subject: "warden.verdicts.{source}",
          stream: "VERDICTS",
          timeout: "1 second"
        }
      ]
    })
    const checked = await Effect.runPromise(checkConfig(config, { env: {} }))
    expect(checked.sinks.get("bus")?.type).toBe("nats")
    const { spec } = specOf(checked)
    const daemon = await startDaemonInProcess(spec)
    try {
      for (let i = 1; i <= 20; i++) platform.publish({ kind: "upsert", reference: `m/${i}`, text: `message ${i}` })
      await waitFor(async () => (await stored()).length >= 10, 30_000, "the first verdicts in the stream")
      await server.stop()
      for (let i = 21; i <= 40; i++) platform.publish({ kind: "upsert", reference: `m/${i}`, text: `message ${i}` })
      await new Promise((r) => setTimeout(r, 1_500))
      await server.start()
      await waitFor(async () => (await stored()).length >= 40, 60_000, "every verdict in the stream")
      await new Promise((r) => setTimeout(r, 1_000))
      const messages = await stored()
      expect(messages).toHaveLength(40)
      expect(new Set(messages.map((m) => m.id)).size).toBe(40)
      const first = messages.find((m) => m.body.reference.endsWith("m/1"))!
      expect(first.subject).toMatch(/^warden\.verdicts\./u)
      expect(first.id).toBe(`${first.subject.slice("warden.verdicts.".length)}/${first.body.reference}/1`)
    } finally {
      await daemon.close()
    }
  }, 120_000)
})
