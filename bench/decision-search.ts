/**
 * The cost of the decision search (`GET /api/decisions?q=`, the console's Search box) on SQLite, now
 * that it ignores zero-width and bidirectional characters in the content sent (`state/internal/SearchText.ts`:
 * `COALESCE(warden_search_text(request), request) LIKE ?`), against the plain `request LIKE ?` it
 * replaced. A fresh SQLite file made by the daemon's migrations, --rows item versions recorded with
 * `ItemStore.recordItems` (generated comments, one in 100 with a zero-width space), then each query
 * --reps times, the two forms alternating: a word that is nowhere (the whole table walked), a word in one
 * item in 1,000 and a common word (a page of 50 each). Reported: median wall and process CPU per query.
 *
 *   node --conditions=@warden/source bench/decision-search.ts [--rows 300000] [--reps 7] [--no-write]
 */
import { createHash } from "node:crypto"
import { join } from "node:path"
import { createRequire } from "node:module"
import { pathToFileURL } from "node:url"
import type { ItemRecord } from "../apps/daemon/src/domain/ItemVersion.ts"
import { DecisionStore } from "../apps/daemon/src/state/DecisionStore.ts"
import * as Like from "../apps/daemon/src/state/internal/Like.ts"
import { ItemStore, type RecordEntry } from "../apps/daemon/src/state/ItemStore.ts"
import * as StateStore from "../apps/daemon/src/state/StateStore.ts"
import { sqlLayer } from "../apps/daemon/src/state/StateSql.ts"
import {
  CHANNEL,
  flag,
  has,
  itemText,
  loadAverage,
  machine,
  median,
  progress,
  tempDir,
  writeDocSection
} from "./support/common.ts"

// `effect` as the daemon resolves it (the repository root has none).
const fromDaemon = createRequire(new URL("../apps/daemon/package.json", import.meta.url))
const load = (specifier: string) => import(pathToFileURL(fromDaemon.resolve(specifier)).href)
const { Effect, Layer } = (await load("effect")) as typeof import("../apps/daemon/node_modules/effect/dist/index.js")
const { SqlClient } = (await load(
  "effect/sql"
)) as typeof import("../apps/daemon/node_modules/effect/dist/sql/index.js")

const rows = flag("rows", 300_000)
const reps = flag("reps", 7)
const PAGE = 50

/** Item `n`: a generated comment (one in 1,000 with "zebra", one in 100 with a zero-width space). */
const item = (n: number): RecordEntry => {
  const reference = `rss:bench/${createHash("md5").update(String(n)).digest("hex")}`
  const base = itemText(n)
  const text = `${n % 1000 === 7 ? "zebra " : ""}${n % 100 === 3 ? base.replace(" ", " \u200b") : base}`
  const record: ItemRecord = {
    source: "bench",
    reference,
    version: 1,
    contentHash: createHash("sha256").update(text).digest("hex"),
    contentType: "text",
    status: "analysed",
    mode: "v1",
    endpoint: "/analyze/v1/text",
    request: JSON.stringify({ channelId: CHANNEL, text, reference, permalink: `http://127.0.0.1/p/${n}` }),
    response: '{"textAnalysis":{"type":"NEUTRAL","classifications":["NEUTRAL"]}}',
    verdict: { type: "NEUTRAL", classifications: ["NEUTRAL"], severity: "NONE", recommendedAction: "KEEP" },
    error: undefined,
    segments: [],
    event: JSON.stringify({ kind: "upsert", reference, content: { type: "text", text } }),
    analysedAt: new Date().toISOString(),
    createdAt: 1_700_000_000_000 + n
  }
  return { item: record, sinks: [], payload: "{}" }
}

const QUERIES = [
  ["a word that is nowhere (whole table)", "xylophone"],
  ["a word in 1 item in 1,000 (page of 50)", "zebra"],
  ["a common word (page of 50)", "people"]
] as const

const cpuNow = () => {
  const u = process.cpuUsage()
  return u.user + u.system
}

interface Timing {
  readonly wallMs: number
  readonly cpuMs: number
}

