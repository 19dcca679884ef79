/**
 * The push host (PushIntake, issue 39) in a running daemon, through a push connector of the test's own:
 * items received are committed to the intake, read as the source's stream, analysed and recorded once
 * each, and forgotten once recorded; a check answers from the recorded verdict through the source's
 * rules, answers the same content again from the record without a second API call, and answers by the
 * failure mode when the API does not answer within the deadline.
 */
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Connector, PushHost } from "@warden/connector"
import { Sandbox } from "@warden/sandbox"
import { Effect, Layer, Option, Schema } from "effect"
import { afterEach, describe, expect, it } from "vitest"
import type { SourceSpec } from "../src/engine/Pipeline.ts"
import { SinkList } from "../src/sinks/SinkList.ts"
import { waitFor } from "./support/DaemonProcess.ts"
import { startDaemonInProcess } from "./support/InProcess.ts"
import { insultRejected, pushSettings } from "./support/PushDecisions.ts"
import { query } from "./support/StateDb.ts"

const closers: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close()
})

/** A push connector that hands its host to the test. */
const pushConnector = (hosts: Array<PushHost.PushHostShape>) =>
  Connector.make({
    type: "push",
    configSchema: Schema.Struct({}),
    capabilities: { actions: ["hide"], duplicates: "possible", contentTypes: ["text"] },
    make: () =>
      Effect.gen(function* () {
        const host = yield* Effect.serviceOption(PushHost.PushHost)
        if (Option.isNone(host)) return yield* Effect.die(new Error("no push host"))
        hosts.push(host.value)
        return {
          events: host.value.events,
          acknowledge: host.value.acknowledge,
          act: () => Effect.succeed({ status: "done" as const })
        }
      })
  })

const start = async (failure: "allow" | "reject" | "hold") => {
  const sandbox = await Sandbox.startPromise()
  closers.push(() => sandbox.close())
  const stateFile = join(mkdtempSync(join(tmpdir(), "warden-push-")), "state.db")
  const hosts: Array<PushHost.PushHostShape> = []
  const spec: SourceSpec = {
    settings: pushSettings("push", "push", failure),
    connector: pushConnector(hosts),
    config: {}
  }
  const daemon = await startDaemonInProcess({
    state: { _tag: "sqlite", filename: stateFile },
    api: { apiKey: "sandbox-standard-key", baseUrls: { global: sandbox.url }, retry: { maxAttempts: 1 } },
    sources: [spec],
    sinks: Layer.succeed(SinkList, []),
    sinkNames: []
  })
  closers.push(daemon.close)
  await waitFor(() => hosts.length > 0, 30_000, "the source started")
  const host = hosts[0]!
  const run = <A, E>(effect: Effect.Effect<A, E>) => Effect.runPromise(effect)
  return { sandbox, stateFile, host, run }
}

const text = (reference: string, body: string): PushHost.PushItem => ({
  reference,
  content: { type: "text", text: body }
})

const count = (file: string, sql: string) => Number(query<{ n: number }>(file, sql)[0]?.n ?? 0)
const analyseCalls = async (sandbox: Sandbox.RunningSandbox) =>
  (await Effect.runPromise(sandbox.requests)).filter((r) => r.path.includes("/analyze/")).length

describe("a push source's host", () => {
  it("records every item received once, and forgets the intake once they are recorded", async () => {
    const { host, run, stateFile } = await start("hold")
    const items = Array.from({ length: 250 }, (_, i) => text(`p-${i}`, `a fine comment number ${i}`))
    await run(host.receive(items.slice(0, 100)))
    await run(host.receive(items.slice(100)))
    // received twice: the repeat costs nothing and records nothing twice
    await run(host.receive(items.slice(0, 10)))
    await waitFor(
      () =>
        count(stateFile, "SELECT COUNT(*) AS n FROM warden_items") === 250 &&
        count(stateFile, "SELECT COUNT(*) AS n FROM warden_intake") === 0,
      60_000,
      "every item recorded and the intake forgotten"
    )
    const rows = query<{ reference: string; version: number }>(stateFile, "SELECT reference, version FROM warden_items")
    expect(new Set(rows.map((r) => r.reference))).toEqual(new Set(items.map((i) => i.reference)))
    expect(rows.every((r) => Number(r.version) === 1)).toBe(true)
  })

  it("a check answers from the verdict through the rules, and the same content again from the record", async () => {
    const { host, run, sandbox } = await start("hold")
    const rude = await run(host.check(text("c-1", "You are an idiot"), 5_000))
    expect(rude).toMatchObject(insultRejected("c-1"))
    expect(rude.verdict).not.toBeNull()
    const fine = await run(host.check(text("c-2", "What a lovely day"), 5_000))
    expect(fine).toMatchObject({ decision: "allow", rule: null, actions: [], decidedBy: "verdict", version: 1 })
    const calls = await analyseCalls(sandbox)
    const again = await run(host.check(text("c-1", "You are an idiot"), 5_000))
    expect(again).toEqual(rude)
    expect(await analyseCalls(sandbox)).toBe(calls)
    // an edit is another version, analysed
    const edited = await run(host.check(text("c-1", "Sorry, what a lovely day"), 5_000))
    expect(edited).toMatchObject({ decision: "allow", version: 2, decidedBy: "verdict" })
  })

  it("during an API outage a check answers by the failure mode within its deadline; the verdict is recorded later", async () => {
    const { host, run, sandbox, stateFile } = await start("reject")
    await Effect.runPromise(sandbox.setFaults({ transient: 1 }))
    const started = Date.now()
    const answer = await run(host.check(text("o-1", "You are an idiot"), 500))
    const took = Date.now() - started
    expect(answer).toMatchObject({ decision: "reject", decidedBy: "failureMode", version: null, verdict: null })
    expect(took).toBeLessThan(1_000)
    await Effect.runPromise(sandbox.setFaults({}))
    await waitFor(
      () =>
        count(stateFile, "SELECT COUNT(*) AS n FROM warden_items WHERE reference = 'o-1' AND status = 'analysed'") ===
        1,
      60_000,
      "the item analysed once the API answers"
    )
    const later = await run(host.check(text("o-1", "You are an idiot"), 500))
    expect(later).toMatchObject({ decision: "reject", decidedBy: "verdict", rule: "insults" })
  })
})
