/**
 * The console's Review and Author pages in Chromium (issue 36's "done when" and issue 37's scenario, the
 * browser part; `review-scenario.test.ts` and `author-scenario.test.ts` are the API's): a moderator,
 * from the keyboard only (j / k / a / r, Enter), works a queue of 200 held items from an RSS feed and
 * a YouTube channel (the fake YouTube Data API of the connector's tests). Every decision is recorded
 * with her name; rejected YouTube comments are rejected on YouTube, approved ones published; the
 * sandbox receives feedback for every decision that disagrees with the verdict, with the stored
 * request byte for byte and `confidence: HIGH`. A second moderator's page (another browser context)
 * follows live and, its stream cut, is told "already decided by alice" for an item she decided; a
 * viewer sees the queue without the decision controls and the API refuses her a decision (403).
 * Then the Author page: three hateful comments of one author shown as 3 strikes with their decay (in
 * words and a chart), and an appeal of the first, upheld from the Review page, removes one; a history
 * longer than a page goes on with "Show older". An item edited with a zero-width space and a script
 * link comes back with its earlier version beside it, the character marked and the link shown as
 * text. axe-core finds nothing serious or critical on either page (desktop and phone); the focus ring
 * stands out 3:1; focus is never left on the body.
 */
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Sandbox } from "@warden/sandbox"
import { Effect, Exit, Layer, Scope } from "effect"
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as FakeYouTube from "../../../packages/connector-youtube/test/fixtures/FakeYouTube.ts"
import { buildConsole } from "../console/build.ts"
import { SinkList } from "../src/sinks/SinkList.ts"
import {
  announced,
  type FocusRing,
  focused,
  focusedKey,
  focusRing,
  seriousViolations
} from "./support/Accessibility.ts"
import { waitFor } from "./support/DaemonProcess.ts"
import { rssSource } from "./support/FeedPipeline.ts"
import { type FeedItem, startFeedServer } from "./support/FeedServer.ts"
import { startDaemonInProcess } from "./support/InProcess.ts"
import { query } from "./support/StateDb.ts"
import { ALICE, BOB, reviewAll, TEAM, VIC, youtubeSource } from "./support/ReviewTeam.ts"

const SCREENSHOTS = process.env.WARDEN_CONSOLE_SCREENSHOTS ?? mkdtempSync(join(tmpdir(), "warden-shots-"))
/** Items per source: 200 in the queue. */
const N = 100
const ADA = "ada@example.org (Ada Lovelace)"
const ADA_KEY = "rss:mailto:ada@example.org"

const strikes = { halfLifeMillis: 7 * 86_400_000, verdicts: [{ when: { type: ["HATEFUL"] }, weight: 1 }], rejection: 1 }

/** Texts the sandbox rates harmful (HATEFUL, REMOVE) or not, alternately; some in German. */
const textOf = (i: number) =>
  i % 2 === 0
    ? i % 10 === 0
      ? `Du bist ein Idiot, Nummer ${i}, und deine Artikel sind wirklich schlecht geschrieben.`
      : `You are an idiot, number ${i}`
    : `Thank you for the article, number ${i}`

let browser: Browser
let sandbox: Awaited<ReturnType<typeof Sandbox.startPromise>>
let feed: Awaited<ReturnType<typeof startFeedServer>>
let blog: Awaited<ReturnType<typeof startFeedServer>>
let fake: FakeYouTube.Fake
let daemon: Awaited<ReturnType<typeof startDaemonInProcess>>
let stateFile: string
const scope = Effect.runSync(Scope.make())
/** axe-core's findings on the Review and Author pages. */
const problems: Record<string, Array<string>> = {}

/** A page signed in with `token`'s printed link, on the Review page. */
const signedIn = async (token: string, options: { bypassCSP?: boolean } = {}): Promise<Page> => {
  const context: BrowserContext = await browser.newContext({ viewport: { width: 1280, height: 900 }, ...options })
  const page = await context.newPage()
  await page.goto(`${daemon.adminUrl}/?token=${token}`)
  await page.getByRole("heading", { name: "Decisions" }).waitFor()
  await page.getByRole("link", { name: /^Review/u }).click()
  await page.getByRole("heading", { name: /^Review/u }).waitFor()
  return page
}

/** The queue's rows on a page (their keys). */
const rowKeys = (page: Page) => page.locator("ol.queue button.pick").evaluateAll((bs) => bs.map((b) => b.dataset.key!))
const selectedKey = (page: Page) => page.locator("ol.queue li.selected button.pick").getAttribute("data-key")

