/**
 * `Source.acknowledge`: the daemon tells a source (a message bus) that every event up to a checkpoint is
 * recorded, right after committing that checkpoint, in stream order; a failing acknowledge never
 * stops the source.
 */
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { type Checkpoint, Connector, type SourceEvent } from "@warden/connector"
import { Sandbox } from "@warden/sandbox"
import { Effect, Layer, Schema, Stream } from "effect"
import { afterEach, describe, expect, it } from "vitest"
import type { SourceSpec } from "../src/engine/Pipeline.ts"
import { SinkList } from "../src/sinks/SinkList.ts"
import { waitFor } from "./support/DaemonProcess.ts"
import { startDaemonInProcess } from "./support/InProcess.ts"
import { query } from "./support/StateDb.ts"

const N = 300

/** N text events `r-1`..`r-N` with checkpoints `{ n }`, in chunks of 50, then a stream that stays open. */
const events = Stream.fromIterable(
  Array.from(
    { length: N },
    (_, i): SourceEvent.SourceEvent => ({
      kind: "upsert",
      reference: `r-${i + 1}`,
      checkpoint: { n: i + 1 },
      content: { type: "text", text: `a fine comment ${i + 1}` }
    })
  )
).pipe(Stream.rechunk(50), Stream.concat(Stream.never))

const connectorWith = (acknowledge: (checkpoint: Checkpoint.Checkpoint) => Effect.Effect<void>) =>
  Connector.make({
    type: "bus",
    configSchema: Schema.Struct({}),
    capabilities: { actions: [], duplicates: "possible", contentTypes: ["text"] },
    make: () => Effect.succeed({ events: () => events, acknowledge })
  })

const closers: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close()
})

const start = async (connector: Connector.Connector) => {
  const sandbox = await Sandbox.startPromise()
  closers.push(() => sandbox.close())
  const stateFile = join(mkdtempSync(join(tmpdir(), "warden-acknowledge-")), "state.db")
  const spec: SourceSpec = {
    settings: {
      id: "bus",
      connector: "bus",
      channelId: "0b5d4c1e-8a4f-4f5e-9c43-1d2e3f4a5b6c",
      mode: "v1",
      analyse: new Set(["text"]),
      oversize: "split",
      dryRun: false
    },
    connector,
    config: {}
  }
  const daemon = await startDaemonInProcess({
    state: { _tag: "sqlite", filename: stateFile },
    api: { apiKey: "sandbox-standard-key", baseUrls: { global: sandbox.url } },
    sources: [spec],
    sinks: Layer.succeed(SinkList, []),
    sinkNames: []
  })
  closers.push(daemon.close)
  return { daemon, stateFile }
}

const recorded = (stateFile: string) =>
  new Set(query<{ reference: string }>(stateFile, "SELECT reference FROM warden_items").map((r) => r.reference))
const stored = (stateFile: string) =>
  query<{ checkpoint: string }>(stateFile, "SELECT checkpoint FROM warden_checkpoints WHERE source = 'bus'")[0]
    ?.checkpoint

describe("Source.acknowledge", () => {
  it("is called with each committed checkpoint, after its commit, in stream order, once every event up to it is recorded", async () => {
    let stateFile = ""
    const seen: Array<{ n: number; stored: string | undefined; missing: number }> = []
    const { stateFile: file } = await start(
      connectorWith((checkpoint) =>
        Effect.sync(() => {
          const n = (checkpoint as { n: number }).n
          const items = recorded(stateFile)
          const missing = Array.from({ length: n }, (_, i) => `r-${i + 1}`).filter((r) => !items.has(r)).length
          seen.push({ n, stored: stored(stateFile), missing })
        })
      )
    )
    stateFile = file
    await waitFor(() => seen.at(-1)?.n === N, 60_000, `acknowledge of the last checkpoint (have ${seen.at(-1)?.n})`)
    expect(seen.length).toBeGreaterThan(1)
    for (const [i, call] of seen.entries()) {
      expect(call.stored, `call ${i}: its checkpoint was committed first`).toBe(JSON.stringify({ n: call.n }))
      expect(call.missing, `call ${i}: every event up to ${call.n} recorded`).toBe(0)
      if (i > 0) expect(call.n).toBeGreaterThan(seen[i - 1]!.n)
    }
  })

  it("a failing acknowledge does not stop the source: every item is recorded", async () => {
    let calls = 0
    const { stateFile, daemon } = await start(
      connectorWith(() =>
        Effect.suspend(() => {
          calls++
          return Effect.die(new Error("the bus is gone"))
        })
      )
    )
    await waitFor(
      () => recorded(stateFile).size === N && stored(stateFile) === JSON.stringify({ n: N }),
      60_000,
      "every item"
    )
    expect(calls).toBeGreaterThan(1)
    expect((await daemon.admin("/readyz")).body.sources.bus.state).toBe("running")
  })
})
