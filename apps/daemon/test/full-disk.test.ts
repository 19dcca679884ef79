/**
 * A full disk under a running daemon, a growing feed, the real pipeline: nothing lost, no verdict twice
 * in the jsonl file, no partial line; `/readyz` answers 503 with the setting and the code while the state
 * cannot be written; the outage is one line when it starts and one when it ends, not a line per attempt.
 *
 * - The state full: SQLite's own limit (`PRAGMA max_page_count` on the daemon's connection) makes every
 *   write that needs a new page fail with SQLITE_FULL, as a full disk does; it runs anywhere.
 * - A real full disk: a 24 MB tmpfs, filled by a file, when this process may mount one (root, as in CI
 *   here); elsewhere the sink case runs on `/dev/full`, whose every write fails with a real ENOSPC.
 * The sink worker's side (what it delivers while the store is down) is asserted on the TestClock in
 * sinks.test.ts, the jsonl file's at the file handle in jsonl-sink.test.ts.
 */
import { execFileSync } from "node:child_process"
import { mkdirSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Sandbox } from "@warden/sandbox"
import { Context, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { afterEach, describe, expect, it } from "vitest"
import type * as Daemon from "../src/Daemon.ts"
import * as JsonlSink from "../src/sinks/JsonlSink.ts"
import { SinkList } from "../src/sinks/SinkList.ts"
import { waitFor } from "./support/DaemonProcess.ts"
import { jsonlRecords, rssSource } from "./support/FeedPipeline.ts"
import { startFeedServer } from "./support/FeedServer.ts"
import { type LoggedLine, startDaemonInProcess } from "./support/InProcess.ts"

const cleanups: Array<() => Promise<void> | void> = []
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c()
})

const items = (n: number) =>
  Array.from({ length: n }, (_, i) => ({
    guid: `g-${i}`,
    title: `t${i}`,
    description: `comment number ${i} on the news, with a few more words so that rows take some room`
  }))

/** The daemon on `state`, a feed of `first` items, a jsonl sink at `out` named by `sinks.0.path`. */
const running = async (options: { readonly state: string; readonly out: string; readonly first: number }) => {
  const sandbox = await Sandbox.startPromise({ requestLogSize: 100 })
  cleanups.push(() => sandbox.close())
  const feed = await startFeedServer(items(options.first))
  cleanups.push(() => feed.close())
  const logs: Array<LoggedLine> = []
  const spec: Omit<Daemon.DaemonSpec, "admin"> = {
    state: { _tag: "sqlite", filename: options.state },
    api: { apiKey: "sandbox-standard-key", baseUrls: { global: sandbox.url } },
    sources: [rssSource({ feeds: [feed.url], pollInterval: "200 millis", maxItemsPerPoll: 500 })],
    sinks: Layer.effect(
      SinkList,
      Effect.map(JsonlSink.make({ name: "jsonl", path: options.out, setting: "sinks.0.path" }), (s) => [s])
    ),
    sinkNames: ["jsonl"]
  }
  const daemon = await startDaemonInProcess(spec, { logs })
  cleanups.push(daemon.close)
  // `/dev/full` reads as endless zeros: never read back.
  const references = () =>
    options.out === "/dev/full" ? [] : jsonlRecords<{ reference: string }>(options.out).map((r) => r.reference)
  await waitFor(() => references().length >= options.first, 60_000, `the first ${options.first} verdicts`)
  /** The lines logged from now on, at WARN and above, and at INFO those of the state or a sink (the end lines). */
  const mark = logs.length
  const loggedSince = () =>
    logs
      .slice(mark)
      .filter(
        (l) =>
          l.level === "Warn" ||
          l.level === "Error" ||
          l.level === "Fatal" ||
          l.annotations.setting !== undefined ||
          l.annotations.sink !== undefined
      )
  return { daemon, feed, references, loggedSince }
}

/** The jsonl file's references: each once (`jsonlRecords` fails on a line that is not whole JSON). */
const expectEachOnce = (references: ReadonlyArray<string>, n: number) => {
  expect(new Set(references).size).toBe(n)
  expect(references.length).toBe(n)
}

const readyz = async (daemon: Awaited<ReturnType<typeof startDaemonInProcess>>) => daemon.admin("/readyz")

/** How a test makes the state's disk full, and gives it room again. */
type Filling = (daemon: Running) => Promise<{ readonly free: () => Promise<void> }>

type Running = Awaited<ReturnType<typeof running>>

/** SQLite's own limit on the daemon's connection: the next write that needs a page fails with SQLITE_FULL. */
const pageLimit: Filling = async ({ daemon }) => {
  const sql = Context.get(daemon.context, SqlClient.SqlClient)
  const pages = await Effect.runPromise(sql<{ page_count: number }>`PRAGMA page_count`)
  await Effect.runPromise(sql.unsafe(`PRAGMA max_page_count = ${Number(pages[0]!.page_count)}`))
  return { free: () => Effect.runPromise(sql.unsafe("PRAGMA max_page_count = 1073741823")).then(() => undefined) }
}

/**
 * The state store's disk full under a running daemon (100 verdicts in, the feed grown to 600): 503
 * with the reason while it lasts, one line when it starts and one when it ends, every verdict once.
 */
