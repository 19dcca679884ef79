/**
 * The review console in a real browser: Debian's Chromium (`/usr/bin/chromium`, installed by `.ci/run`
 * when missing; never a downloaded browser) driven by playwright-core, against `warden demo` as a user
 * runs it: sign in with the printed link, no data without it, filter by Type, open a threat, mark it
 * wrong and find the feedback at the sandbox with the exact stored request; a cross-site form is
 * refused. A second daemon, whose feed the test controls, shows a decision arriving without a reload;
 * a third reads a hostile feed: script and data links shown as text, bidirectional overrides and
 * zero-width characters marked and seen through by the search, a 26,000-character comment clamped in
 * the list; and a moderator signs in with the token form, sends feedback and signs out (and a sign-out
 * the stopped daemon cannot answer is said so). Every request the page makes goes to 127.0.0.1.
 *
 * For the keyboard and screen readers (issue 36): focus goes to each new view's heading and back to the
 * row opened (the filters in the address), never to the body after Send, Cancel, Restore or "Show
 * older"; arrivals and results are announced in the live region; new rows wait behind "Show N new"
 * while focus is in the list; content carries its language; the focus ring's contrast is computed
 * from the styles; the pipeline's tables scroll from the keyboard on a phone; and axe-core (WCAG 2.1
 * AA, in a `bypassCSP` context only) finds nothing serious or critical on any page. The Outcome column
 * and the decision page name the rule that matched, with or without a platform action.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { mkdtempSync } from "node:fs"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { type Browser, chromium, type Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { buildConsole } from "../console/build.ts"
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
import { startFeedServer } from "./support/FeedServer.ts"
import { ADMIN_TOKEN } from "./support/InProcess.ts"
import { startSandboxDaemon } from "./support/SandboxDaemon.ts"
import { query } from "./support/StateDb.ts"
import { platformSource } from "./support/TestPlatform.ts"

const bin = new URL("../src/bin.ts", import.meta.url).pathname

/** Where the screenshots go (the docs' pictures are taken from a run of this test). */
const SCREENSHOTS = process.env.WARDEN_CONSOLE_SCREENSHOTS ?? mkdtempSync(join(tmpdir(), "warden-shots-"))

let browser: Browser
let demo: ChildProcess
let demoErr = ""
let consoleLink: string
let sandboxUrl: string
const requested: Array<string> = []

const launch = () =>
  chromium.launch({
    executablePath: "/usr/bin/chromium",
    headless: true,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--no-first-run"
    ]
  })

/**
 * A new page that records every request it makes. `bypassCSP` only for the axe audit, whose injected
 * script the console's Content-Security-Policy refuses.
 */
const newPage = async (options: { bypassCSP?: boolean } = {}): Promise<Page> => {
  const context = await browser.newContext({ viewport: { width: 1280, height: 860 }, ...options })
  const page = await context.newPage()
  page.on("request", (r) => requested.push(r.url()))
  return page
}

beforeAll(async () => {
  await buildConsole()
  demo = spawn(process.execPath, ["--conditions=@warden/source", bin, "demo", "--format", "json"], {
    env: { PATH: process.env.PATH ?? "", NODE_NO_WARNINGS: "1" },
    stdio: ["ignore", "ignore", "pipe"]
  })
  demo.stderr!.on("data", (d: Buffer) => {
    demoErr += d.toString()
  })
  ;[browser] = await Promise.all([
    launch(),
    waitFor(() => /console\s+http:\/\/\S+/u.test(demoErr), 60_000, "the demo's console link")
  ])
  consoleLink = /console\s+(http:\/\/\S+)/u.exec(demoErr)![1]!
  sandboxUrl = /sandbox API\s+(http:\/\/\S+)/u.exec(demoErr)![1]!
}, 90_000)

afterAll(async () => {
  await browser?.close()
  if (demo !== undefined && demo.exitCode === null) {
    demo.kill("SIGTERM")
    await new Promise((resolve) => demo.once("exit", resolve))
  }
})

const origin = () => new URL(consoleLink).origin

/** The feedback a sandbox received (`GET /_sandbox/feedback`), each with the raw body as sent. */
const sandboxFeedback = async (url: string): Promise<Array<{ rawBody: string }>> =>
  ((await (await fetch(`${url}/_sandbox/feedback`)).json()) as { feedback: Array<{ rawBody: string }> }).feedback