beforeAll(async () => {
  await buildConsole()
  sandbox = await Sandbox.startPromise()
  feed = await startFeedServer(
    Array.from({ length: N }, (_, i): FeedItem => ({ guid: `f${i}`, title: `Comment ${i}`, description: textOf(i) }))
  )
  blog = await startFeedServer([])
  fake = await Effect.runPromise(Effect.provideService(FakeYouTube.make(), Scope.Scope, scope))
  for (let i = 0; i < N; i++) fake.add({ text: textOf(i + 1), author: `viewer${i}` })
  stateFile = join(mkdtempSync(join(tmpdir(), "warden-review-browser-")), "state.db")
  ;[browser, daemon] = await Promise.all([
    chromium.launch({
      executablePath: "/usr/bin/chromium",
      headless: true,
      args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run"]
    }),
    startDaemonInProcess(
      {
        state: { _tag: "sqlite", filename: stateFile },
        api: { apiKey: "sandbox-standard-key", baseUrls: { global: sandbox.url } },
        sources: [
          rssSource(
            { feeds: [{ url: feed.url, id: "forum" }], pollInterval: "200 millis", maxItemsPerPoll: 1000 },
            { id: "forum", platform: "rss", rules: [reviewAll], connectorActions: [] }
          ),
          youtubeSource(fake),
          // Issue 37's author: nothing of this feed goes to review; her hateful comments are strikes.
          rssSource(
            { feeds: [{ url: blog.url, id: "blog" }], pollInterval: "200 millis" },
            { id: "blog", platform: "rss", rules: [], strikes, connectorActions: [] }
          )
        ],
        sinks: Layer.succeed(SinkList, []),
        sinkNames: [],
        authors: { strikes, appealWindowMillis: 30 * 86_400_000 }
      },
      { moderators: TEAM }
    )
  ])
  await waitFor(
    async () => (await daemon.admin("/api/review")).body.pending?.total === 2 * N,
    90_000,
    "200 items in the review queue"
  )
  await waitFor(
    async () => fake.state.comments.every((c) => c.status === "heldForReview"),
    60_000,
    "the YouTube comments held"
  )
}, 180_000)

afterAll(async () => {
  await browser?.close()
  await daemon?.close()
  await Effect.runPromise(Scope.close(scope, Exit.void))
  await feed?.close()
  await blog?.close()
  await sandbox?.close()
})