const file = join(tempDir("decision-search"), "state.db")
const results = await Effect.gen(function* () {
  const store = yield* ItemStore
  const decisions = yield* DecisionStore
  const sql = yield* SqlClient.SqlClient
  for (let start = 0; start < rows; start += 500) {
    yield* store.recordItems(Array.from({ length: Math.min(500, rows - start) }, (_, i) => item(start + i)))
    if ((start + 500) % 100_000 === 0) progress(`${(start + 500).toLocaleString("en-US")} rows`)
  }
  // The statement before SearchText, for the same page: the listing order, reference or request LIKE.
  const before = (text: string) =>
    sql`SELECT * FROM warden_items i WHERE 1 = 1
      AND (reference LIKE ${Like.containing(text)} ESCAPE '\\' OR request LIKE ${Like.containing(text)} ESCAPE '\\')
      ORDER BY created_at DESC, source, reference, version DESC LIMIT ${PAGE}`
  const after = (text: string) => decisions.decisions({ limit: PAGE, text })
  const out: Array<{ label: string; before: Timing; after: Timing; found: number }> = []
  for (const [label, text] of QUERIES) {
    const times = { before: [] as Array<Timing>, after: [] as Array<Timing> }
    let found = 0
    for (let rep = 0; rep < reps + 1; rep++) {
      for (const form of rep % 2 === 0 ? (["before", "after"] as const) : (["after", "before"] as const)) {
        const wall = performance.now()
        const cpu = cpuNow()
        const got = yield* form === "before" ? before(text) : after(text)
        // The first round warms the page cache and the statement cache: not counted.
        if (rep > 0) times[form].push({ wallMs: performance.now() - wall, cpuMs: (cpuNow() - cpu) / 1000 })
        found = got.length
      }
    }
    const med = (ts: ReadonlyArray<Timing>): Timing => ({
      wallMs: median(ts.map((t) => t.wallMs)),
      cpuMs: median(ts.map((t) => t.cpuMs))
    })
    out.push({ label, before: med(times.before), after: med(times.after), found })
    progress(
      `${label}: before ${med(times.before).wallMs.toFixed(1)} ms, after ${med(times.after).wallMs.toFixed(1)} ms`
    )
  }
  return out
}).pipe(
  Effect.provide(
    Layer.mergeAll(ItemStore.layer, DecisionStore.layer).pipe(
      Layer.provideMerge(StateStore.layer),
      Layer.provideMerge(sqlLayer({ _tag: "sqlite", filename: file }))
    )
  ),
  Effect.scoped,
  Effect.runPromise
)

const table = [
  "| query | rows found | before: `request LIKE` (wall / CPU ms) | after: hidden characters ignored (wall / CPU ms) |",
  "|---|---:|---:|---:|",
  ...results.map(
    (r) =>
      `| ${r.label} | ${r.found} | ${r.before.wallMs.toFixed(1)} / ${r.before.cpuMs.toFixed(1)} | ${r.after.wallMs.toFixed(1)} / ${r.after.cpuMs.toFixed(1)} |`
  )
].join("\n")
console.log(table)

if (!has("no-write")) {
  writeDocSection(
    "decision-search",
    `## State: the decision search on SQLite (\`bench/decision-search.ts\`)

Command: \`node --conditions=@warden/source bench/decision-search.ts --rows ${rows} --reps ${reps}\`. A fresh SQLite
file made by the daemon's migrations, ${rows.toLocaleString("en-US")} generated comments recorded with \`ItemStore.recordItems\`
(one in 100 with a zero-width space); each query ${reps} times, the two forms alternating, medians. "After" is
\`DecisionStore.decisions\` as the admin API runs it: the content read as
\`COALESCE(warden_search_text(request), request)\`, a function of the connection that answers NULL unless a
zero-width or bidirectional character is there (\`state/internal/SearchText.ts\`). Measured
${new Date().toISOString().slice(0, 10)} on ${machine()}, load average ${loadAverage()}.

${table}`
  )
}
