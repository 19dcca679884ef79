/**
 * The admin API on input a user gets wrong: a reference several sources recorded is ambiguous (409
 * naming them) unless `source` is given, and `source` is honoured on every route.
 */
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Sandbox } from "@warden/sandbox"
import { Layer } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { SinkList } from "../src/sinks/SinkList.ts"
import { waitFor } from "./support/DaemonProcess.ts"
import { startDaemonInProcess } from "./support/InProcess.ts"
import { platformSource, startPlatform } from "./support/TestPlatform.ts"

let sandbox: Awaited<ReturnType<typeof Sandbox.startPromise>>
let one: Awaited<ReturnType<typeof startPlatform>>
let two: Awaited<ReturnType<typeof startPlatform>>
let daemon: Awaited<ReturnType<typeof startDaemonInProcess>>

beforeAll(async () => {
  sandbox = await Sandbox.startPromise()
  one = await startPlatform()
  two = await startPlatform()
  const dir = mkdtempSync(join(tmpdir(), "warden-admin-input-"))
  daemon = await startDaemonInProcess({
    state: { _tag: "sqlite", filename: join(dir, "state.db") },
    api: { apiKey: "sandbox-standard-key", baseUrls: { global: sandbox.url } },
    sources: [platformSource(one.url, { id: "one" }), platformSource(two.url, { id: "two" })],
    sinks: Layer.succeed(SinkList, []),
    sinkNames: [],
    includeContent: false
  })
  // The same reference on two platforms: e.g. two RSS sources reading one feed.
  one.publish({ kind: "upsert", reference: "shared/1", text: "You are an idiot" })
  two.publish({ kind: "upsert", reference: "shared/1", text: "Thank you, lovely article" })
  two.publish({ kind: "upsert", reference: "only-two/1", text: "Hello there" })
  await waitFor(async () => (await daemon.admin("/api/decisions")).body.decisions?.length === 3, 20_000, "decisions")
})
afterAll(async () => {
  await daemon?.close()
  await one?.close()
  await two?.close()
  await sandbox?.close()
})

describe("a reference recorded by several sources", () => {
  it("is ambiguous without source: 409 naming the sources, on decisions and on feedback", async () => {
    const decision = await daemon.admin("/api/decisions/shared%2F1")
    expect(decision.status).toBe(409)
    expect(decision.body.error).toMatchObject({ code: "AMBIGUOUS_REFERENCE", sources: ["one", "two"] })
    const feedback = await daemon.admin("/api/feedback", {
      method: "POST",
      body: JSON.stringify({ reference: "shared/1", notes: "banter" })
    })
    expect(feedback.status).toBe(409)
    expect(feedback.body.error).toMatchObject({ code: "AMBIGUOUS_REFERENCE", sources: ["one", "two"] })
  })

  it("source is honoured: each source's own versions, actions and feedback", async () => {
    const a = await daemon.admin("/api/decisions/shared%2F1?source=one")
    expect(a.status).toBe(200)
    expect(a.body.versions.map((v: { source: string }) => v.source)).toEqual(["one"])
    const b = await daemon.admin("/api/decisions/shared%2F1?source=two")
    expect(b.body.versions.map((v: { source: string }) => v.source)).toEqual(["two"])
    expect(JSON.parse(b.body.latest.request).text).toBe("Thank you, lovely article")
    const sent = await daemon.admin("/api/feedback", {
      method: "POST",
      body: JSON.stringify({ reference: "shared/1", source: "one", notes: "banter" })
    })
    expect(sent.status).toBe(200)
    expect(sent.body).toMatchObject({ source: "one", reference: "shared/1" })
    expect((await daemon.admin("/api/decisions/shared%2F1?source=one")).body.feedback).toHaveLength(1)
    expect((await daemon.admin("/api/decisions/shared%2F1?source=two")).body.feedback).toHaveLength(0)
    expect((await daemon.admin("/api/decisions/only-two%2F1?source=one")).status).toBe(404)
  })

  it("a reference one source recorded needs no source", async () => {
    const only = await daemon.admin("/api/decisions/only-two%2F1")
    expect(only.status).toBe(200)
    expect(only.body.source).toBe("two")
  })
})
