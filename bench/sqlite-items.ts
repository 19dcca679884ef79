/**
 * The cost of recording item versions as the state grows, for warden_items keyed as before migration
 * 0008 ((source, reference, version) plus a (reference, version) index) and as after it
 * ((reference, source, version), no second index). Each layout gets a fresh SQLite file made by the
 * daemon's own migrations (0001-0007, or all) and pragmas, then --rows item versions recorded by
 * `ItemStore.recordItems` (the daemon's statement, one transaction per batch of --batch), with
 * references that are hashes, as the connectors' are. Reported per item: wall time and process CPU
 * time over the whole run, over its first and its last 20,000 rows (the cost at that size), and the
 * file's bytes. Layouts alternate between rounds.
 *
 *   node --conditions=@warden/source bench/sqlite-items.ts [--rows 300000] [--batch 100] [--rounds 1] [--no-write]
 */
import { createHash } from "node:crypto"
import { statSync } from "node:fs"
import { createRequire } from "node:module"
import { join } from "node:path"
import { pathToFileURL } from "node:url"
import type { ItemRecord } from "../apps/daemon/src/domain/ItemVersion.ts"
import { ItemStore, type RecordEntry } from "../apps/daemon/src/state/ItemStore.ts"
import * as Migrations from "../apps/daemon/src/state/Migrations.ts"
import * as StateStore from "../apps/daemon/src/state/StateStore.ts"
import { sqlLayer } from "../apps/daemon/src/state/StateSql.ts"
import { flag, has, loadAverage, machine, progress, tempDir, writeDocSection } from "./support/common.ts"

// `effect` as the daemon resolves it (the repository root has none).
const fromDaemon = createRequire(new URL("../apps/daemon/package.json", import.meta.url))
const load = (specifier: string) => import(pathToFileURL(fromDaemon.resolve(specifier)).href)
const { Effect, Layer } = (await load("effect")) as typeof import("../apps/daemon/node_modules/effect/dist/index.js")

const rows = flag("rows", 300_000)
const batch = flag("batch", 100)
const rounds = flag("rounds", 1)
const WINDOW = 20_000

type Layout = "before" | "after"

/** The daemon's pragmas and the migrations of `layout`. */
const prepare = (layout: Layout) =>
  Effect.andThen(StateStore.pragmas, layout === "after" ? Migrations.run : Migrations.runUpTo("0007_owner"))

const WORDS = "who look up for not can word these her what oil he one make can this by in your way call see do them"

/** Item `n` as the daemon records an analysed RSS comment (same sizes as the throughput bench's). */
const item = (n: number): RecordEntry => {
  const reference = `rss:bench/${createHash("md5").update(String(n)).digest("hex")}`
  const text = `Item ${n}\n\n${WORDS} #${n}`
  const permalink = `http://127.0.0.1/p/${n}`
  const record: ItemRecord = {
    source: "bench",
    reference,
    version: 1,
    contentHash: createHash("sha256").update(text).digest("hex"),
    contentType: "text",
    status: "analysed",
    mode: "v1",
    endpoint: "/analyze/v1/text",
    request: JSON.stringify({ channelId: "0b5d4c1e-8a4f-4f5e-9c43-1d2e3f4a5b6c", text, reference, permalink }),
    response:
      '{"textAnalysis":{"type":"NEUTRAL","classifications":["NEUTRAL"],"severity":"NONE","directedAt":"SINGLE_PERSON","language":"en","recommendedAction":"KEEP"}}',
    verdict: { type: "NEUTRAL", classifications: ["NEUTRAL"], severity: "NONE", recommendedAction: "KEEP" },
    error: undefined,
    segments: [],
    event: JSON.stringify({ kind: "upsert", reference, content: { type: "text", text }, permalink }),
    analysedAt: new Date().toISOString(),
    createdAt: Date.now()
  }
  return { item: record, sinks: [], payload: "{}" }
}

interface Window {
  readonly wallMicros: number
  readonly cpuMicros: number
}

interface Result {
  readonly layout: Layout
  readonly whole: Window
  readonly first: Window
  readonly last: Window
  readonly bytesPerItem: number
}

const cpuNow = () => {
  const u = process.cpuUsage()
  return u.user + u.system
}

