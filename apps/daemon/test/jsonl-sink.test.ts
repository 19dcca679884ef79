/**
 * The jsonl sink on a disk that fills up: the file only ever holds whole lines, each verdict once. The
 * faults are injected at the file handle (a real file, whose append writes part of the batch and then
 * fails with ENOSPC, as the kernel does on a full disk; an fsync or a cut that fails), and the real
 * ENOSPC of `/dev/full`. The daemon on a real full tmpfs: full-disk.test.ts.
 */
import type { FileHandle } from "node:fs/promises"
import { open } from "node:fs/promises"
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect, Logger, type Scope } from "effect"
import { describe, expect, it } from "vitest"
import * as JsonlSink from "../src/sinks/JsonlSink.ts"
import { retryable } from "../src/sinks/Sink.ts"
import type { QueuedRecord } from "../src/sinks/QueuedRecord.ts"

const record = (reference: string): QueuedRecord => ({
  source: "s",
  reference,
  version: 1,
  json: JSON.stringify({ source: "s", reference, version: 1, status: "analysed", note: "x".repeat(40) })
})

const enospc = () =>
  Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC", syscall: "write" })

/** What the handle does wrong next: each fault fires once. */
interface Faults {
  /** The next append writes this many bytes of its text, then fails with ENOSPC. */
  appendCutAt?: number | undefined
  /** The next fsync fails with ENOSPC (after the append went through). */
  syncFails?: boolean
  /** The next `n` cuts (truncate) fail with EIO. */
  truncateFails?: number
}

/** Opens the real file, through a handle that fails as `faults` says. */
const faulty =
  (faults: Faults) =>
  async (path: string): Promise<FileHandle> => {
    const real = await open(path, "a+")
    return new Proxy(real, {
      get(target, key) {
        if (key === "appendFile" && faults.appendCutAt !== undefined) {
          const cutAt = faults.appendCutAt
          faults.appendCutAt = undefined
          return async (text: string) => {
            await target.appendFile(Buffer.from(text).subarray(0, cutAt))
            throw enospc()
          }
        }
        if (key === "sync" && faults.syncFails === true) {
          faults.syncFails = false
          return async () => {
            throw enospc()
          }
        }
        if (key === "truncate" && (faults.truncateFails ?? 0) > 0) {
          faults.truncateFails = (faults.truncateFails ?? 0) - 1
          return async () => {
            throw Object.assign(new Error("EIO: i/o error, ftruncate"), { code: "EIO" })
          }
        }
        const value = Reflect.get(target, key, target)
        return typeof value === "function" ? value.bind(target) : value
      }
    })
  }

/** Runs `f` with a jsonl sink on a fresh file (`setting` sinks.0.path), in a scope of its own. */
const withSink = <A>(
  f: (sink: Effect.Success<ReturnType<typeof JsonlSink.make>>, path: string) => Effect.Effect<A, unknown, Scope.Scope>,
  options: { readonly faults?: Faults; readonly path?: string; readonly logs?: Array<string> } = {}
) => {
  const path = options.path ?? join(mkdtempSync(join(tmpdir(), "warden-jsonl-")), "out.jsonl")
  const logs = options.logs
  return Effect.runPromise(
    Effect.gen(function* () {
      const sink = yield* JsonlSink.make({
        name: "jsonl",
        path,
        setting: "sinks.0.path",
        ...(options.faults === undefined ? {} : { open: faulty(options.faults) })
      })
      return yield* f(sink, path)
    }).pipe(
      Effect.scoped,
      logs === undefined
        ? (e) => e
        : Effect.provide(
            Logger.layer([Logger.make(({ message }) => logs.push([message].flat().map(String).join(" ")))])
          )
    )
  )
}