describe("review console in Chromium against warden demo", () => {
  /** A signed-in page of the demo's list filtered by Type HATEFUL, once at least `rows` are shown. */
  const hatefulOnly = async (rows: number) => {
    const page = await newPage()
    await page.goto(consoleLink)
    await page.locator("tbody tr").first().waitFor()
    await page.getByLabel("Type", { exact: true }).selectOption("HATEFUL")
    await waitFor(
      async () => {
        const types = await page.locator('tbody td[data-label="Type"]').allTextContents()
        return types.length >= rows && types.every((t) => t === "HATEFUL")
      },
      20_000,
      "only HATEFUL rows"
    )
    return page
  }

  it("without the token the page asks for it and shows no data", async () => {
    const page = await newPage()
    await page.goto(`${origin()}/`)
    await page.getByLabel("Admin token").waitFor()
    expect(await page.locator("table").count()).toBe(0)
    const answer = await page.evaluate(async () => (await fetch("/api/decisions")).status)
    expect(answer).toBe(401)
    await page.context().close()
  })

  it("signs in with the printed link: HttpOnly SameSite=Strict cookie, token gone from the address bar", async () => {
    expect(consoleLink).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=/u)
    const page = await newPage()
    await page.goto(consoleLink)
    await page.getByRole("heading", { name: "Decisions" }).waitFor()
    expect(page.url()).toBe(`${origin()}/`)
    const cookies = await page.context().cookies()
    expect(cookies).toHaveLength(1)
    expect(cookies[0]).toMatchObject({ name: "warden_session", httpOnly: true, sameSite: "Strict" })
    expect(cookies[0]!.value).not.toContain(new URL(consoleLink).searchParams.get("token")!)
    // The script cannot read it either.
    expect(await page.evaluate(() => document.cookie)).toBe("")
    await page.locator("tbody tr").first().waitFor()
    await page.screenshot({ path: join(SCREENSHOTS, "console-decisions.png") })
    await page.context().close()
  })

  it("filters by Type, opens a threat, marks it wrong: the sandbox gets the exact stored request", async () => {
    const page = await hatefulOnly(1)
    const threat = page.locator("tbody tr", {
      has: page.locator('td[data-label="Classifications"]', { hasText: "THREAT" })
    })
    await threat.first().waitFor({ timeout: 30_000 })
    const reference = (await threat.first().getAttribute("data-reference"))!
    await threat.first().locator("td.content a").click()
    await page.getByRole("heading", { name: "Verdict" }).waitFor()
    expect(await page.getByText("THREAT").count()).toBeGreaterThan(0)

    await page.getByRole("button", { name: "Mark wrong" }).click()
    // One checkbox per classification, labelled with its name; "wrong" unticks the verdict's.
    expect(await page.getByRole("checkbox", { name: "THREAT" }).isChecked()).toBe(false)
    await page.screenshot({ path: join(SCREENSHOTS, "console-decision.png"), fullPage: true })
    await page.getByRole("button", { name: "Send", exact: true }).click()
    await page.getByRole("status").filter({ hasText: "Feedback sent" }).waitFor()

    const detail = (await page.evaluate(
      async (ref) => (await fetch(`/api/decisions/${encodeURIComponent(ref)}?source=demo`)).json(),
      reference
    )) as { latest: { request: unknown }; feedback: Array<unknown> }
    expect(detail.feedback).toHaveLength(1)
    const list = await sandboxFeedback(sandboxUrl)
    expect(list).toHaveLength(1)
    // Byte for byte: the stored request text (compact JSON, which the API gives as JSON) is the analyzeRequest sent.
    expect(list[0]!.rawBody).toContain(`"analyzeRequest":${JSON.stringify(detail.latest.request)}`)
    expect(JSON.parse(list[0]!.rawBody).classificationsToRemove).toContain("THREAT")
    await page.context().close()
  })

  it("focus: every navigation puts it on the new view's heading; back on the list, on the row opened, the filters kept in the address", async () => {
    const page = await hatefulOnly(3)
    expect(new URL(page.url()).hash).toBe("#/?type=HATEFUL")
    // The third row, opened from the keyboard.
    const link = page.locator("tbody tr").nth(2).locator("td.content a")
    const key = await link.getAttribute("data-key")
    await link.focus()
    await page.keyboard.press("Enter")
    await page.getByRole("heading", { name: "Verdict" }).waitFor()
    expect(await focused(page)).toMatch(/^H1 Decision /u)
    // The way back names the filtered list.
    expect(await page.getByRole("link", { name: "← Decisions" }).getAttribute("href")).toBe("#/?type=HATEFUL")
    await page.goBack()
    await waitFor(async () => (await focusedKey(page)) === key, 10_000, "focus back on the opened row")
    expect(new URL(page.url()).hash).toBe("#/?type=HATEFUL")
    expect(await page.getByLabel("Type", { exact: true }).inputValue()).toBe("HATEFUL")
    // The header's links move it too.
    await page.getByRole("link", { name: "Pipeline", exact: true }).focus()
    await page.keyboard.press("Enter")
    await waitFor(async () => (await focused(page)) === "H1 Pipeline", 10_000, "focus on the pipeline's heading")
    await page.context().close()
  })

  it("focus is never left on the body: Cancel gives it back to the button that opened the form, Send keeps it", async () => {
    const page = await newPage()
    await page.goto(consoleLink)
    const first = page.locator("tbody tr").first().locator("td.content a")
    await first.click()
    await page.getByRole("heading", { name: "Verdict" }).waitFor()
    await page.getByRole("button", { name: "Send feedback" }).click()
    // The form opens on its first checkbox.
    expect(await focused(page)).toMatch(/^INPUT/u)
    await page.getByRole("button", { name: "Cancel" }).focus()
    await page.keyboard.press("Enter")
    await waitFor(async () => (await focused(page)) === "BUTTON Send feedback", 5_000, "focus on Send feedback")
    await page.getByRole("button", { name: "Mark wrong" }).focus()
    await page.keyboard.press("Enter")
    await page.getByRole("button", { name: "Send", exact: true }).focus()
    await page.keyboard.press("Enter")
    await page.getByRole("status").filter({ hasText: "Feedback sent" }).waitFor()
    expect(await focused(page)).toBe("BUTTON Send")
    await page.context().close()
  })

  it("'Show older' moves focus to the first older row and says how many it added", async () => {
    const all = async () => {
      const res = await fetch(`${origin()}/api/decisions?limit=1000`, {
        headers: { authorization: `Bearer ${new URL(consoleLink).searchParams.get("token")}` }
      })
      return ((await res.json()) as { decisions: Array<unknown> }).decisions.length
    }
    // Every demo comment recorded (60): the list's first page is 50 of them.
    await waitFor(async () => (await all()) === 60, 60_000, "the demo's 60 decisions")
    const page = await newPage()
    await page.goto(consoleLink)
    await waitFor(async () => (await page.locator("tbody tr").count()) === 50, 20_000, "the first page")
    await page.getByRole("button", { name: "Show older" }).focus()
    await page.keyboard.press("Enter")
    await waitFor(async () => (await page.locator("tbody tr").count()) === 60, 10_000, "the older rows")
    const eleventh = await page.locator("tbody tr").nth(50).locator("td.content a").getAttribute("data-key")
    await waitFor(async () => (await focusedKey(page)) === eleventh, 5_000, "focus on the first older row")
    await waitFor(async () => (await announced(page)) === "10 older shown: the oldest", 5_000, "the announcement")
    // The last page: the button is gone, focus was not on it.
    expect(await page.getByRole("button", { name: "Show older" }).count()).toBe(0)
    await page.context().close()
  })

  it("the focus ring stands out 3:1 from the light backgrounds it is drawn on, for every Tab stop of the list and a decision", async () => {
    const page = await newPage()
    await page.goto(consoleLink)
    await page.locator("tbody tr").first().waitFor()
    const rings: Array<FocusRing> = []
    /** Up to `stops` Tab stops on, until the end of the page. */
    const tabThrough = async (stops: number) => {
      for (let i = 0; i < stops; i++) {
        await page.keyboard.press("Tab")
        if ((await focused(page)) === "BODY") return
        rings.push(await focusRing(page))
      }
    }
    await tabThrough(14)
    await page.locator("tbody tr").first().locator("td.content a").click()
    await page.getByRole("heading", { name: "Verdict" }).waitFor()
    await page.getByRole("button", { name: "Send feedback" }).click()
    await tabThrough(30)
    // The header's links (dark background) and the page's controls (light) alike.
    expect(rings.filter((r) => r.style === "none" || r.width < 2 || r.contrast < 3)).toEqual([])
    expect(rings.some((r) => r.element.startsWith("SELECT"))).toBe(true)
    expect(rings.some((r) => r.element.startsWith("INPUT"))).toBe(true)
    await page.context().close()
  })

  it("on a phone the pipeline's tables scroll sideways in boxes a keyboard can reach and scroll", async () => {
    const page = await newPage()
    await page.setViewportSize({ width: 390, height: 844 })
    await page.goto(consoleLink)
    await page.getByRole("link", { name: "Pipeline", exact: true }).click()
    const box = page.getByRole("region", { name: "API quota table" })
    await box.waitFor()
    expect(await box.getAttribute("tabindex")).toBe("0")
    // Reached by Tab from the heading, like any control.
    await page.getByRole("heading", { name: "Pipeline" }).focus()
    await waitFor(
      async () => {
        await page.keyboard.press("Tab")
        return (await page.evaluate(() => document.activeElement?.getAttribute("aria-label"))) === "API quota table"
      },
      10_000,
      "Tab reaching the quota table"
    )
    await page.keyboard.press("ArrowRight")
    await page.keyboard.press("ArrowRight")
    await waitFor(async () => (await box.evaluate((e) => e.scrollLeft)) > 0, 5_000, "the table scrolled")
    await page.context().close()
  })

  it("axe-core finds no serious or critical WCAG 2.1 AA violation on any page, desktop or phone", async () => {
    const page = await newPage({ bypassCSP: true })
    const problems: Record<string, Array<string>> = {}
    await page.goto(`${origin()}/`)
    await page.getByLabel("Admin token").waitFor()
    problems["sign-in"] = await seriousViolations(page)
    await page.goto(consoleLink)
    await page.locator("tbody tr").first().waitFor()
    problems.decisions = await seriousViolations(page)
    await page.locator("tbody tr").first().locator("td.content a").click()
    await page.getByRole("heading", { name: "Verdict" }).waitFor()
    await page.getByRole("button", { name: "Mark wrong" }).click()
    problems.decision = await seriousViolations(page)
    await page.getByRole("link", { name: "Pipeline", exact: true }).click()
    await page.getByRole("cell", { name: "/analyze/v1/text" }).waitFor()
    problems.pipeline = await seriousViolations(page)
    await page.setViewportSize({ width: 390, height: 844 })
    problems["pipeline on a phone"] = await seriousViolations(page)
    await page.getByRole("link", { name: "Decisions", exact: true }).click()
    await page.locator("tbody tr").first().waitFor()
    problems["decisions on a phone"] = await seriousViolations(page)
    expect(problems).toEqual({
      "sign-in": [],
      decisions: [],
      decision: [],
      pipeline: [],
      "pipeline on a phone": [],
      "decisions on a phone": []
    })
    await page.context().close()
  })

  it("the pipeline page shows each source's state, the quota per endpoint and the verdict chart", async () => {
    const page = await newPage()
    await page.goto(consoleLink)
    await page.getByRole("link", { name: "Pipeline" }).click()
    // The Sources section's table (the decisions page's table, still shown for a moment, lists sources too)
    const sources = page.getByRole("region", { name: "Sources" }).getByRole("table")
    await sources.getByRole("cell", { name: "demo", exact: true }).waitFor()
    expect(await sources.locator("tbody tr").first().textContent()).toContain("running")
    await page.getByRole("cell", { name: "/analyze/v1/text" }).waitFor()
    const quota = page.getByRole("region", { name: "API quota" })
    expect(await quota.getByRole("columnheader").allTextContents()).toEqual([
      "Endpoint",
      "Configured",
      "Learnt",
      "Enforced",
      "At once",
      "429s (recent)"
    ])
    expect(await page.getByRole("img", { name: /verdicts in the last hour/u }).getAttribute("aria-label")).toMatch(
      /^[1-9]\d* verdicts in the last hour: .*HATEFUL \d+/u
    )
    // Every configured sink is listed, the demo's stdout with its empty queue too, with its Replay button.
    const sinks = page.getByRole("region", { name: "Sinks" })
    const stdout = sinks.getByRole("row").filter({ has: page.getByRole("cell", { name: "stdout", exact: true }) })
    await stdout.waitFor()
    expect(await stdout.getByRole("cell").nth(2).textContent()).toBe("0")
    const replay = stdout.getByRole("button", { name: "Replay the dead letters of stdout" })
    expect(await replay.isDisabled()).toBe(true)
    await page.screenshot({ path: join(SCREENSHOTS, "console-pipeline.png"), fullPage: true })
    // A phone: the list is one card per decision, still readable.
    await page.setViewportSize({ width: 390, height: 844 })
    await page.getByRole("link", { name: "Decisions" }).click()
    await page.locator("tbody tr").first().waitFor()
    await page.screenshot({ path: join(SCREENSHOTS, "console-phone.png") })
    await page.context().close()
  })

  it("a cross-site form post with the session cookie is refused (no CSRF token)", async () => {
    // Another port of 127.0.0.1 is the same site: SameSite lets the cookie through, the CSRF guard does not.
    const evil: Server = createServer((_req, res) => {
      res.writeHead(200, { "content-type": "text/html" })
      res.end(`<form id="f" method="POST" enctype="text/plain" action="${origin()}/api/feedback">
        <input name='{"reference":"x","notes":"' value='"}' /></form><script>f.submit()</script>`)
    })
    await new Promise<void>((resolve) => evil.listen(0, "127.0.0.1", resolve))
    try {
      const page = await newPage()
      await page.goto(consoleLink)
      await page.getByRole("heading", { name: "Decisions" }).waitFor()
      const before = (await sandboxFeedback(sandboxUrl)).length
      const answer = page.waitForResponse((r) => r.url() === `${origin()}/api/feedback`)
      await page.goto(`http://127.0.0.1:${(evil.address() as AddressInfo).port}/`)
      const res = await answer
      expect(res.status()).toBe(403)
      expect(await res.text()).toContain("CROSS_SITE_REFUSED")
      const after = (await sandboxFeedback(sandboxUrl)).length
      expect(after).toBe(before)
      await page.context().close()
    } finally {
      evil.closeAllConnections()
      await new Promise((resolve) => evil.close(resolve))
    }
  })

  it("the page made no request to any host but 127.0.0.1", () => {
    expect(requested.length).toBeGreaterThan(0)
    const elsewhere = requested.filter((u) => !u.startsWith("http://127.0.0.1:") && !u.startsWith("data:"))
    expect(elsewhere).toEqual([])
  })
})

