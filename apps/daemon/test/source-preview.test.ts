/** `warden source preview`, run as the real CLI against a local feed. */
import { execFile } from "node:child_process"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { promisify } from "node:util"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startFeedServer } from "./support/FeedServer.ts"

const exec = promisify(execFile)
const bin = new URL("../src/bin.ts", import.meta.url).pathname
const warden = (args: Array<string>, env: Record<string, string> = {}) =>
  exec(process.execPath, ["--conditions=@warden/source", bin, ...args], { env: { ...process.env, ...env } }).then(
    (r) => ({ code: 0, ...r }),
    (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr })
  )

describe("warden source preview", () => {
  let feed: Awaited<ReturnType<typeof startFeedServer>>
  beforeAll(async () => {
    feed = await startFeedServer(
      Array.from({ length: 8 }, (_, i) => ({
        guid: `g${i}`,
        title: `Title ${i}`,
        description: `<p>Body <b>${i}</b></p>`
      }))
    )
  })
  afterAll(() => feed.close())

  it("prints the events of an RSS feed as JSON lines, up to --limit", async () => {
    const { code, stdout } = await warden(["source", "preview", "--type", "rss", "--url", feed.url, "--limit", "3"])
    expect(code).toBe(0)
    const events = stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l))
    expect(events.length).toBe(3)
    for (const e of events) {
      expect(e.kind).toBe("upsert")
      expect(e.reference).toMatch(/^rss:/)
      expect(e.content.text).not.toContain("<b>")
    }
  })

  it("reads a source of a warden.yaml, with its secret references resolved", async () => {
    const dir = mkdtempSync(join(tmpdir(), "warden-preview-"))
    const file = join(dir, "warden.yaml")
    writeFileSync(
      file,
      [
        "api: { apiKey: '${env:PREVIEW_KEY}' }",
        "sources:",
        "  - id: news",
        "    type: rss",
        "    channelId: 0b5d4c1e-8a4f-4f5e-9c43-1d2e3f4a5b6c",
        `    config: { feeds: ['${feed.url}'], headers: { authorization: '\${env:FEED_TOKEN}' } }`
      ].join("\n")
    )
    const ok = await warden(["source", "preview", "--config", file, "--source", "news", "--limit", "2"], {
      PREVIEW_KEY: "k",
      FEED_TOKEN: "Bearer secret-token"
    })
    expect(ok.code).toBe(0)
    expect(ok.stdout.trim().split("\n").length).toBe(2)
    expect(ok.stdout + ok.stderr).not.toContain("secret-token")

    const missing = await warden(["source", "preview", "--config", file, "--source", "news"], { PREVIEW_KEY: "k" })
    expect(missing.code).toBe(78)
    expect(missing.stderr).toContain("FEED_TOKEN")
  })

  it("names the package to install for an unknown connector type", async () => {
    const { code, stderr } = await warden(["source", "preview", "--type", "mastodon", "--url", feed.url])
    expect(code).toBe(78)
    expect(stderr).toContain("@warden/connector-mastodon")
  })
})
