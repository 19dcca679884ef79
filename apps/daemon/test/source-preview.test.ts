/** `warden source preview`, run as the real CLI against a local feed. */
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startFeedServer } from "./support/FeedServer.ts"
import { warden } from "./support/WardenCli.ts"

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
        // biome-ignore lint/suspicious/noTemplateCurlyInString: the reference syntax in a config file
        "api: { apiKey: '${env:PREVIEW_KEY}' }",
        "sources:",
        "  - id: news",
        "    type: rss",
        "    channelId: 0b5d4c1e-8a4f-4f5e-9c43-1d2e3f4a5b6c",
        `    config: { feeds: ['${feed.url}'], headers: { authorization: '\${env:FEED_TOKEN}' } }`
      ].join("\n")
    )
    const ok = await warden(["source", "preview", "--config", file, "--source", "news", "--limit", "2"], {
      env: { PREVIEW_KEY: "k", FEED_TOKEN: "Bearer secret-token" }
    })
    expect(ok.code).toBe(0)
    expect(ok.stdout.trim().split("\n").length).toBe(2)
    expect(ok.stdout + ok.stderr).not.toContain("secret-token")

    const missing = await warden(["source", "preview", "--config", file, "--source", "news"], {
      env: { PREVIEW_KEY: "k" }
    })
    expect(missing.code).toBe(78)
    expect(missing.stderr).toContain("FEED_TOKEN")
  })

  it("ends after one poll of a feed with fewer items than --limit, without waiting for --timeout", async () => {
    const started = Date.now()
    const { code, stdout } = await warden(["source", "preview", "--url", feed.url, "--limit", "50", "--timeout", "10m"])
    expect(code).toBe(0)
    expect(stdout.trim().split("\n").length).toBe(8)
    // A preview that waited for its timeout would take ten minutes; one poll takes the CLI's start-up.
    expect(Date.now() - started).toBeLessThan(60_000)
  })

  describe("a source that fails exits 1 with one line on stderr and nothing on stdout", () => {
    let page: Server
    let base: string
    beforeAll(async () => {
      page = createServer((req, res) => {
        if (req.url === "/page") {
          res.writeHead(200, { "content-type": "text/html" })
          res.end("<!doctype html><html><body><h1>Welcome</h1></body></html>")
        } else {
          res.writeHead(404, { "content-type": "text/plain" })
          res.end("not found")
        }
      })
      await new Promise<void>((resolve) => page.listen(0, "127.0.0.1", resolve))
      base = `127.0.0.1:${(page.address() as AddressInfo).port}`
    })
    afterAll(() => new Promise<void>((resolve) => page.close(() => resolve())))

    it.each([
      ["an HTML page", () => `http://${base}/page`, "not a valid RSS, Atom, RDF or JSON feed"],
      ["a 404", () => `http://${base}/missing.xml`, "HTTP 404"],
      [
        "a TLS handshake that fails (https to a plain HTTP server)",
        () => `https://${base}/feed.xml`,
        "TLS handshake failed"
      ]
    ])("%s", async (_name, url, says) => {
      const started = Date.now()
      const { code, stdout, stderr } = await warden(["source", "preview", "--url", url(), "--timeout", "10m"])
      expect(code).toBe(1)
      expect(stdout).toBe("")
      const lines = stderr.trim().split("\n")
      expect(lines.length, stderr).toBe(1)
      expect(lines[0]).toMatch(/^warden source preview: /)
      expect(lines[0]).toContain(says)
      expect(lines[0]).not.toContain('"kind":"error"')
      expect(Date.now() - started).toBeLessThan(60_000)
    })
  })

  it("--type youtube (or discord) without --config says what the connector needs, key by key", async () => {
    const { code, stdout, stderr } = await warden(["source", "preview", "--type", "youtube"])
    expect(code).toBe(2)
    expect(stdout).toBe("")
    expect(stderr).toContain("--type youtube needs --config FILE")
    expect(stderr).toContain("channelId")
    expect(stderr).toContain("apiKey")
    expect(stderr).not.toContain("--url")
    const discord = await warden(["source", "preview", "--type", "discord"])
    expect(discord.code).toBe(2)
    expect(discord.stderr).toContain("token: required key is missing; guilds: required key is missing")
  })

  it("takes --timeout in the short form (30s) and refuses a value that is no duration", async () => {
    const ok = await warden(["source", "preview", "--url", feed.url, "--limit", "1", "--timeout", "30s"])
    expect(ok.code).toBe(0)
    const bad = await warden(["source", "preview", "--url", feed.url, "--timeout", "soon"])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain("--timeout: expected a duration such as '500ms'")
  })

  it("names the package to install for an unknown connector type", async () => {
    const { code, stderr } = await warden(["source", "preview", "--type", "mastodon", "--url", feed.url])
    expect(code).toBe(78)
    expect(stderr).toContain("@warden/connector-mastodon")
  })
})
