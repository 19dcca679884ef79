/**
 * `warden analyze|feedback|legacy` as a user runs them: a real process against the in-process
 * sandbox, JSON on stdout, one line on stderr and the exit code on failure, the key never printed.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Sandbox } from "@warden/sandbox"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type RunOptions, warden as wardenCli } from "./support/WardenCli.ts"

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
  })

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
  it("JSON lines in, JSON lines of analyses and errors out, positions in the input", async () => {
    const file = join(dir, "messages.jsonl")
    const lines = Array.from({ length: 120 }, (_, i) =>
      JSON.stringify({ text: i === 110 ? "y".repeat(1001) : `message ${i}`, reference: `r-${i}` })
    )
    writeFileSync(file, `${lines.join("\n")}\n`)
    const run = await warden(["legacy", "analyze", "--channel", "channel-x", file])
    expect(run.code).toBe(0)
    const out = run.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l))
    expect(out.filter((o) => "analysis" in o)).toHaveLength(119)
    const errors = out.filter((o) => "error" in o)
    expect(errors).toHaveLength(1)
    expect(errors[0].error.status).toBe("TEXT_TOO_LONG")
    expect(errors[0].error.details.position).toBe(110)
  })

  it("a line that is not JSON is a usage error", async () => {
    const run = await warden(["legacy", "analyze", "--channel", "c", "-"], { stdin: '{"text":"ok"}\nnot json\n' })
    expect(run.code).toBe(2)
    expect(run.stderr).toContain("line 2")
  })
})
