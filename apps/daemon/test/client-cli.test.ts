/**
 * `warden analyze|feedback|legacy` as a user runs them: a real process against the in-process
 * sandbox, JSON on stdout, one line on stderr and the exit code on failure, the key never printed.
 */
import { spawn } from "node:child_process"
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Sandbox } from "@warden/sandbox"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { waitFor } from "./support/DaemonProcess.ts"
import { type RunOptions, warden as wardenCli } from "./support/WardenCli.ts"

const bin = new URL("../src/bin.ts", import.meta.url).pathname

const CHANNEL = "0b5d4c1e-8a4f-4f5e-9c43-1d2e3f4a5b6c"
let sandbox: Awaited<ReturnType<typeof Sandbox.startPromise>>
const dir = mkdtempSync(join(tmpdir(), "warden-client-cli-"))

const warden = (args: ReadonlyArray<string>, options: RunOptions = {}) =>
  wardenCli(args, {
    ...options,
    env: {
      WARDEN_API_KEY: "sandbox-standard-key",
      WARDEN_BASE_URL: sandbox.url,
      WARDEN_LEGACY_BASE_URL: sandbox.url,
      ...options.env
    }
  })

beforeAll(async () => {
  sandbox = await Sandbox.startPromise({})
})
afterAll(async () => {
  await sandbox.close()
})

describe("warden analyze / feedback", () => {
  it("analyses a text, saves the exact body, and sends feedback on it byte-for-byte", async () => {
    const saved = join(dir, "request.json")
    const analyzed = await warden([
      "analyze",
      "text",
      "--channel",
      CHANNEL,
      "--language",
      "en",
      "--save-request",
      saved,
      "you are an idiot"
    ])
    expect(analyzed.stderr).toBe("")
    expect(analyzed.code).toBe(0)
    expect(JSON.parse(analyzed.stdout).textAnalysis.type).toBe("HATEFUL")
    const request = readFileSync(saved, "utf8")
    expect(JSON.parse(request)).toEqual({ channelId: CHANNEL, text: "you are an idiot", language: "en" })

    const fb = await warden(["feedback", "text", "--request", saved, "--remove", "INSULT", "--confidence", "HIGH"])
    expect(fb.code).toBe(0)
    expect(JSON.parse(fb.stdout).id).toMatch(/^[0-9a-f-]{36}$/)
    const feedbackBody = sandbox.server.engine.log
      .list()
      .filter((r) => r.endpoint === "feedbackText")
      .at(-1)!.body
    expect(feedbackBody).toBe(`{"analyzeRequest":${request},"classificationsToRemove":["INSULT"],"confidence":"HIGH"}`)
  }, 90_000) // three CLI processes: about 5 s alone, over 30 s on a fully loaded CI machine

  it("reads the content from stdin when no argument is given", async () => {
    const run = await warden(["analyze", "username", "--channel", CHANNEL], { stdin: "friendly_bob\n" })
    expect(run.code).toBe(0)
    const body = sandbox.server.engine.log
      .list()
      .filter((r) => r.endpoint === "analyzeUsername")
      .at(-1)!.body
    expect(JSON.parse(body).username).toBe("friendly_bob")
  })

  it("an invalid request is one stderr line with the code and every field path, exit 2, no call", async () => {
    const before = sandbox.server.engine.log.list().length
    const run = await warden([
      "analyze",
      "text",
      "--channel",
      "not-a-uuid",
      "--language",
      "english",
      "--industry",
      "INDUSTRY_MEDIA",
      "hi"
    ])
    expect(run.code).toBe(2)
    expect(run.stdout).toBe("")
    const lines = run.stderr.trim().split("\n")
    expect(lines).toHaveLength(1)
    expect(lines[0]).toMatch(/^warden: REQUEST_VALIDATION_ERROR: /)
    for (const field of ["channelId", "language", "industry"]) expect(lines[0]).toContain(`${field}:`)
    expect(sandbox.server.engine.log.list().length).toBe(before)
  })

  it("feedback with none of --add/--remove/--notes is refused (exit 2); without --request too", async () => {
    const saved = join(dir, "r2.json")
    writeFileSync(saved, JSON.stringify({ channelId: CHANNEL, text: "hi" }))
    const none = await warden(["feedback", "text", "--request", saved, "--confidence", "LOW"])
    expect(none.code).toBe(2)
    expect(none.stderr).toContain("classificationsToAdd, classificationsToRemove or notes")
    const noRequest = await warden(["feedback", "text", "--notes", "n"])
    expect(noRequest.code).toBe(2)
    expect(noRequest.stderr).toContain("--request")
  })

  it("an API failure is exit 1 with its code, and the key never appears", async () => {
    const key = "sk-cli-secret-9f8e7d6c"
    const run = await warden(["analyze", "text", "--channel", CHANNEL, "--api-key", key, "hi"])
    expect(run.code).toBe(1)
    expect(run.stderr.trim()).toBe("warden: AUTHENTICATION_ERROR: REASON_INVALID_CREDENTIALS")
    expect(run.stdout + run.stderr).not.toContain(key)
    const env = await warden(["analyze", "text", "--channel", CHANNEL, "hi"], { env: { WARDEN_API_KEY: key } })
    expect(env.code).toBe(1)
    expect(env.stdout + env.stderr).not.toContain(key)
  })

  it("a missing key is a usage error (exit 2) naming --api-key and WARDEN_API_KEY, not a schema error", async () => {
    const run = await warden(["analyze", "text", "--channel", CHANNEL, "hi"], { env: { WARDEN_API_KEY: "" } })
    expect(run.code).toBe(2)
    expect(run.stderr.trim()).toBe("warden: USAGE_ERROR: no API key: give --api-key or set WARDEN_API_KEY")
  })

  it("an invalid WARDEN_* variable is named, not shown as a SchemaError", async () => {
    const run = await warden(["analyze", "text", "--channel", CHANNEL, "hi"], { env: { WARDEN_TIMEOUT: "soon" } })
    expect(run.code).toBe(2)
    expect(run.stderr).toMatch(/^warden: ENVIRONMENT: environment variable WARDEN_TIMEOUT: /)
    expect(run.stderr).not.toContain("SchemaError")
  })

  it("--save-request to a path that cannot be created is refused before the API is called", async () => {
    const before = sandbox.server.engine.log.list().length
    const missingDir = join(dir, "no-such-dir", "req.json")
    const run = await warden(["analyze", "text", "--channel", CHANNEL, "--save-request", missingDir, "hello"])
    expect(run.code).toBe(2)
    expect(run.stderr.trim()).toBe(
      `warden: USAGE_ERROR: --save-request ${missingDir}: cannot create: no such directory ${join(dir, "no-such-dir")}`
    )
    const isDir = await warden(["analyze", "text", "--channel", CHANNEL, "--save-request", dir, "hello"])
    expect(isDir.code).toBe(2)
    expect(isDir.stderr).toContain("is a directory")
    expect(sandbox.server.engine.log.list().length).toBe(before)
  })
})