/** A daemon reading one RSS feed (source `news`, polled every 200 ms) whose items the test sets. */
const feedDaemon = async (items: Parameters<typeof startFeedServer>[0]) => {
  const feed = await startFeedServer(items)
  const started = await startSandboxDaemon({
    platforms: 0,
    sources: () => [
      rssSource(
        { feeds: [{ url: feed.url, id: "f", content: "summary" }], pollInterval: "200 millis" },
        { id: "news", channelId: "00000000-0000-4000-8000-000000000001" }
      )
    ]
  })
  return { feed, started }
}

describe("review console live list", () => {
  it("a decision recorded after the page loaded appears without a reload", async () => {
    const { feed, started } = await feedDaemon([{ guid: "g1", title: "first", description: "The first comment." }])
    const daemon = started.daemon
    try {
      const page = await newPage()
      await page.goto(`${daemon.adminUrl}/?token=${ADMIN_TOKEN}`)
      await page.getByText("The first comment.").waitFor({ timeout: 30_000 })
      await page.getByText("Live: new decisions appear").waitFor()
      // A mark on this document: a reload would lose it.
      await page.evaluate(() => Object.assign(window, { notReloaded: true }))
      feed.setItems([
        { guid: "g1", title: "first", description: "The first comment." },
        { guid: "g2", title: "second", description: "A comment that arrives while the page is open." }
      ])
      await page.getByText("A comment that arrives while the page is open.").waitFor({ timeout: 30_000 })
      expect(await page.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded)).toBe(true)
      // Newest first: the new one is the top row.
      expect(await page.locator('tbody td[data-label="Content"]').first().textContent()).toBe(
        "A comment that arrives while the page is open."
      )
      await page.context().close()
    } finally {
      await started.close()
      await feed.close()
    }
  }, 60_000)

  it("announces arrivals politely, holds new rows behind 'Show N new' while focus is in the list, announces a filter's results, and marks content with its language", async () => {
    const first = { guid: "g1", title: "first", description: "The first comment." }
    const german = {
      guid: "de",
      title: "de",
      description: "Du bist ein Idiot und deine Artikel sind wirklich schlecht geschrieben."
    }
    const { feed, started } = await feedDaemon([first])
    const daemon = started.daemon
    try {
      const page = await newPage()
      await page.goto(`${daemon.adminUrl}/?token=${ADMIN_TOKEN}`)
      await page.getByText("The first comment.").waitFor({ timeout: 30_000 })
      await page.getByText("Live: new decisions appear").waitFor()
      const rows = page.locator("tbody tr")

      // Focus outside the list: a new decision goes straight to the top, and is announced.
      feed.setItems([first, german])
      await waitFor(async () => (await rows.count()) === 2, 30_000, "the German comment")
      await waitFor(async () => (await announced(page)) === "1 new, 1 HATEFUL", 10_000, "'1 new, 1 HATEFUL'")
      // WCAG 3.1.2: the content carries the language the API detected.
      const germanCell = page.locator('tbody td[data-label="Content"]', { hasText: "Du bist ein Idiot" })
      expect(await germanCell.getAttribute("lang")).toBe("de")
      expect(
        await page.locator('tbody td[data-label="Content"]', { hasText: "The first comment." }).getAttribute("lang")
      ).toBe("en")

      // Focus in the list: six more wait behind a button instead of moving the row being read.
      const reading = rows.nth(1).locator("td.content a")
      const key = await reading.getAttribute("data-key")
      await reading.focus()
      const six = [
        "You are an idiot",
        "You stupid moron",
        "Thank you, lovely article",
        "Does anyone know when the works start?",
        "A quiet evening at the lake.",
        "The bus was late again today."
      ].map((description, i) => ({ guid: `n${i}`, title: `n${i}`, description }))
      feed.setItems([first, german, ...six])
      const show = page.getByRole("button", { name: "Show 6 new" })
      await show.waitFor({ timeout: 30_000 })
      await waitFor(async () => (await announced(page)) === "6 new, 2 HATEFUL", 10_000, "'6 new, 2 HATEFUL'")
      expect(await rows.count()).toBe(2)
      expect(await focusedKey(page)).toBe(key)
      // Shown on request: at the top, focus on the newest.
      await show.focus()
      await page.keyboard.press("Enter")
      await waitFor(async () => (await rows.count()) === 8, 5_000, "the six shown")
      const newest = await rows.first().locator("td.content a").getAttribute("data-key")
      await waitFor(async () => (await focusedKey(page)) === newest, 5_000, "focus on the newest row")
      expect(await page.getByRole("button", { name: /^Show \d+ new$/u }).count()).toBe(0)

      // A filter's result is announced, focus stays in the search box, and the address keeps it.
      await page.getByLabel("Search").fill("idiot")
      await waitFor(async () => (await announced(page)) === "2 results", 10_000, "'2 results'")
      expect(await focused(page)).toBe("INPUT")
      expect(new URL(page.url()).hash).toBe("#/?q=idiot")

      // The decision page marks the content too.
      await page.locator("tbody a", { hasText: "Du bist ein Idiot" }).click()
      expect(await page.locator("blockquote.content-text").getAttribute("lang")).toBe("de")
      await page.context().close()
    } finally {
      await started.close()
      await feed.close()
    }
  }, 90_000)
})