describe("the Review page in Chromium: 200 held items from RSS and YouTube, worked from the keyboard", () => {
  it("a viewer reads the queue without decision controls, and the API refuses her a decision", async () => {
    const page = await signedIn(VIC)
    await page.locator("ol.queue button.pick").first().waitFor()
    expect(await page.getByRole("link", { name: "Review 200 pending" }).count()).toBe(1)
    expect(await page.getByRole("button", { name: /^Approve/u }).count()).toBe(0)
    await page.getByText("You are signed in as a viewer").waitFor()
    const first = await selectedKey(page)
    await page.keyboard.press("j")
    await page.keyboard.press("a")
    await page.keyboard.press("r")
    expect(await page.locator("form.reject").count()).toBe(0)
    await waitFor(
      async () => (await announced(page)) === "Signed in as a viewer: you can read the queue, not decide",
      5_000,
      "the viewer told"
    )
    const [source, reference] = first!.split("\u001f")
    const status = await page.evaluate(
      async ([s, r]) => {
        const { csrf } = (await (await fetch("/api/session")).json()) as { csrf: string }
        const res = await fetch(`/api/decisions/${encodeURIComponent(r!)}/review?source=${s}`, {
          method: "POST",
          headers: { "content-type": "application/json", "x-warden-csrf": csrf },
          body: JSON.stringify({ decision: "approve" })
        })
        return `${res.status} ${((await res.json()) as { error: { code: string } }).error.code}`
      },
      [source, reference]
    )
    expect(status).toBe("403 FORBIDDEN")
    expect((await daemon.admin("/api/review")).body.pending.total).toBe(200)
    await page.context().close()
  })

  it("filters the queue by source and by kind, kept in the address across a reload", async () => {
    const page = await signedIn(VIC)
    await page.locator("ol.queue button.pick").first().waitFor()
    const sourcesShown = () =>
      page
        .locator("ol.queue button.pick")
        .evaluateAll((bs) => bs.map((b) => (b as HTMLElement).dataset.key?.split("\u001f")[0]))
    const only = (source: string) => async () => {
      const shown = await sourcesShown()
      return shown.length > 0 && shown.every((s) => s === source)
    }
    // Unfiltered, the first page (most severe, then oldest) is the forum's: its items came first.
    expect(await only("forum")()).toBe(true)
    await page.getByLabel("Source").selectOption("yt")
    await waitFor(only("yt"), 10_000, "only the YouTube rows")
    expect(new URL(page.url()).hash).toBe("#/review?source=yt")
    // Scrolled to its end, the filtered queue is the source's 100 rows, no more.
    await waitFor(
      async () => {
        await page.keyboard.press("End")
        await page.locator("ol.queue button.pick").last().focus()
        await page.keyboard.press("j")
        return (
          (await sourcesShown()).length === N && (await page.getByRole("button", { name: "Show more" }).count()) === 0
        )
      },
      20_000,
      `all ${N} YouTube rows read`
    )
    expect(await only("yt")()).toBe(true)
    await page.reload()
    await waitFor(only("yt"), 10_000, "the filter kept across a reload")
    expect(await page.getByLabel("Source").inputValue()).toBe("yt")
    // No appeal was filed: the appeals of this source are none.
    await page.getByLabel("Kind").selectOption("appeal")
    await page.getByText("Nothing to review with these filters.").waitFor()
    expect(new URL(page.url()).hash).toBe("#/review?source=yt&kind=appeal")
    await page.getByLabel("Kind").selectOption("item")
    await page.getByLabel("Source").selectOption("forum")
    await waitFor(only("forum"), 10_000, "only the forum's held items")
    await page.getByLabel("Source").selectOption("")
    await waitFor(
      async () => new URL(page.url()).hash === "#/review?kind=item",
      10_000,
      "the address without the source"
    )
    expect(await only("forum")()).toBe(true)
    await page.context().close()
  })

  it("alice decides all 200 with j/k/a/r; bob's page follows live; a page without its stream is told 'already decided by alice', and catches up when it reconnects", async () => {
    const all = (await daemon.admin("/api/review?limit=500")).body.items as Array<{
      source: string
      reference: string
      version: number
      kind: string
      verdict: { recommendedAction?: string }
    }>
    expect(all).toHaveLength(200)
    const harmful = new Map(
      all.map((i) => [
        `${i.source}\u001f${i.reference}\u001f${i.version}\u001f${i.kind}`,
        i.verdict.recommendedAction === "REMOVE"
      ])
    )
    const alice = await signedIn(ALICE, { bypassCSP: true })
    const bob = await signedIn(BOB)
    // A third page whose stream is cut: it cannot know what alice decided.
    const stale = await browser.newContext({ viewport: { width: 1280, height: 900 } })
    await stale.route("**/api/review/stream", (route) => route.abort())
    const stalePage = await stale.newPage()
    await stalePage.goto(`${daemon.adminUrl}/?token=${BOB}`)
    await stalePage.getByRole("heading", { name: "Decisions" }).waitFor()
    await stalePage.goto(`${daemon.adminUrl}/#/review`)
    await stalePage.locator("ol.queue button.pick").first().waitFor()
    for (const page of [alice, bob]) await page.getByText("Live: decisions by other moderators").waitFor()

    // One screen: content with its language, author, verdict, rule, what the platform will do.
    await alice.locator("ol.queue button.pick").first().waitFor()
    const panel = alice.locator("section.review-item")
    await panel.getByText("Rule").waitFor()
    expect(await panel.locator("code").first().textContent()).toBe("review-all")
    // The page's keys, listed by "?".
    await alice.keyboard.press("?")
    await alice.getByRole("dialog", { name: "Keys of the Review page" }).waitFor()
    expect(await seriousViolations(alice)).toEqual([])
    await alice.keyboard.press("Escape")
    expect(await alice.getByRole("dialog").count()).toBe(0)
    problems.review = await seriousViolations(alice)
    await alice.screenshot({ path: join(SCREENSHOTS, "console-review.png") })
    // The focus ring stands out 3:1 on the panel's links and buttons and on a row of the queue.
    const rings: Array<FocusRing> = []
    await panel.locator("a").first().focus()
    for (let i = 0; i < 5; i++) {
      rings.push(await focusRing(alice))
      await alice.keyboard.press("Tab")
    }
    await alice.locator("ol.queue button.pick").first().focus()
    rings.push(await focusRing(alice))
    expect(rings.map((r) => r.element.split(" ")[0])).toEqual(expect.arrayContaining(["A", "BUTTON"]))
    expect(rings.filter((r) => r.style === "none" || r.width < 2 || r.contrast < 3)).toEqual([])
    await alice.locator("h1").focus()

    // j enters the queue on the selected row; j / k move.
    const firstKey = await selectedKey(alice)
    await alice.keyboard.press("j")
    await waitFor(async () => (await focused(alice)).startsWith("BUTTON"), 5_000, "focus on the first row")
    expect(await selectedKey(alice)).toBe(firstKey)
    await alice.keyboard.press("j")
    const secondKey = await selectedKey(alice)
    expect(secondKey).not.toBe(firstKey)
    await alice.keyboard.press("k")
    expect(await selectedKey(alice)).toBe(firstKey)

    // The stale page's first item, decided by alice first: it is told who, and nothing is done twice.
    const staleFirst = await selectedKey(stalePage)
    expect(staleFirst).toBe(firstKey)

    const decided = new Map<string, "approve" | "reject">()
    const started = performance.now()
    let n = 0
    let sawRss = false
    let sawYouTube = false
    while (decided.size < 200) {
      // The selected row and what the page says a decision will do there, read at once.
      const [key, words] = await alice.evaluate(() => [
        document.querySelector<HTMLElement>("ol.queue li.selected button.pick")!.dataset.key!,
        document.querySelector(".platform-words")!.textContent!
      ])
      if (key.startsWith("forum\u001f")) {
        expect(words).toContain("recorded in Warden only")
        sawRss = true
      } else {
        expect(words).toContain("approving publishes it on the platform; rejecting rejects it on the platform")
        sawYouTube = true
      }
      const decision = n % 2 === 0 ? "approve" : "reject"
      if (decision === "approve") await alice.keyboard.press("a")
      else {
        await alice.keyboard.press("r")
        // The form opens on its note (Enter sends from there).
        await alice.waitForFunction(() => document.activeElement?.id === "reject-note", null, { timeout: 5_000 })
        if (n % 4 === 1) await alice.keyboard.type("spam")
        await alice.keyboard.press("Enter")
      }
      decided.set(key, decision)
      n++
      // Off the queue, and focus on the next row (on the heading after the last): never the body.
      await alice.waitForFunction(
        (k) =>
          ![...document.querySelectorAll<HTMLElement>("ol.queue button.pick")].some((b) => b.dataset.key === k) &&
          (document.activeElement?.matches("ol.queue li.selected button.pick") === true ||
            (document.activeElement?.tagName === "H1" && document.querySelector("ol.queue li") === null)),
        key,
        { timeout: 10_000 }
      )
      // The cut page's stream comes back after 20 decisions it did not hear of: read again on reconnection.
      if (n === 20) await stale.unroute("**/api/review/stream")
      if (n === 1) {
        // Bob's page: the row alice decided leaves his screen without a reload.
        await waitFor(async () => !(await rowKeys(bob)).includes(key), 10_000, "the row gone from bob's page")
        await stalePage.keyboard.press("j")
        await stalePage.keyboard.press("a")
        await stalePage.locator("p.result", { hasText: /^Not done: .*already decided by alice/u }).waitFor()
        expect(await rowKeys(stalePage)).not.toContain(key)
        expect(await focused(stalePage)).toMatch(/^BUTTON/u)
        // Bob hears it without his focus moving.
        await waitFor(
          async () => /^\d+ decided by another moderator$/u.test(await announced(bob)),
          5_000,
          "bob told of alice's decisions"
        )
      }
    }
    const took = performance.now() - started
    expect(sawRss && sawYouTube).toBe(true)
    await alice.getByText("Nothing to review.").waitFor()
    expect(await focused(alice)).toMatch(/^H1 Review/u)
    // Bob's screen followed: empty, his count 0.
    await bob.getByText("Nothing to review.").waitFor({ timeout: 15_000 })
    await bob.getByRole("link", { name: "Review 0 pending" }).waitFor({ timeout: 15_000 })
    await stalePage.getByText("Nothing to review.").waitFor({ timeout: 15_000 })
    await stalePage.getByRole("link", { name: "Review 0 pending" }).waitFor({ timeout: 15_000 })
    console.log(`alice decided 200 items from the keyboard in ${Math.round(took)} ms`)

    // Every decision recorded with her name.
    const recorded = (await daemon.admin("/api/review?state=decided&limit=500")).body.items as Array<{
      source: string
      reference: string
      version: number
      kind: string
      state: string
      decidedBy: string
    }>
    expect(recorded).toHaveLength(200)
    for (const r of recorded) {
      const d = decided.get(`${r.source}\u001f${r.reference}\u001f${r.version}\u001f${r.kind}`)
      expect(r.decidedBy).toBe("alice")
      expect(r.state).toBe(d === "approve" ? "approved" : "rejected")
    }
    const audit = (await daemon.admin("/api/audit?actor=alice&limit=1000")).body.entries as Array<{ action: string }>
    expect(audit.filter((e) => e.action === "review.approve" || e.action === "review.reject")).toHaveLength(200)

    // YouTube: rejected comments rejected, approved ones published.
    await waitFor(
      () =>
        [...decided].every(([key, d]) => {
          const [source, reference] = key.split("\u001f")
          if (source !== "yt") return true
          const c = fake.state.comments.find((x) => `youtube:${x.id}` === reference)!
          return c.status === (d === "approve" ? "published" : "rejected")
        }),
      60_000,
      "the YouTube decisions on YouTube"
    )

    // Feedback for every disagreement (approve a harmful one, reject a harmless one), byte for byte, HIGH.
    const disagreements = [...decided].filter(([key, d]) => (d === "approve") === harmful.get(key))
    expect(disagreements.length).toBeGreaterThan(50)
    const received = await Effect.runPromise(sandbox.feedback)
    expect(received).toHaveLength(disagreements.length)
    for (const [key] of disagreements) {
      const [source, reference] = key.split("\u001f")
      const [stored] = query<{ request: string }>(
        stateFile,
        "SELECT request FROM warden_items WHERE source = ? AND reference = ?",
        source!,
        reference!
      )
      const match = received.filter((f) => f.rawBody.includes(`"analyzeRequest":${stored!.request}`))
      expect(match).toHaveLength(1)
      expect(JSON.parse(match[0]!.rawBody).confidence).toBe("HIGH")
    }
    for (const page of [alice, bob]) await page.context().close()
    await stale.close()
  }, 240_000)
})