/** The file's lines: every one must be a whole JSON record (the test fails on a partial one). */
const lines = (path: string) => {
  const text = readFileSync(path, "utf8")
  expect(text === "" || text.endsWith("\n")).toBe(true)
  return text
    .split("\n")
    .slice(0, -1)
    .map((l) => (JSON.parse(l) as { reference: string }).reference)
}

/** The failure of a write to a full disk: worth retrying (space may be freed). */
const ENOSPC_LINE = (path: string) =>
  retryable(`sinks.0.path: cannot write ${path}: no space left on the device (ENOSPC)`)

describe("the jsonl sink on a full disk, at the file handle", () => {
  it("a batch cut part-way is cut back off the file and fails whole; its retry writes it once", async () => {
    const faults: Faults = {}
    await withSink(
      (sink, path) =>
        Effect.gen(function* () {
          expect(yield* sink.deliver([record("a"), record("b")])).toEqual([undefined, undefined])
          faults.appendCutAt = 30
          const failed = yield* sink.deliver([record("c"), record("d"), record("e")])
          expect(failed).toEqual([ENOSPC_LINE(path), ENOSPC_LINE(path), ENOSPC_LINE(path)])
          // Before: `{"source":"s","reference":"c"` stayed at the end of the file.
          expect(lines(path)).toEqual(["a", "b"])
          expect(yield* sink.deliver([record("c"), record("d"), record("e")])).toEqual([
            undefined,
            undefined,
            undefined
          ])
          expect(lines(path)).toEqual(["a", "b", "c", "d", "e"])
        }),
      { faults }
    )
  })

  it("an fsync that fails after the append cuts the batch back too: the retry does not write it twice", async () => {
    const faults: Faults = {}
    await withSink(
      (sink, path) =>
        Effect.gen(function* () {
          yield* sink.deliver([record("a")])
          faults.syncFails = true
          expect(yield* sink.deliver([record("b"), record("c")])).toEqual([ENOSPC_LINE(path), ENOSPC_LINE(path)])
          expect(lines(path)).toEqual(["a"])
          yield* sink.deliver([record("b"), record("c")])
          expect(lines(path)).toEqual(["a", "b", "c"])
        }),
      { faults }
    )
  })

  it("a cut that fails is made before the next batch is written", async () => {
    const faults: Faults = {}
    await withSink(
      (sink, path) =>
        Effect.gen(function* () {
          yield* sink.deliver([record("a")])
          faults.appendCutAt = 10
          faults.truncateFails = 1
          yield* sink.deliver([record("b")])
          // The cut failed: the partial record is there until the next delivery cuts it first.
          expect(readFileSync(path, "utf8").endsWith("\n")).toBe(false)
          expect(yield* sink.deliver([record("b")])).toEqual([undefined])
          expect(lines(path)).toEqual(["a", "b"])
        }),
      { faults }
    )
  })

  it("a partial last line left by a crash is cut when the sink opens, with one warning", async () => {
    const path = join(mkdtempSync(join(tmpdir(), "warden-jsonl-")), "out.jsonl")
    writeFileSync(path, `${record("a").json}\n{"source":"s","refer`)
    const logs: Array<string> = []
    await withSink(
      (sink) =>
        Effect.gen(function* () {
          expect(lines(path)).toEqual(["a"])
          yield* sink.deliver([record("b")])
          expect(lines(path)).toEqual(["a", "b"])
        }),
      { path, logs }
    )
    expect(logs).toEqual([
      `${path}: cut a partial last line (20 bytes) an interrupted write left; its verdict is delivered again`
    ])
  })
})

describe("the jsonl sink on /dev/full (a real ENOSPC on every write)", () => {
  it("fails each batch with the setting and the errno", async () => {
    await withSink(
      (sink) =>
        Effect.gen(function* () {
          expect(yield* sink.deliver([record("a"), record("b")])).toEqual([
            ENOSPC_LINE("/dev/full"),
            ENOSPC_LINE("/dev/full")
          ])
        }),
      { path: "/dev/full" }
    )
  })
})
