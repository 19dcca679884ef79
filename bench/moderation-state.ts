/**
 * The review queue and the author history on a large SQLite state (issues 36, 37). A fresh SQLite file
 * made by the daemon's migrations, --items item versions recorded with `ItemStore.recordItems` (the
 * record transaction), spread over authors of 50 items each plus one author of --mine items across two
 * sources, every item of the first --pending sent to review (a pending row each), a strike for each
 * of that author's hateful items. Then, --reps times each (the first round not counted), medians:
 *
 * - `GET /api/authors/{key}`'s work (AuthorView.history: summary, 24 h / 7 d / 30 d counts, strikes and
 *   their 30-day series, a page of 50 items with their review rows, actions and feedback);
 * - `GET /api/review`'s work for the first page of 50 and a page deep in the queue (the list, the items,
 *   their actions, the pending counts: ReviewStore and ReviewView);
 * - one decision (`ReviewService.decide`: the transaction with its audit row and strike; a decision that
 *   agrees with the verdict, so no feedback call), on a fresh item each time.
 *
 * Reported: wall and process CPU time per call. The admin API's HTTP layer is not in these figures
 * (~1 ms on loopback).
 *
 *   node --conditions=@warden/source bench/moderation-state.ts [--items 1000000] [--pending 100000] [--mine 300] [--reps 7] [--no-write]
 */
import { createHash } from "node:crypto"
import { createRequire } from "node:module"
import { join } from "node:path"
import { pathToFileURL } from "node:url"
import * as AuthorView from "../apps/daemon/src/admin/AuthorView.ts"
import * as ReviewView from "../apps/daemon/src/admin/ReviewView.ts"
import type { ItemRecord } from "../apps/daemon/src/domain/ItemVersion.ts"
import { FeedbackService } from "../apps/daemon/src/engine/FeedbackService.ts"
import { ReviewService } from "../apps/daemon/src/engine/ReviewService.ts"
import { ActionStore } from "../apps/daemon/src/state/ActionStore.ts"
import { AuthorStore } from "../apps/daemon/src/state/AuthorStore.ts"
import { FeedbackStore } from "../apps/daemon/src/state/FeedbackStore.ts"
import { ItemStore, type RecordEntry } from "../apps/daemon/src/state/ItemStore.ts"
import { rankOf, ReviewStore } from "../apps/daemon/src/state/ReviewStore.ts"
import * as StateStore from "../apps/daemon/src/state/StateStore.ts"
import { sqlLayer } from "../apps/daemon/src/state/StateSql.ts"
import { StrikeStore } from "../apps/daemon/src/state/StrikeStore.ts"
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

const items = flag("items", 1_000_000)
const pending = flag("pending", 100_000)
const mine = flag("mine", 300)
const reps = flag("reps", 7)
const MINE = "rss:mailto:ada@example.org"
const START = 1_700_000_000_000
const DAY = 86_400_000

/** Item `n`: a generated comment, hateful one in seven; of Ada every (items / mine)-th, else of author n / 50. */
const item = (n: number): RecordEntry => {
  const source = n % 2 === 0 ? "forum" : "blog"
  const reference = `rss:${source}/${createHash("md5").update(String(n)).digest("hex")}`
  const text = itemText(n)
  const hateful = n % 7 === 0
  const hers = n % Math.floor(items / mine) === 0
  const authorKey = hers ? MINE : `rss:mailto:u${Math.floor(n / 50)}@example.org`
  // spread over the last 40 days, oldest first
  const createdAt = START - 40 * DAY + Math.floor((n / items) * 40 * DAY)
  const verdict = hateful
    ? { type: "HATEFUL", classifications: ["INSULT"], severity: "HIGH", recommendedAction: "REMOVE" }
    : { type: "NEUTRAL", classifications: ["NEUTRAL"], severity: "NONE", recommendedAction: "KEEP" }
  const record: ItemRecord = {
    source,
    reference,
    version: 1,
    contentHash: createHash("sha256").update(text).digest("hex"),
    contentType: "text",
    status: "analysed",
    mode: "v1",
    endpoint: "/analyze/v1/text",
    request: JSON.stringify({ channelId: CHANNEL, text, reference }),
    response: "{}",
    verdict,
    error: undefined,
    segments: [],
    event: JSON.stringify({
      kind: "upsert",
      reference,
      content: { type: "text", text },
      author: { identifier: authorKey.slice(4), username: hers ? "Ada Lovelace" : `user ${Math.floor(n / 50)}` }
    }),
    authorKey,
    authorName: hers ? "Ada Lovelace" : `user ${Math.floor(n / 50)}`,
    rule: n < pending ? "hold" : undefined,
    analysedAt: new Date(createdAt).toISOString(),
    createdAt
  }
  return {
    item: record,
    sinks: [],
    payload: "{}",
    rule: record.rule,
    review:
      n < pending
        ? {
            source,
            reference,
            version: 1,
            rule: "hold",
            verdictType: verdict.type,
            severityRank: rankOf(verdict.severity),
            authorKey,
            createdAt
          }
        : undefined,
    strike: hers && hateful ? { authorKey, source, reference, weight: 1, at: createdAt } : undefined
  }
}

const cpuNow = () => {
  const u = process.cpuUsage()
  return u.user + u.system
}
interface Timing {
  readonly wallMs: number
  readonly cpuMs: number
}
const med = (ts: ReadonlyArray<Timing>): Timing => ({
  wallMs: median(ts.map((t) => t.wallMs)),
  cpuMs: median(ts.map((t) => t.cpuMs))
})