describe("an edited item on the Review page", () => {
  it("comes back to the queue as its new version, its earlier version on the same screen", async () => {
    // Edited by a hostile hand: a zero-width space in a word, a script link.
    const EDITED = "Edited: thank you, and sorry for the ty\u200bpo, number 1"
    feed.setItems(
      Array.from(
        { length: N },
        (_, i): FeedItem =>
          i === 1
            ? { guid: `f${i}`, title: `Comment ${i}`, description: EDITED, link: "javascript:alert(document.domain)" }
            : { guid: `f${i}`, title: `Comment ${i}`, description: textOf(i) }
      )
    )
    const page = await signedIn(ALICE)
    // Shown marked, never obeyed; the link shown as text.
    const content = page.locator("section.review-item blockquote").filter({ hasText: "ty⟨U+200B⟩po, number 1" })
    await content.waitFor({ timeout: 30_000 })
    expect(await page.locator("section.review-item code.unsafe-link").first().textContent()).toBe(
      "javascript:alert(document.domain)"
    )
    expect(await page.locator('a[href^="javascript:"]').count()).toBe(0)
    const earlier = page.locator("ul.versions li")
    await earlier.first().waitFor()
    expect(await earlier.allTextContents()).toEqual([
      expect.stringMatching(/^v1 .*Thank you for the article, number 1$/su)
    ])
    expect(await page.locator("section.review-item dd", { hasText: /^2$/u }).count()).toBe(1)
    await page.keyboard.press("j")
    await page.keyboard.press("a")
    await page.getByText("Nothing to review.").waitFor()
    // The decisions list's Outcome and the decision's page say who decided its review.
    await page.goto(`${daemon.adminUrl}/#/?q=${encodeURIComponent("Edited: thank you")}`)
    const outcome = page.locator('tbody td[data-label="Outcome"]')
    await outcome.first().waitFor()
    expect(await outcome.first().locator(".rule, .review-state").allTextContents()).toEqual([
      "Rule review-all",
      "Review: approved by alice"
    ])
    await page.locator("tbody td.content a").first().click()
    const why = page.getByRole("region", { name: "Why: the rule that matched" })
    await why.locator("li").first().waitFor()
    expect(await why.locator("li").allTextContents()).toEqual([
      expect.stringMatching(/^v2 Review: approved by alice \(/u),
      expect.stringMatching(/^v1 Review: (approved|rejected) by alice \(/u)
    ])
    await page.context().close()
  }, 60_000)
})

describe("the Author page: three strikes decaying, an upheld appeal removes one", () => {
  it("shows the strikes in words and a chart; an appeal upheld from the Review page takes one away", async () => {
    blog.setItems([
      { guid: "a1", title: "a1", description: "You are an idiot, zebra-one", author: ADA },
      { guid: "a2", title: "a2", description: "You are a pathetic idiot, zebra-two", author: ADA },
      { guid: "a3", title: "a3", description: "Idiot. zebra-three", author: ADA },
      // A prolific, friendly author: a history of more than one page.
      ...Array.from({ length: 55 }, (_, i) => ({
        guid: `b${i}`,
        title: `b${i}`,
        description: `Thank you for part ${i} of the series`,
        author: "bob@example.org (Bob)"
      }))
    ])
    await waitFor(
      async () =>
        (await daemon.admin(`/api/authors/${encodeURIComponent(ADA_KEY)}`)).body.strikes?.count === 3 &&
        (await daemon.admin(`/api/authors/${encodeURIComponent("rss:mailto:bob@example.org")}?limit=100`)).body.items
          ?.length === 55,
      60_000,
      "three strikes, and bob's 55 items"
    )
    const page = await signedIn(ALICE, { bypassCSP: true })
    await page.goto(`${daemon.adminUrl}/#/authors/${encodeURIComponent(ADA_KEY)}`)
    const explanation = page.locator("p.explanation")
    await explanation.waitFor()
    expect(await explanation.textContent()).toMatch(/^3 strikes, 3\.0 after decay; the last on \d\d-\d\d/u)
    // The chart: labelled axes, and its words for a screen reader.
    const chart = page.getByRole("img", { name: /Strike score, past 30 days and next 14/u })
    expect(await chart.getAttribute("aria-labelledby")).toBe("strike-chart-title strike-chart-desc")
    expect(await page.locator("#strike-chart-desc").textContent()).toMatch(
      /now 3\.0; 1\.5 in 7 days and 0\.7 in 14 if no new strike comes \(half-life 7d\)\./u
    )
    expect(await chart.locator("text.tick").allTextContents()).toContain("today")
    expect(await page.locator("table.history tbody tr").count()).toBe(3)
    expect(await page.locator("table.counts tbody tr:first-child td").first().textContent()).toBe("3")
    problems.author = await seriousViolations(page)
    await page.screenshot({ path: join(SCREENSHOTS, "console-author.png"), fullPage: true })

    // An integration files an appeal of the first: it arrives on the Review page live, announced.
    const [first] = query<{ reference: string }>(
      stateFile,
      "SELECT reference FROM warden_items WHERE source = 'blog' AND request LIKE '%zebra-one%'"
    )
    await page.getByRole("link", { name: /^Review/u }).click()
    await page.getByText("Nothing to review.").waitFor()
    await page.getByText("Live: decisions by other moderators").waitFor()
    const filed = await daemon.admin("/api/appeals", {
      method: "POST",
      body: JSON.stringify({ source: "blog", reference: first!.reference, statement: "A joke between friends" })
    })
    expect(filed.status).toBe(200)
    await page.getByText("A joke between friends").waitFor({ timeout: 15_000 })
    await waitFor(async () => (await announced(page)) === "1 new to review", 10_000, "'1 new to review'")
    await page.getByRole("heading", { name: /^Appeal of an item/u }).waitFor()
    // The review item links its author's page; the way back puts focus on the row.
    await page.getByRole("link", { name: "Ada Lovelace" }).click()
    await page.locator("p.explanation").waitFor()
    expect(await focused(page)).toMatch(/^H1 Author/u)
    // Back on the Review page, it opens its stream, then reads the queue again: an appeal filed before
    // both are done is simply in the list it reads (the flake: no "Show 1 new" then). Wait for them.
    const reread = page.waitForResponse((r) => new URL(r.url()).pathname === "/api/review")
    await page.goBack()
    await waitFor(async () => (await focused(page)).startsWith("BUTTON"), 10_000, "focus back on the appeal's row")
    await reread
    await page.getByText("Live: decisions by other moderators").waitFor()
    // A second appeal while focus is in the queue: it waits behind "Show 1 new", announced.
    const [second] = query<{ reference: string }>(
      stateFile,
      "SELECT reference FROM warden_items WHERE source = 'blog' AND request LIKE '%zebra-two%'"
    )
    const filed2 = await daemon.admin("/api/appeals", {
      method: "POST",
      body: JSON.stringify({ source: "blog", reference: second!.reference, statement: "Not me, my cat" })
    })
    expect(filed2.status).toBe(200)
    await page.getByRole("button", { name: "Show 1 new" }).waitFor({ timeout: 15_000 })
    await waitFor(async () => (await announced(page)) === "1 new to review", 10_000, "'1 new to review' again")
    expect(await rowKeys(page)).toHaveLength(1)
    expect(await focused(page)).toMatch(/^BUTTON/u)
    await page.keyboard.press("a")
    await page.locator("p.result").waitFor()
    expect(await page.locator("p.result").textContent()).toMatch(
      /^Upheld “a1 You are an idiot, zebra-one”: not possible on this platform \(recorded in Warden only\); feedback sent\.$/u
    )
    // The queue emptied: the waiting appeal is shown and focus goes to it. Escape cancels a deny, r + Enter denies.
    await page.getByText("Not me, my cat").waitFor()
    await waitFor(
      async () => (await focused(page)).includes("Not me") || (await focused(page)).includes("zebra-two"),
      5_000,
      "focus on the second appeal"
    )
    await page.keyboard.press("r")
    await waitFor(async () => (await focused(page)).startsWith("INPUT"), 5_000, "focus on the note")
    await page.keyboard.press("Escape")
    await waitFor(async () => (await focused(page)).startsWith("BUTTON"), 5_000, "focus back on the row after Escape")
    expect(await page.locator("form.reject").count()).toBe(0)
    await page.keyboard.press("r")
    await waitFor(async () => (await focused(page)).startsWith("INPUT"), 5_000, "focus on the note")
    await page.keyboard.press("Enter")
    await page.locator("p.result", { hasText: /^Denied “a2/u }).waitFor()
    expect(await focused(page)).toMatch(/^H1 Review/u)
    await page.setViewportSize({ width: 390, height: 844 })
    problems["review on a phone"] = await seriousViolations(page)
    await page.setViewportSize({ width: 1280, height: 900 })

    await page.goto(`${daemon.adminUrl}/#/authors/${encodeURIComponent(ADA_KEY)}`)
    await page.reload()
    await explanation.waitFor()
    expect(await explanation.textContent()).toMatch(/^2 strikes, 2\.0 after decay/u)
    expect(await page.locator("table.strikes tr.removed").textContent()).toContain("by alice: appeal upheld")
    expect(await page.locator("table.history tbody tr", { hasText: "upheld by alice" }).count()).toBe(1)
    expect(await page.locator("table.history tbody tr", { hasText: "denied by alice" }).count()).toBe(1)
    await page.setViewportSize({ width: 390, height: 844 })
    problems["author on a phone"] = await seriousViolations(page)

    // Bob's history, 55 items: 50 shown, "Show older" adds the rest and moves focus to the first of them.
    await page.setViewportSize({ width: 1280, height: 900 })
    await page.goto(`${daemon.adminUrl}/#/authors/${encodeURIComponent("rss:mailto:bob@example.org")}`)
    await page.reload()
    const rows = page.locator("table.history tbody tr")
    await waitFor(async () => (await rows.count()) === 50, 30_000, "bob's first page")
    expect(await page.locator("p.explanation").textContent()).toMatch(/^No strikes/u)
    await page.getByRole("button", { name: "Show older" }).focus()
    await page.keyboard.press("Enter")
    await waitFor(async () => (await rows.count()) === 55, 10_000, "bob's older items")
    const fiftyFirst = await rows.nth(50).locator("a").getAttribute("data-key")
    await waitFor(async () => (await focusedKey(page)) === fiftyFirst, 5_000, "focus on the first older item")
    await waitFor(async () => (await announced(page)) === "5 older shown: the oldest", 5_000, "the announcement")
    await page.context().close()
    expect(problems).toEqual({ review: [], author: [], "review on a phone": [], "author on a phone": [] })
  }, 90_000)
})
