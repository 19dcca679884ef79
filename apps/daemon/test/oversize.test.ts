/** Texts over the endpoint's limit: split on sentence boundaries (verdict of the worst segment), truncate, or reject. */
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Characters } from "@warden/core"
import { Sandbox } from "@warden/sandbox"
import { Effect, Layer } from "effect"
import { afterEach, describe, expect, it } from "vitest"
import * as Segmenter from "../src/engine/Segmenter.ts"
import type { SourceSettings } from "../src/domain/SourceSettings.ts"
import { SinkList } from "../src/sinks/SinkList.ts"
import { waitFor } from "./support/DaemonProcess.ts"
import { startDaemonInProcess } from "./support/InProcess.ts"
import * as StateDb from "./support/StateDb.ts"
import { platformSource, startPlatform } from "./support/TestPlatform.ts"

describe("the segmenter", () => {
  it("cuts at sentence ends, then words, each segment within the limit", () => {
    const text = `${"A calm sentence here. ".repeat(30)}${"word ".repeat(100)}`
    const segments = Segmenter.split(text, 100)
    expect(segments.every((s) => s.length <= 100)).toBe(true)
    expect(segments.join(" ").replace(/\s+/g, " ").trim()).toBe(text.replace(/\s+/g, " ").trim())
    expect(segments[0]!.endsWith(".")).toBe(true)
  })
  it("cuts a word longer than the limit", () => {
    expect(Segmenter.split("x".repeat(250), 100).map((s) => s.length)).toEqual([100, 100, 50])
  })
  it("keeps a text within the limit whole, and truncates at a word", () => {
    expect(Segmenter.split("short", 100)).toEqual(["short"])
    expect(Segmenter.truncate("aaa bbb ccc ddd", 12)).toBe("aaa bbb ccc")
  })
  it("counts characters as the API does (code points): 6,000 emoji are within 10,000", () => {
    const emoji = "😀".repeat(6000)
    expect(Segmenter.split(emoji, 10_000)).toEqual([emoji])
    expect(Segmenter.truncate(emoji, 10_000)).toBe(emoji)
  })
  it("never cuts a surrogate pair or an emoji sequence", () => {
    const segments = Segmenter.split("😀".repeat(250), 100)
    expect(segments.map((s) => Characters.count(s))).toEqual([100, 100, 50])
    expect(segments.every((s) => s === "😀".repeat(Characters.count(s)))).toBe(true)
    const family = "👨‍👩‍👧" // 5 code points, one grapheme
    const cut = Segmenter.split(family.repeat(10), 12)
    expect(cut.every((s) => s.split(family).join("") === "")).toBe(true)
    expect(Segmenter.truncate("😀".repeat(20), 7)).toBe("😀".repeat(7))
  })
  it("cuts Thai and Japanese between words, though they have no spaces", () => {
    const thai = "ภาษาไทยเป็นภาษาที่ไม่มีการเว้นวรรคระหว่างคำ".repeat(5)
    const words = new Set(Array.from(new Intl.Segmenter("th", { granularity: "word" }).segment(thai), (s) => s.index))
    const segments = Segmenter.split(thai, 40)
    expect(segments.join("")).toBe(thai)
    let at = 0
    for (const s of segments.slice(0, -1)) {
      at += s.length
      expect(Characters.count(s)).toBeLessThanOrEqual(40)
      expect(words.has(at)).toBe(true)
    }
    const japanese = "日本語の文章は単語の間に空白がありません".repeat(4)
    const jaWords = new Set(
      Array.from(new Intl.Segmenter("ja", { granularity: "word" }).segment(japanese), (s) => s.index)
    )
    let jaAt = 0
    for (const s of Segmenter.split(japanese, 15).slice(0, -1)) {
      jaAt += s.length
      expect(jaWords.has(jaAt)).toBe(true)
    }
  })
})

const cleanups: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c()
})

const run = async (oversize: SourceSettings["oversize"], mode: SourceSettings["mode"] = "v1") => {
  const sandbox = await Sandbox.startPromise({ requestLogSize: 1000 })
  const platform = await startPlatform()
  cleanups.push(
    () => sandbox.close(),
    () => platform.close()
  )
  const dir = mkdtempSync(join(tmpdir(), "warden-oversize-"))
  const state = join(dir, "state.db")
  const daemon = await startDaemonInProcess({
    state: { _tag: "sqlite", filename: state },
    api: { apiKey: "sandbox-standard-key", baseUrls: { global: sandbox.url }, legacyBaseUrl: sandbox.url },
    sources: [platformSource(platform.url, { id: "p", mode, oversize })],
    sinks: Layer.succeed(SinkList, []),
    sinkNames: []
  })
  cleanups.push(daemon.close)
  const limit = mode === "v1" ? 10_000 : 1_000
  // Calm text, one threat in the middle, calm text: well over the limit.
  const calm = "The council met on Tuesday and discussed the new cycling lanes at length. "
  const text = `${calm.repeat(Math.ceil(limit / calm.length))}[[THREAT]] I will find you. ${calm.repeat(Math.ceil(limit / calm.length))}`
  platform.publish({ kind: "upsert", reference: "long/1", text })
  await waitFor(() => StateDb.query(state, "SELECT 1 FROM warden_items").length === 1, 20_000, "the item")
  const item = StateDb.query<any>(state, "SELECT * FROM warden_items")[0]
  const segments = StateDb.query<any>(state, "SELECT * FROM warden_segments ORDER BY segment")
  const calls = (await Effect.runPromise(sandbox.requests)).filter(
    (r) => r.endpoint === "analyzeText" || r.endpoint === "legacyAnalyze"
  )
  return { item, segments, calls, text, limit }
}

describe("oversize texts", () => {
  it("split (v1): every segment analysed and stored, the verdict is the worst segment's", async () => {
    const { item, segments, calls, limit } = await run("split")
    expect(item.status).toBe("analysed")
    expect(Number(item.segments)).toBeGreaterThanOrEqual(3)
    expect(segments.length).toBe(Number(item.segments))
    expect(calls.length).toBe(segments.length)
    for (const s of segments) expect(JSON.parse(s.request).text.length).toBeLessThanOrEqual(limit)
    expect(JSON.parse(item.verdict).classifications).toContain("THREAT")
    expect(JSON.parse(item.request).text).toContain("[[THREAT]]")
  })

  it("split (legacy): segments of at most 1,000 characters in one batch call", async () => {
    const { item, segments, calls, limit } = await run("split", "legacy")
    expect(item.status).toBe("analysed")
    expect(calls.length).toBe(1)
    expect(segments.length).toBeGreaterThanOrEqual(3)
    for (const s of JSON.parse(calls[0]!.body).contents) expect(s.text.length).toBeLessThanOrEqual(limit)
    expect(JSON.parse(item.verdict).classifications).toContain("THREAT")
  })

  it("truncate: one call with the start of the text", async () => {
    const { item, calls, limit } = await run("truncate")
    expect(calls.length).toBe(1)
    expect(JSON.parse(calls[0]!.body).text.length).toBeLessThanOrEqual(limit)
    expect(item.status).toBe("analysed")
  })

  it("reject: recorded as failed naming the limit, no API call", async () => {
    const { item, calls } = await run("reject")
    expect(calls).toEqual([])
    expect(item.status).toBe("failed")
    expect(JSON.parse(item.error).message).toContain("the limit is 10000")
  })
})