const file = join(tempDir("moderation-state"), "state.db")
const facts = new Map([
  ["forum", { platform: "rss", actions: [], dryRun: false }],
  ["blog", { platform: "rss", actions: [], dryRun: false }]
])
const noFeedback = Layer.succeed(FeedbackService, {
  send: () => Effect.die(new Error("the bench decides in agreement with the verdict: no feedback"))
})

const results = await Effect.gen(function* () {
  const store = yield* ItemStore
  const build = performance.now()
  for (let start = 0; start < items; start += 500) {
    yield* store.recordItems(Array.from({ length: Math.min(500, items - start) }, (_, i) => item(start + i)))
    if ((start + 500) % 100_000 === 0) progress(`${(start + 500).toLocaleString("en-US")} item versions`)
  }
  progress(`state built in ${((performance.now() - build) / 1000).toFixed(0)} s`)
  const stores: AuthorView.Stores = {
    authors: yield* AuthorStore,
    strikes: yield* StrikeStore,
    reviews: yield* ReviewStore,
    actions: yield* ActionStore,
    feedback: yield* FeedbackStore,
    items: store
  }
  const reviews = stores.reviews
  const service = yield* ReviewService
  const time = <A, E>(effect: Effect.Effect<A, E>) =>
    Effect.gen(function* () {
      const out: Array<Timing> = []
      let last: A | undefined
      for (let rep = 0; rep <= reps; rep++) {
        const wall = performance.now()
        const cpu = cpuNow()
        last = yield* effect
        if (rep > 0) out.push({ wallMs: performance.now() - wall, cpuMs: (cpuNow() - cpu) / 1000 })
      }
      return { timing: med(out), last: last! }
    })

  const history = yield* time(
    AuthorView.history(stores, MINE, { now: START, halfLifeMillis: 7 * DAY, limit: 50, after: undefined })
  )
  progress(`author history: ${history.timing.wallMs.toFixed(1)} ms`)

  const page = (after: Parameters<typeof reviews.list>[0]["after"]) =>
    Effect.gen(function* () {
      const rows = yield* reviews.list({ state: "pending", limit: 51, after })
      const shown = yield* ReviewView.page({ items: store, actions: stores.actions }, rows.slice(0, 50), facts)
      const counts = yield* reviews.pending
      return { rows, shown, counts }
    })
  const first = yield* time(page(undefined))
  // a cursor half way down the queue
  const middle = (yield* reviews.list({ state: "pending", limit: Math.floor(pending / 2) })).at(-1)!
  const deep = yield* time(
    page({
      state: "pending",
      severityRank: middle.severityRank,
      createdAt: middle.createdAt,
      source: middle.source,
      reference: middle.reference
    })
  )
  progress(`queue: first page ${first.timing.wallMs.toFixed(1)} ms, deep page ${deep.timing.wallMs.toFixed(1)} ms`)

  // Decisions on fresh items each time: the oldest neutral items of the queue, approved (agreeing).
  const candidates = (yield* reviews.list({ state: "pending", limit: pending })).filter(
    (r) => r.verdictType === "NEUTRAL"
  )
  let next = candidates.length - 1
  const decision = yield* time(
    Effect.suspend(() => {
      const r = candidates[next--]!
      return service.decide({
        actor: { name: "bench", role: "moderator" },
        source: r.source,
        reference: r.reference,
        decision: "approve"
      })
    })
  )
  progress(`decide: ${decision.timing.wallMs.toFixed(1)} ms`)
  return {
    history: history.timing,
    historyItems: history.last?.body.items.length ?? 0,
    strikes: history.last?.body.strikes.count ?? 0,
    first: first.timing,
    deep: deep.timing,
    pendingTotal: first.last.counts.total,
    decision: decision.timing
  }
}).pipe(
  Effect.provide(
    ReviewService.layer({ sources: facts, appealWindowMillis: 30 * DAY }).pipe(
      Layer.provide(noFeedback),
      Layer.provideMerge(StateStore.layer),
      Layer.provideMerge(sqlLayer({ _tag: "sqlite", filename: file }))
    )
  ),
  Effect.scoped,
  Effect.runPromise
)

const row = (label: string, t: Timing) => `| ${label} | ${t.wallMs.toFixed(1)} | ${t.cpuMs.toFixed(1)} |`
const table = [
  "| call | wall ms | CPU ms |",
  "|---|---:|---:|",
  row(
    `author history (\`GET /api/authors/{key}\`): ${results.historyItems} items of ${mine}, ${results.strikes} strikes`,
    results.history
  ),
  row(`review queue, first page of 50 (${results.pendingTotal.toLocaleString("en-US")} pending)`, results.first),
  row("review queue, a page half way down (cursor)", results.deep),
  row("one decision (`POST /api/decisions/{ref}/review`, no feedback)", results.decision)
].join("\n")
console.log(table)

if (!has("no-write")) {
  writeDocSection(
    "moderation-state",
    `## State: the review queue and the author history (\`bench/moderation-state.ts\`)

Command: \`node --conditions=@warden/source bench/moderation-state.ts --items ${items} --pending ${pending} --mine ${mine} --reps ${reps}\`.
A fresh SQLite file made by the daemon's migrations; ${items.toLocaleString("en-US")} item versions recorded with
\`ItemStore.recordItems\` over 40 days, in two sources, by authors of 50 items each and one of ${mine} (with a strike for
each of her hateful ones); the first ${pending.toLocaleString("en-US")} sent to review. Each call ${reps} times after a
first one not counted, medians; the admin API's HTTP layer is not included (~1 ms on loopback). Targets: the author
history within 100 ms (issue 37); the queue's figures with 100,000 pending (issue 36). Measured
${new Date().toISOString().slice(0, 10)} on ${machine()}, load average ${loadAverage()}.

${table}`
  )
}