describe("review console with content from hostile strangers, and the token form", () => {
  // What a hostile feed sends: script and data links, a bidirectional override in an author's name and
  // in a file name, a zero-width space inside a word, and a comment of 26,000 characters.
  const ITEMS = [
    {
      guid: "js",
      title: "js",
      description: "A comment with a script link.",
      link: "javascript:alert(document.domain)"
    },
    {
      guid: "data",
      title: "data",
      description: "A comment with a data link.",
      link: "data:text/html,<script>alert(1)</script>"
    },
    {
      guid: "bidi",
      title: "bidi",
      description: "Open invoice\u202etxt.exe, you id\u200biot.",
      author: "admin\u202enimda"
    },
    { guid: "long", title: "long", description: `A long one. ${"blah ".repeat(5200)}` },
    { guid: "plain", title: "plain", description: "A plain comment with a web link." }
  ]
  let feed: Awaited<ReturnType<typeof startFeedServer>>
  let started: Awaited<ReturnType<typeof startSandboxDaemon>>
  let closed = false
  /** The console's address of the decision whose content starts with `start`. */
  let pageOf: (start: string) => Promise<string>

  beforeAll(async () => {
    feed = await startFeedServer(ITEMS)
    started = await startSandboxDaemon({
      platforms: 0,
      sources: () => [
        rssSource(
          { feeds: [{ url: feed.url, id: "f", content: "summary" }], pollInterval: "200 millis" },
          { id: "news", channelId: "00000000-0000-4000-8000-000000000001" }
        )
      ]
    })
    const daemon = started.daemon
    await waitFor(
      async () => (await daemon.admin("/api/decisions")).body.decisions?.length === ITEMS.length,
      60_000,
      "5 decisions"
    )
    pageOf = async (start) => {
      const { decisions } = (await daemon.admin("/api/decisions")).body as {
        decisions: Array<{ source: string; reference: string; request: { text: string } }>
      }
      const d = decisions.find((x) => x.request.text.startsWith(start))!
      return `${daemon.adminUrl}/#/decision/${encodeURIComponent(d.source)}/${encodeURIComponent(d.reference)}`
    }
  }, 90_000)

  afterAll(async () => {
    if (!closed) await started?.close()
    await feed?.close()
  })

  const signedIn = async () => {
    const page = await newPage()
    await page.goto(`${started.daemon.adminUrl}/?token=${ADMIN_TOKEN}`)
    await page.getByRole("heading", { name: "Decisions" }).waitFor()
    return page
  }

  it("a javascript: or data: link from a feed is shown as text, never a live link; an http link opens", async () => {
    const page = await signedIn()
    for (const [start, scheme] of [
      ["A comment with a script link.", "javascript:"],
      ["A comment with a data link.", "data:"]
    ] as const) {
      await page.goto(await pageOf(start))
      await page.getByRole("heading", { name: "Content" }).waitFor()
      const shown = page.getByText("Link given by the platform, not opened")
      await shown.waitFor()
      expect(await shown.locator("code").textContent()).toMatch(new RegExp(`^${scheme}`, "u"))
      expect(await page.getByRole("link", { name: "Open on the platform" }).count()).toBe(0)
      expect(await page.locator('a[href^="javascript:"], a[href^="data:"]').count()).toBe(0)
    }
    await page.goto(await pageOf("A plain comment"))
    const link = page.getByRole("link", { name: "Open on the platform" })
    await link.waitFor()
    expect(await link.getAttribute("href")).toBe("http://127.0.0.1/p/plain")
    await page.context().close()
  })

  it("bidirectional overrides and zero-width characters are shown marked, in the list, the author and the request", async () => {
    const page = await signedIn()
    // The list: the zero-width space and the override inside the comment are marks, not invisible.
    const row = page.locator("tbody tr", { hasText: "Open invoice" })
    await row.waitFor()
    expect(await row.locator('td[data-label="Content"]').textContent()).toBe(
      "Open invoice⟨U+202E⟩txt.exe, you id⟨U+200B⟩iot."
    )
    await page.goto(await pageOf("Open invoice"))
    const author = page.locator(".facts div", { has: page.locator("dt", { hasText: "Author" }) }).locator("dd")
    await author.waitFor()
    // "admin\u202Enimda" would read "adminadmin": here it reads as what it is.
    expect(await author.textContent()).toBe("admin⟨U+202E⟩nimda")
    expect(await author.locator(".ctl").getAttribute("title")).toBe("U+202E RIGHT-TO-LEFT OVERRIDE")
    expect(await page.locator("blockquote.content-text").textContent()).toBe(
      "Open invoice⟨U+202E⟩txt.exe, you id⟨U+200B⟩iot."
    )
    expect(await page.locator("pre.request").textContent()).toContain("invoice⟨U+202E⟩txt.exe")
    // Nowhere on the page does the override itself act.
    expect(await page.evaluate(() => document.body.textContent)).not.toMatch(/[\u202a-\u202e\u2066-\u2069\u200b]/u)
    await page.screenshot({ path: join(SCREENSHOTS, "console-hidden-characters.png") })
    await page.context().close()
  })

  it("the search sees through a zero-width space: 'idiot' finds 'id\u200biot'", async () => {
    const page = await signedIn()
    await page.getByLabel("Search").fill("idiot")
    await waitFor(
      async () => {
        const contents = await page.locator('tbody td[data-label="Content"]').allTextContents()
        return contents.length === 1 && contents[0]!.startsWith("Open invoice")
      },
      20_000,
      "the one comment with id\u200biot"
    )
    await page.context().close()
  })

  it("a 26,000-character comment is a few lines in the list, all of it on its page", async () => {
    const page = await signedIn()
    const row = page.locator("tbody tr", { hasText: "A long one." })
    await row.waitFor()
    const { height } = (await row.boundingBox())!
    const plain = (await page.locator("tbody tr", { hasText: "A plain comment" }).boundingBox())!.height
    // Three lines of text at most (a plain row is one).
    expect(height).toBeLessThan(plain * 3)
    await page.goto(await pageOf("A long one."))
    // Sent in segments: the page shows the whole text, not only the segment the verdict came from.
    const full = page.locator("blockquote.content-text")
    await full.waitFor()
    expect(await full.textContent()).toBe(`A long one. ${"blah ".repeat(5200)}`.trim())
    await page.getByText(/Sent to the API in \d+ segments/u).waitFor()
    await page.context().close()
  })

  it("signed in with the token form: feedback is sent, sign-out works, and a failed sign-out says so", async () => {
    const page = await newPage()
    await page.goto(`${started.daemon.adminUrl}/`)
    await page.getByLabel("Admin token").fill(ADMIN_TOKEN)
    await page.getByRole("button", { name: "Sign in" }).click()
    await page.getByRole("heading", { name: "Decisions" }).waitFor()
    // No reload since the form: the page has the session's CSRF token all the same.
    await page.goto(await pageOf("A plain comment"))
    await page.getByRole("button", { name: "Mark wrong" }).click()
    await page.getByRole("button", { name: "Send", exact: true }).click()
    await page.getByRole("status").filter({ hasText: "Feedback sent" }).waitFor()
    expect(await sandboxFeedback(started.sandbox.url)).toHaveLength(1)

    await page.getByRole("button", { name: "Sign out" }).click()
    await page.getByLabel("Admin token").waitFor()
    expect(await page.evaluate(async () => (await fetch("/api/decisions")).status)).toBe(401)

    // Signed in again, the daemon stops: Sign out cannot end the session, and the page says so.
    await page.getByLabel("Admin token").fill(ADMIN_TOKEN)
    await page.getByRole("button", { name: "Sign in" }).click()
    // Back on the decision it was showing.
    await page.getByRole("heading", { name: "Verdict" }).waitFor()
    closed = true
    await started.close()
    await page.getByRole("button", { name: "Sign out" }).click()
    await page.getByRole("alert").filter({ hasText: "Not signed out: the daemon did not answer" }).waitFor()
    expect(await page.getByRole("button", { name: "Sign out" }).isVisible()).toBe(true)
    await page.context().close()
  }, 60_000)
})