const measure = (layout: Layout): Promise<Result> => {
  const file = join(tempDir(`sqlite-items-${layout}`), "state.db")
  return Effect.gen(function* () {
    yield* prepare(layout)
    const store = yield* ItemStore
    const marks: Array<{ at: number; wall: number; cpu: number }> = []
    const mark = (at: number) => marks.push({ at, wall: performance.now() * 1000, cpu: cpuNow() })
    mark(0)
    for (let start = 0; start < rows; start += batch) {
      const entries = Array.from({ length: Math.min(batch, rows - start) }, (_, i) => item(start + i))
      yield* store.recordItems(entries)
      const done = start + entries.length
      if (done === WINDOW || done === rows - WINDOW || done === rows) mark(done)
      if (done % 100_000 === 0) progress(`${layout}: ${done.toLocaleString("en-US")} rows`)
    }
    const span = (from: number, to: number): Window => {
      const a = marks.find((m) => m.at === from)!
      const b = marks.find((m) => m.at === to)!
      return { wallMicros: (b.wall - a.wall) / (to - from), cpuMicros: (b.cpu - a.cpu) / (to - from) }
    }
    return {
      layout,
      whole: span(0, rows),
      first: span(0, WINDOW),
      last: span(rows - WINDOW, rows),
      bytesPerItem: 0
    }
  }).pipe(
    Effect.provide(ItemStore.layer.pipe(Layer.provideMerge(sqlLayer({ _tag: "sqlite", filename: file })))),
    Effect.scoped,
    Effect.runPromise,
    (p) => p.then((r) => ({ ...r, bytesPerItem: (sizeOf(file) + sizeOf(`${file}-wal`)) / rows }))
  )
}

const sizeOf = (path: string) => statSync(path, { throwIfNoEntry: false })?.size ?? 0

if (rows < 2 * WINDOW) throw new Error(`--rows must be at least ${2 * WINDOW}`)
progress(
  `${rows.toLocaleString("en-US")} item versions per layout, batches of ${batch}, ${rounds} round(s); ${machine()}`
)
const results: Array<Result> = []
for (let round = 0; round < rounds; round++) {
  const order: Array<Layout> = round % 2 === 0 ? ["before", "after"] : ["after", "before"]
  for (const layout of order) {
    const r = await measure(layout)
    results.push(r)
    const f = (w: Window) => `${w.wallMicros.toFixed(1)} µs wall, ${w.cpuMicros.toFixed(1)} µs CPU`
    progress(
      `${layout}: whole ${f(r.whole)}; first ${WINDOW.toLocaleString("en-US")} ${f(r.first)}; last ${WINDOW.toLocaleString("en-US")} ${f(r.last)}; ${(r.bytesPerItem / 1024).toFixed(2)} KB per item`
    )
  }
}

const of = (layout: Layout) => results.filter((r) => r.layout === layout)
const cell = (layout: Layout, pick: (r: Result) => number) =>
  of(layout)
    .map((r) => pick(r).toFixed(1))
    .join(" / ")
const table = [
  "| µs per item | before 0008 (source-first key + reference index) | after 0008–0010 (reference-first key; status index) |",
  "|---|---:|---:|",
  ...(
    [
      ["wall, whole run", (r: Result) => r.whole.wallMicros],
      ["CPU, whole run", (r: Result) => r.whole.cpuMicros],
      [`wall, first ${WINDOW.toLocaleString("en-US")} rows`, (r: Result) => r.first.wallMicros],
      [`CPU, first ${WINDOW.toLocaleString("en-US")} rows`, (r: Result) => r.first.cpuMicros],
      [`wall, last ${WINDOW.toLocaleString("en-US")} rows`, (r: Result) => r.last.wallMicros],
      [`CPU, last ${WINDOW.toLocaleString("en-US")} rows`, (r: Result) => r.last.cpuMicros],
      ["file bytes per item", (r: Result) => r.bytesPerItem]
    ] as const
  ).map(([label, pick]) => `| ${label} | ${cell("before", pick)} | ${cell("after", pick)} |`)
].join("\n")
console.log(table)

if (!has("no-write")) {
  writeDocSection(
    "sqlite-items",
    `## State: recording item versions as the state grows (\`bench/sqlite-items.ts\`)

Command: \`node --conditions=@warden/source bench/sqlite-items.ts --rows ${rows} --rounds ${rounds}\`. A fresh SQLite
file per layout, made by the daemon's migrations and pragmas; ${rows.toLocaleString("en-US")} item versions recorded with
\`ItemStore.recordItems\` (the daemon's statement) in batches of ${batch}, references that are hashes. Includes
building the rows in JavaScript (the same in both). Rounds alternate the order; figures are per round.
Measured ${new Date().toISOString().slice(0, 10)} on ${machine()}, load average ${loadAverage()}.

${table}`
  )
}
