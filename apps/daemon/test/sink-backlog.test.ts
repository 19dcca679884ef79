/**
 * `warden_sink_backlog`: set from the outbox itself, present (0) from the start, up while a sink
 * refuses and back to 0 once it drains.
 */
import { Effect } from "effect"
import { afterAll, beforeAll, describe, it } from "vitest"
import type { Sink } from "../src/sinks/Sink.ts"
import { waitFor } from "./support/DaemonProcess.ts"
import { ADMIN_TOKEN } from "./support/InProcess.ts"
import { startSandboxDaemon } from "./support/SandboxDaemon.ts"
import { platformSource } from "./support/TestPlatform.ts"

/** A sink that refuses every record until it is opened. */
let open = false
const gated: Sink = {
  name: "gated",
  type: "test",
  batchSize: 10,
  maxAttempts: 1000,
  deliver: (records) => Effect.sync(() => records.map(() => (open ? undefined : "the sink is closed")))
}

let t: Awaited<ReturnType<typeof startSandboxDaemon>>

beforeAll(async () => {
  t = await startSandboxDaemon({ sources: ([url]) => [platformSource(url!)], sinks: [gated] })
})
afterAll(() => t?.close())

const backlog = async (): Promise<number | undefined> => {
  const text = await (
    await fetch(`${t.daemon.adminUrl}/metrics`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })
  ).text()
  const line = text.split("\n").find((l) => l.startsWith("warden_sink_backlog{") && l.includes('sink="gated"'))
  return line === undefined ? undefined : Number(line.split(" ").at(-1))
}

describe("warden_sink_backlog", () => {
  it("is 0 from the start, follows the outbox up while the sink refuses, and back to 0 once it drains", async () => {
    await waitFor(async () => (await backlog()) === 0, 10_000, "the gauge at 0 before any verdict")
    for (let i = 0; i < 6; i++) t.platforms[0]!.publish({ kind: "upsert", reference: `b/${i}`, text: `comment ${i}` })
    await waitFor(async () => (await backlog()) === 6, 20_000, "a backlog of 6")
    open = true
    await waitFor(async () => (await backlog()) === 0, 30_000, "the backlog drained to 0")
  }, 60_000)
})