const stateFull = async (state: string, filling: Filling, code: RegExp) => {
  const out = join(mkdtempSync(join(tmpdir(), "warden-full-")), "out.jsonl")
  const daemon = await running({ state, out, first: 100 })
  const { free } = await filling(daemon)
  daemon.feed.setItems(items(600))
  const ready = () => readyz(daemon.daemon)
  await waitFor(async () => (await ready()).status === 503, 30_000, "readiness to fail")
  const problem = (await ready()).body.problems[0] as string
  expect(problem).toMatch(/^state store not writable: state\.sqlite: .+ \(SQLITE_[A-Z]+\)$/)
  expect(problem).toMatch(code)
  // The daemon keeps trying meanwhile (batches every ≤ 5 s, the sink's acknowledgements, heartbeats).
  await new Promise((r) => setTimeout(r, 4_000))
  expect((await ready()).status).toBe(503)
  const during = daemon.loggedSince()
  expect(during.map((l) => l.message)).toEqual([
    `${problem.slice("state store not writable: ".length)}; the state store does not take writes: batches and checkpoints are retried with backoff, sinks wait, /readyz answers 503`
  ])
  expect(during[0]).toMatchObject({ level: "Error", annotations: { setting: "state.sqlite" } })
  await free()
  await waitFor(() => new Set(daemon.references()).size >= 600, 60_000, "every verdict once the disk has room")
  await waitFor(async () => (await ready()).status === 200, 30_000, "readiness back")
  // The end line waits 10 s without a failure.
  await waitFor(() => daemon.loggedSince().length >= 2, 30_000, "the end line")
  const lines = daemon.loggedSince()
  expect(lines).toHaveLength(2)
  expect(lines[1]).toMatchObject({ level: "Info", annotations: { setting: "state.sqlite" } })
  expect(lines[1]!.message).toMatch(
    /^state\.sqlite: the state store takes writes again, after [\d.]+ s and \d+ failed attempts$/
  )
  expectEachOnce(daemon.references(), 600)
}

describe("the state store full (SQLite's page limit), under a running daemon", () => {
  it("is 503 with the reason, one line when it starts and one when it ends, and no verdict twice", async () => {
    await stateFull(join(mkdtempSync(join(tmpdir(), "warden-full-")), "state.db"), pageLimit, /\(SQLITE_FULL\)$/)
  }, 120_000)
})

/**
 * A directory on a 24 MB tmpfs of its own, or `undefined` when this process may not mount one (then
 * the sink case runs on /dev/full).
 */
const smallDisk = (): string | undefined => {
  const dir = join(mkdtempSync(join(tmpdir(), "warden-disk-")), "disk")
  mkdirSync(dir)
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", "size=24m", "tmpfs", dir], { stdio: "ignore" })
  } catch {
    return undefined
  }
  cleanups.push(() => {
    execFileSync("umount", ["-l", dir], { stdio: "ignore" })
  })
  return dir
}

/** Fills the disk at `dir` with one file; `free` removes it. */
const fill = (dir: string): { readonly free: () => Promise<void> } => {
  const filler = join(dir, "filler")
  try {
    execFileSync("dd", ["if=/dev/zero", `of=${filler}`, "bs=1M", "count=64"], { stdio: "ignore" })
  } catch {
    // dd stops at the full disk with an error: the disk is full, as wanted.
  }
  return { free: async () => rmSync(filler) }
}

describe("a real full disk (a tmpfs filled up) under a running daemon", () => {
  it("the SQLite state on it: the same (where this process may not mount one: SQLite's page limit)", async () => {
    const disk = smallDisk()
    const state = join(disk ?? mkdtempSync(join(tmpdir(), "warden-full-")), "state.db")
    await stateFull(state, disk === undefined ? pageLimit : async () => fill(disk), /\(SQLITE_(FULL|IOERR)\)$/)
  }, 120_000)

  it("the jsonl sink on it: whole lines only, each verdict once, two lines (on /dev/full without a tmpfs: the first line only)", async () => {
    const disk = smallDisk()
    const dir = mkdtempSync(join(tmpdir(), "warden-full-"))
    const out = disk === undefined ? "/dev/full" : join(disk, "out.jsonl")
    if (disk === undefined) {
      const { feed, loggedSince } = await running({ state: join(dir, "state.db"), out, first: 0 })
      feed.setItems(items(50))
      await waitFor(() => loggedSince().length >= 1, 30_000, "the sink's line")
      await new Promise((r) => setTimeout(r, 3_000))
      expect(loggedSince().map((l) => l.message)).toEqual([
        expect.stringMatching(
          /^sink jsonl failing: sinks\.0\.path: cannot write \/dev\/full: no space left on the device \(ENOSPC\); retrying until \d{4}-\d\d-\d\dT[\d:.]+Z$/u
        )
      ])
      return
    }
    const { daemon, feed, references, loggedSince } = await running({ state: join(dir, "state.db"), out, first: 100 })
    const { free } = fill(disk)
    feed.setItems(items(600))
    await waitFor(() => loggedSince().length >= 1, 30_000, "the sink's line")
    // Retried meanwhile, every batch refused part-way; the state is fine, so the daemon stays ready.
    await new Promise((r) => setTimeout(r, 4_000))
    expect((await readyz(daemon)).status).toBe(200)
    expect(loggedSince()).toHaveLength(1)
    expect(loggedSince()[0]!.message).toBe(
      `sink jsonl failing: sinks.0.path: cannot write ${out}: no space left on the device (ENOSPC); retrying until ${loggedSince()[0]!.message.split("retrying until ")[1]}`
    )
    expect(loggedSince()[0]!.message).toMatch(/; retrying until \d{4}-\d\d-\d\dT[\d:.]+Z$/u)
    expect(references().length).toBeLessThan(600)
    await free()
    await waitFor(() => new Set(references()).size >= 600, 60_000, "every verdict once the disk has room")
    await waitFor(() => loggedSince().length >= 2, 30_000, "the end line")
    expect(loggedSince()[1]!.message).toMatch(/^sink jsonl delivering again after [\dhms. ]+; \d+ records? waited$/u)
    expect(loggedSince()).toHaveLength(2)
    expectEachOnce(references(), 600)
  }, 120_000)
})