describe("one retry policy for the CLI and the daemon", () => {
  it("a gateway's 502 HTML page is retried by the CLI, as the daemon's transport does, and the call succeeds", async () => {
    let calls = 0
    const server = createServer((req, res) => {
      req.resume()
      req.on("end", () => {
        calls++
        if (calls <= 2) {
          res.writeHead(502, { "content-type": "text/html" })
          res.end("<!DOCTYPE html><html><body><h1>502 Bad Gateway</h1></body></html>")
          return
        }
        res.writeHead(200, { "content-type": "application/json" })
        res.end(JSON.stringify({ textAnalysis: { type: "NEUTRAL", classifications: [] } }))
      })
    })
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r))
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    const run = await warden(["analyze", "text", "--channel", CHANNEL, "--base-url", url, "hello"], {
      env: { WARDEN_RETRY_BASE_DELAY: "1 millis" }
    })
    server.close()
    expect(run.stderr).toBe("")
    expect(run.code).toBe(0)
    expect(calls).toBe(3)
    expect(JSON.parse(run.stdout).textAnalysis.type).toBe("NEUTRAL")
  })
})

describe("warden analyze image", () => {
  const lastImageBody = () =>
    JSON.parse(
      sandbox.server.engine.log
        .list()
        .filter((r) => r.endpoint === "analyzeImage")
        .at(-1)!.body
    )
  // the 8-byte PNG signature and the start of an IHDR chunk: enough for "looks like an image"
  const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52])

  it("a path that does not exist is 'no such file' (exit 2) and nothing is sent", async () => {
    const before = sandbox.server.engine.log.list().length
    const run = await warden(["analyze", "image", "--channel", CHANNEL, "photos/cat12"])
    expect(run.code).toBe(2)
    expect(run.stderr).toContain("photos/cat12: no such file")
    expect(sandbox.server.engine.log.list().length).toBe(before)
  })

  it("a URL is sent as imageUrl, a file as its base64 bytes", async () => {
    const url = await warden(["analyze", "image", "--channel", CHANNEL, "https://example.com/cat.png"])
    expect(url.code).toBe(0)
    expect(lastImageBody()).toEqual({ channelId: CHANNEL, imageUrl: "https://example.com/cat.png" })
    const file = join(dir, "cat.png")
    writeFileSync(file, png)
    const fromFile = await warden(["analyze", "image", "--channel", CHANNEL, file])
    expect(fromFile.code).toBe(0)
    expect(lastImageBody().imageData).toBe(Buffer.from(png).toString("base64"))
  })

  it("raw image bytes on stdin are base64-encoded for the user; base64 text on stdin is sent as it is", async () => {
    const raw = await warden(["analyze", "image", "--channel", CHANNEL], { stdin: png })
    expect(raw.stderr).toBe("")
    expect(raw.code).toBe(0)
    expect(lastImageBody().imageData).toBe(Buffer.from(png).toString("base64"))
    const text = await warden(["analyze", "image", "--channel", CHANNEL], {
      stdin: `${Buffer.from(png).toString("base64")}\n`
    })
    expect(text.code).toBe(0)
    expect(lastImageBody().imageData).toBe(Buffer.from(png).toString("base64"))
  })
})

