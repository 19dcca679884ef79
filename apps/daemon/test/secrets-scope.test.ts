/**
 * Commands that read warden.yaml resolve only the secrets they use: a preview needs no API key, feedback
 * by reference no database URL, `reanalyse`, `erase` and `policy test` only the state (and the rules);
 * `run` and `config check` still demand all.
 */
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect, Redacted } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { checkConfig, formatProblem, SecretRef } from "../src/config/index.ts"
import { startFeedServer } from "./support/FeedServer.ts"
import { warden } from "./support/WardenCli.ts"

const dir = mkdtempSync(join(tmpdir(), "warden-secrets-"))
const CHANNEL = "0b5d4c1e-8a4f-4f5e-9c43-1d2e3f4a5b6c"
/** A warden.yaml whose API key and database URL come from variables that are not set. */
const file = (feedUrl: string) => {
  const path = join(dir, "warden.yaml")
  writeFileSync(
    path,
    [
      "api:",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the reference syntax under test
      "  apiKey: ${env:WARDEN_NOT_SET_KEY}",
      "  baseUrl: https://api.example.com",
      "state:",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the reference syntax under test
      "  postgres: ${env:WARDEN_NOT_SET_DATABASE_URL}",
      "admin:",
      "  listen: 127.0.0.1:9",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the reference syntax under test
      "  token: ${env:WARDEN_TEST_ADMIN}",
      "sources:",
      "  - id: feed",
      "    type: rss",
      `    channelId: ${CHANNEL}`,
      `    config: { feeds: ["${feedUrl}"] }`
    ].join("\n")
  )
  return path
}

describe("secrets a command does not use", () => {
  let feed: Awaited<ReturnType<typeof startFeedServer>>
  beforeAll(async () => {
    feed = await startFeedServer([{ guid: "g1", title: "Hello", description: "hello there" }])
  })
  afterAll(() => feed.close())

  it("loading only the admin section resolves its token and demands neither the API key nor the database URL", async () => {
    const r = await Effect.runPromise(
      Effect.result(checkConfig(file(feed.url), { env: { WARDEN_TEST_ADMIN: "tok-123456" }, sections: ["admin"] }))
    )
    if (r._tag === "Failure") throw new Error(r.failure.problems.map(formatProblem).join("\n"))
    expect(Redacted.value(r.success.config.admin.token!)).toBe("tok-123456")
    expect(Redacted.value(r.success.config.api.apiKey)).toBe(SecretRef.UNRESOLVED)
  })

  it("loading the whole file still demands every secret", async () => {
    const r = await Effect.runPromise(Effect.result(checkConfig(file(feed.url), { env: {} })))
    if (r._tag === "Success") throw new Error("expected problems")
    expect(r.failure.problems.map((p) => p.path)).toEqual(["api.apiKey", "state.postgres", "admin.token"])
  })

  it("source preview --config reads the source without the API key or the database URL", async () => {
    const { code, stdout, stderr } = await warden([
      "source",
      "preview",
      "--config",
      file(feed.url),
      "--source",
      "feed",
      "--limit",
      "1"
    ])
    expect(stderr).not.toContain("WARDEN_NOT_SET")
    expect(code).toBe(0)
    expect(JSON.parse(stdout.trim()).kind).toBe("upsert")
  })

  it("reanalyse needs only the state: its missing database URL is the one problem named", async () => {
    const { code, stderr } = await warden(["reanalyse", "--config", file(feed.url), "--status", "failed"])
    expect(code).toBe(78)
    expect(stderr).toContain("state.postgres: environment variable WARDEN_NOT_SET_DATABASE_URL is not set")
    expect(stderr).not.toContain("WARDEN_NOT_SET_KEY")
  })

  it.each([[["erase", "--reference", "r/1"]], [["policy", "test"]]])(
    "%s needs only the state (and the sources' rules): no API key",
    async (args) => {
      const { code, stderr } = await warden([...args, "--config", file(feed.url)])
      expect(code).toBe(78)
      expect(stderr).toContain("state.postgres: environment variable WARDEN_NOT_SET_DATABASE_URL is not set")
      expect(stderr).not.toContain("WARDEN_NOT_SET_KEY")
    }
  )
})