describe("review console Restore / Remove against the test platform", () => {
  it("Restore undoes Warden's hide and Remove hides a missed item, on the platform, each with the automatic feedback", async () => {
    const { daemon, platforms, sandbox, close, stateFile } = await startSandboxDaemon({
      sources: ([url]) => [
        platformSource(url!, {
          id: "plat",
          autoFeedback: true,
          rules: [
            { name: "hide-threats", when: { classifications: { anyOf: ["THREAT"] } }, actions: [{ kind: "hide" }] },
            // Only routes (no platform action): still the rule that matched, and said so.
            { name: "flag-insults", when: { classifications: { anyOf: ["INSULT"] } }, actions: [], sinks: [] }
          ]
        })
      ]
    })
    const platform = platforms[0]!
    try {
      platform.publish({ kind: "upsert", reference: "r/threat", text: "[[THREAT]] I know where you live" })
      platform.publish({ kind: "upsert", reference: "r/missed", text: "Thank you, lovely article" })
      platform.publish({ kind: "upsert", reference: "r/insult", text: "You are an idiot" })
      await waitFor(
        () => platform.executed.some((a) => a.kind === "hide" && a.reference === "r/threat"),
        30_000,
        "the hide"
      )
      await waitFor(
        async () =>
          (await daemon.admin("/api/decisions")).body.decisions?.some(
            (d: { reference: string; actions: Array<{ status: string }> }) =>
              d.reference === "r/threat" && d.actions[0]?.status === "done"
          ),
        30_000,
        "the hide recorded done"
      )
      const page = await newPage()
      await page.goto(`${daemon.adminUrl}/?token=${ADMIN_TOKEN}`)
      await page.getByRole("heading", { name: "Decisions" }).waitFor()
      // The Outcome column: what was done, apart from what the API recommends ("REMOVE" is not "removed").
      const outcomeOf = (reference: string) =>
        page.locator(`tbody tr[data-reference="${reference}"] td[data-label="Outcome"]`)
      await outcomeOf("r/insult").waitFor({ timeout: 30_000 })
      // Each part of the cell: the rule, then each action and its status (or none).
      const parts = (reference: string) => outcomeOf(reference).locator(".rule, li, .muted").allTextContents()
      expect(await parts("r/threat")).toEqual(["Rule hide-threats", "hide: done"])
      expect(await parts("r/insult")).toEqual(["Rule flag-insults", "no platform action"])
      expect(
        await page.locator('tbody tr[data-reference="r/insult"] td[data-label="API recommends"]').textContent()
      ).toBe("REMOVE")
      expect(await parts("r/missed")).toEqual(["Nothing done: no rule matched"])
      await page.screenshot({ path: join(SCREENSHOTS, "console-outcomes.png") })

      // A rule without a platform action is named on the decision's page, not "no rule matched".
      await page.goto(`${daemon.adminUrl}/#/decision/plat/${encodeURIComponent("r/insult")}`)
      const insultWhy = page.getByRole("region", { name: "Why: the rule that matched" })
      await insultWhy.waitFor()
      expect(await insultWhy.locator("p").textContent()).toBe("Rule flag-insults matched. It takes no platform action.")

      // Warden hid the threat: Restore shows it again and tells the API the verdict was wrong.
      await page.goto(`${daemon.adminUrl}/#/decision/plat/${encodeURIComponent("r/threat")}`)
      await page.getByRole("heading", { name: "On the platform" }).waitFor()
      expect(await page.getByRole("button", { name: "Remove" }).count()).toBe(0)
      await page.getByRole("button", { name: "Restore" }).click()
      // The button is replaced by the answer: focus goes to the outcome it reports.
      await page.getByText("Restored on the platform (restore). Automatic feedback sent").waitFor()
      await waitFor(
        async () => (await focused(page)).startsWith("P Restored on the platform"),
        5_000,
        "focus on the outcome"
      )
      expect(platform.executed.filter((a) => a.reference === "r/threat").map((a) => a.kind)).toEqual([
        "hide",
        "restore"
      ])
      // Restored: now it can be removed again, not restored twice.
      await page.getByRole("button", { name: "Remove" }).waitFor()
      expect(await page.getByRole("button", { name: "Restore" }).count()).toBe(0)
      await page.getByRole("cell", { name: "console", exact: true }).first().waitFor()
      // The moderator's action is listed with the actions, not as a rule that matched.
      const why = page.getByRole("region", { name: "Why: the rule that matched" })
      expect(await why.locator("p").textContent()).toBe("Rule hide-threats matched; its actions are below.")
      await page.screenshot({ path: join(SCREENSHOTS, "console-restore.png") })

      const received = await sandboxFeedback(sandbox.url)
      expect(received).toHaveLength(1)
      const stored = (await daemon.admin(`/api/decisions/${encodeURIComponent("r/threat")}`)).body
      // The automatic feedback of a reversal: the exact stored request, the verdict's classifications removed.
      const [request] = query<{ request: string }>(
        stateFile,
        "SELECT request FROM warden_items WHERE reference = 'r/threat'"
      )
      expect(received[0]!.rawBody).toContain(`"analyzeRequest":${request!.request}`)
      expect(JSON.parse(received[0]!.rawBody).classificationsToRemove).toContain("THREAT")
      expect(stored.feedback).toMatchObject([{ origin: "reversal", status: "sent" }])

      // Warden let the other one through: Remove hides it (the mildest removal the connector declares).
      await page.goto(`${daemon.adminUrl}/#/decision/plat/${encodeURIComponent("r/missed")}`)
      await page.getByRole("heading", { name: "On the platform" }).waitFor()
      await page.getByRole("button", { name: "Remove" }).click()
      await page.getByText("Removed on the platform (hide). Automatic feedback sent").waitFor()
      expect(platform.executed.filter((a) => a.reference === "r/missed").map((a) => a.kind)).toEqual(["hide"])
      await page.getByRole("button", { name: "Restore" }).waitFor()
      expect(await sandboxFeedback(sandbox.url)).toHaveLength(2)
      await page.context().close()
    } finally {
      await close()
    }
  }, 90_000)
})