describe("warden legacy analyze", () => {
  const jsonl = (lines: ReadonlyArray<string>) =>
    lines
      .filter((l) => l !== "")
      .map((l) => JSON.parse(l) as { line: number; analysis?: { reference: string }; error?: Record<string, any> })

  it("one line out per message, in input order, with its input line; a per-message error in place; exit 1", async () => {
    const file = join(dir, "messages.jsonl")
    const lines = Array.from({ length: 120 }, (_, i) =>
      JSON.stringify({ text: i === 110 ? "y".repeat(1001) : `message ${i}`, reference: `r-${i}` })
    )
    // a blank line is skipped but counted: line numbers are the file's
    writeFileSync(file, `${lines.slice(0, 5).join("\n")}\n\n${lines.slice(5).join("\n")}\n`)
    const run = await warden(["legacy", "analyze", "--channel", "channel-x", file])
    const out = jsonl(run.stdout.split("\n"))
    expect(out).toHaveLength(120)
    expect(out.map((o) => o.line)).toEqual([1, 2, 3, 4, 5, ...Array.from({ length: 115 }, (_, i) => i + 7)])
    expect(out[0]!.analysis!.reference).toBe("r-0")
    expect(out[5]!.analysis!.reference).toBe("r-5")
    const errors = out.filter((o) => o.error !== undefined)
    expect(errors).toHaveLength(1)
    expect(errors[0]!.line).toBe(112)
    expect(errors[0]!.error!.status).toBe("TEXT_TOO_LONG")
    expect(errors[0]!.error!.details.position).toBe(110)
    expect(run.code).toBe(1)
    expect(run.stderr.trim()).toBe("warden: 1 of 120 messages not analysed (line 112); see the error lines on stdout")
  })

  it("a line that is not a message is an error in place with its line number; the others are analysed", async () => {
    const run = await warden(["legacy", "analyze", "--channel", "c", "-"], {
      stdin: '{"text":"ok"}\nnot json\n42\n{"text":"fine","context":5}\n{"text":"also ok"}\n'
    })
    const out = jsonl(run.stdout.split("\n"))
    expect(out.map((o) => [o.line, o.analysis !== undefined ? "analysis" : o.error!.message])).toEqual([
      [1, "analysis"],
      [2, "not JSON"],
      [3, "Expected an object"],
      [4, "context: Expected an object"],
      [5, "analysis"]
    ])
    expect(run.stdout + run.stderr).not.toContain("LegacyMessageOnWire")
    expect(run.code).toBe(1)
  })

  // A 64 MB heap (24 MB free after start) ran out under a fully loaded CI machine: GC falls behind a
  // fast reader. 96 MB cannot hold the file read whole and parsed: a bare node runs out of heap doing it.
  it("streams in constant memory: 50,000 messages of 950 characters (48 MB) through a 96 MB heap (~40 MB of it used at start)", async () => {
    // a legacy host answering each call at once with a small analysis per message
    const server = createServer((req, res) => {
      const chunks: Array<Buffer> = []
      req.on("data", (c: Buffer) => chunks.push(c))
      req.on("end", () => {
        const { contents } = JSON.parse(Buffer.concat(chunks).toString()) as { contents: Array<{ reference: string }> }
        res.writeHead(200, { "content-type": "application/json" })
        res.end(
          JSON.stringify({ data: contents.map((m) => ({ reference: m.reference, type: "NEUTRAL" })), errors: [] })
        )
      })
    })
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r))
    const file = join(dir, "many.jsonl")
    // the input alone is more than the heap can hold: only a streaming command gets through
    const filler = " and some more words".repeat(47)
    const line = (i: number) => JSON.stringify({ text: `message ${i}${filler}`, reference: `r${i}` })
    writeFileSync(file, `${Array.from({ length: 50_000 }, (_, i) => line(i)).join("\n")}\n`)
    const child = spawn(
      process.execPath,
      ["--max-old-space-size=96", "--conditions=@warden/source", bin, "legacy", "analyze", "--channel", "c", file],
      {
        env: {
          PATH: process.env.PATH ?? "",
          WARDEN_API_KEY: "k",
          WARDEN_LEGACY_BASE_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}`
        }
      }
    )
    let lines = 0
    let last = ""
    let stderr = ""
    child.stdout.on("data", (d: Buffer) => {
      const text = last + d.toString()
      const parts = text.split("\n")
      last = parts.pop() ?? ""
      lines += parts.length
    })
    child.stderr.on("data", (d: Buffer) => {
      stderr += d.toString()
    })
    const code = await new Promise<number | null>((r) => child.once("exit", r))
    server.close()
    expect(stderr).toBe("")
    expect(code).toBe(0)
    expect(lines).toBe(50_000)
  }, 120_000)

  it("a call that fails (503 after retries) loses only its own messages: the others are printed", async () => {
    // a legacy host answering 503 for any call carrying a message "FAIL", analyses otherwise
    const server = createServer((req, res) => {
      let body = ""
      req.on("data", (c) => {
        body += c
      })
      req.on("end", () => {
        const { contents } = JSON.parse(body) as { contents: Array<{ text: string; reference?: string }> }
        if (contents.some((m) => m.text === "FAIL")) {
          res.writeHead(503, { "content-type": "application/json" })
          res.end(
            JSON.stringify({ error: { code: "TRANSIENT_ERROR", details: { transientError: { reason: "down" } } } })
          )
          return
        }
        res.writeHead(200, { "content-type": "application/json" })
        res.end(
          JSON.stringify({
            data: contents.map((m) => ({ reference: m.reference ?? "x", type: "NEUTRAL" })),
            errors: []
          })
        )
      })
    })
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r))
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    const lines = Array.from({ length: 250 }, (_, i) =>
      JSON.stringify({ text: i === 150 ? "FAIL" : `m${i}`, reference: `r${i}` })
    )
    const run = await warden(["legacy", "analyze", "--channel", "c", "--base-url", url, "-"], {
      stdin: `${lines.join("\n")}\n`,
      env: { WARDEN_LEGACY_BASE_URL: "", WARDEN_RETRY_MAX_ATTEMPTS: "2", WARDEN_RETRY_BASE_DELAY: "1 millis" }
    })
    server.close()
    const out = jsonl(run.stdout.split("\n"))
    expect(out).toHaveLength(250)
    expect(out.map((o) => o.line)).toEqual(Array.from({ length: 250 }, (_, i) => i + 1))
    // the second call (lines 101-200) failed as a whole; the first and third were analysed
    expect(out.slice(0, 100).every((o) => o.analysis !== undefined)).toBe(true)
    expect(out.slice(100, 200).every((o) => o.error?.code === "TRANSIENT_ERROR")).toBe(true)
    expect(out.slice(200).every((o) => o.analysis !== undefined)).toBe(true)
    expect(run.code).toBe(1)
    expect(run.stderr).toContain("100 of 250 messages not analysed (line 101, 102")
  })

  it("streams: the first call's results are printed before the input ends", async () => {
    const child = spawn(
      process.execPath,
      ["--conditions=@warden/source", bin, "legacy", "analyze", "--channel", "c", "-"],
      {
        env: {
          PATH: process.env.PATH ?? "",
          WARDEN_API_KEY: "sandbox-standard-key",
          WARDEN_LEGACY_BASE_URL: sandbox.url
        }
      }
    )
    let stdout = ""
    child.stdout.on("data", (d: Buffer) => {
      stdout += d.toString()
    })
    const exited = new Promise<number | null>((r) => child.once("exit", r))
    child.stdin.write(`${Array.from({ length: 100 }, (_, i) => JSON.stringify({ text: `a${i}` })).join("\n")}\n`)
    // stdin is still open: the first 100 messages make a full call, whose results must come out now
    await waitFor(() => stdout.split("\n").length > 100, 20_000, "the first call's 100 lines").catch((e) => {
      child.kill()
      throw e
    })
    child.stdin.end(`${JSON.stringify({ text: "last" })}\n`)
    expect(await exited).toBe(0)
    expect(jsonl(stdout.split("\n")).map((o) => o.line)).toEqual(Array.from({ length: 101 }, (_, i) => i + 1))
  })
})
