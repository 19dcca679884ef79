/**
 * Every `warden` command given bad input, as a user would type it: never a stack trace, never the
 * whole help on stdout, a short error on stderr, and the documented exit code (2 usage, 78 invalid
 * configuration, 1 runtime failure).
 */
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { freePort } from "./support/DaemonProcess.ts"
import { STACK_TRACE, warden } from "./support/WardenCli.ts"

const dir = mkdtempSync(join(tmpdir(), "warden-bad-input-"))
const badYaml = join(dir, "bad.yaml")
writeFileSync(badYaml, "sources: [\n")
const CHANNEL = "0b5d4c1e-8a4f-4f5e-9c43-1d2e3f4a5b6c"
// nothing listens on port 9 of loopback (discard): connecting is refused at once
const DEAD = "http://127.0.0.1:9"
const key = { WARDEN_API_KEY: "k", WARDEN_BASE_URL: DEAD, WARDEN_LEGACY_BASE_URL: DEAD, WARDEN_RETRY_MAX_ATTEMPTS: "1" }

interface Case {
  readonly args: ReadonlyArray<string>
  readonly code: 1 | 2 | 78
  readonly says: string
  readonly env?: Record<string, string>
}

const cases: ReadonlyArray<Case> = [
  { args: [], code: 2, says: "a subcommand is required" },
  { args: ["no-such-command"], code: 2, says: 'Unknown subcommand "no-such-command"' },
  { args: ["anlyze"], code: 2, says: "did you mean analyze?" },
  { args: ["analyze"], code: 2, says: "a subcommand is required (text, image, username)" },
  { args: ["analyze", "text", "--bogus"], code: 2, says: "--bogus" },
  { args: ["analyze", "text", "--channel"], code: 2, says: "--channel" },
  {
    args: ["analyze", "text", "--chanel", "x"],
    code: 2,
    says: "Unrecognized flag: --chanel (did you mean --channel?)"
  },
  { args: ["analyze", "text", "--channel", CHANNEL, "hi"], code: 2, says: "--api-key or set WARDEN_API_KEY" },
  { args: ["analyze", "text", "hi"], code: 2, says: "--channel is required", env: key },
  { args: ["analyze", "text", "--channel", CHANNEL, "hi"], code: 1, says: "TRANSPORT_ERROR", env: key },
  { args: ["analyze", "image", "--channel", CHANNEL, "nope/cat.png"], code: 2, says: "no such file", env: key },
  { args: ["analyze", "username", "--key-kind", "gold"], code: 2, says: "--key-kind" },
  { args: ["feedback"], code: 2, says: "--reference REF" },
  { args: ["feedback", "text", "--notes", "n"], code: 2, says: "--request", env: key },
  {
    args: ["feedback", "image", "--request", join(dir, "none.json"), "--notes", "n"],
    code: 2,
    says: "cannot read",
    env: key
  },
  { args: ["feedback", "--reference", "r", "--notes", "n"], code: 2, says: "admin token" },
  { args: ["legacy"], code: 2, says: "a subcommand is required (analyze)" },
  { args: ["legacy", "analyze"], code: 2, says: "file" },
  {
    args: ["legacy", "analyze", "--channel", "c", "-"],
    code: 2,
    says: "WARDEN_LEGACY_BASE_URL",
    env: { WARDEN_API_KEY: "k" }
  },
  { args: ["legacy", "analyze", "--channel", "c", join(dir, "none.jsonl")], code: 2, says: "cannot read", env: key },
  { args: ["legacy", "analyze", "--concurrency", "many", "-"], code: 2, says: "--concurrency" },
  { args: ["config"], code: 2, says: "a subcommand is required (check, print, schema)" },
  { args: ["config", "check"], code: 2, says: "file" },
  { args: ["config", "check", join(dir, "none.yaml")], code: 78, says: "none.yaml" },
  { args: ["config", "check", badYaml], code: 78, says: "bad.yaml" },
  { args: ["config", "schema", "--bogus"], code: 2, says: "--bogus" },
  { args: ["run", "--config", join(dir, "none.yaml")], code: 78, says: "none.yaml" },
  { args: ["run", "--bogus"], code: 2, says: "--bogus" },
  { args: ["demo", "--admin-port", "x"], code: 2, says: "--admin-port" },
  { args: ["sandbox", "--transient", "often"], code: 2, says: "--transient" },
  { args: ["sandbox", "--config", join(dir, "none.yaml")], code: 2, says: "none.yaml" },
  { args: ["sandbox", "--transient", "2"], code: 2, says: "transient" },
  { args: ["reanalyse"], code: 2, says: "Missing required flag: --status" },
  { args: ["reanalyse", "--status", "bogus"], code: 2, says: "--status" },
  { args: ["reanalyse", "--config", join(dir, "none.yaml"), "--status", "unrecognised"], code: 78, says: "none.yaml" },
  { args: ["policy"], code: 2, says: "a subcommand is required (test)" },
  { args: ["policy", "test", "--format", "xml"], code: 2, says: "--format" },
  { args: ["policy", "test", "--config", join(dir, "none.yaml")], code: 78, says: "none.yaml" },
  { args: ["erase"], code: 2, says: "exactly one of --reference REF, --author KEY or --username NAME --source ID" },
  { args: ["erase", "--config", join(dir, "none.yaml"), "--author", "u"], code: 78, says: "none.yaml" },
  { args: ["feedback", "text", "--confidence", "SURE"], code: 2, says: "--confidence" },
  { args: ["analyze", "text", "--region", "mars"], code: 2, says: "--region" },
  { args: ["source"], code: 2, says: "a subcommand is required (preview" },
  { args: ["source", "preview"], code: 2, says: "--url" },
  { args: ["source", "preview", "--config", join(dir, "none.yaml")], code: 78, says: "cannot read" }
]

describe("every command with bad input", () => {
  it.each(cases)("warden $args exits $code and says what is wrong, without a stack trace", async (c) => {
    const run = await warden(c.args, { env: c.env ?? {}, stdin: '{"text":"x"}\n' })
    expect(run.stderr).not.toMatch(STACK_TRACE)
    expect(run.stdout).toBe("")
    expect(run.stderr).toContain(c.says)
    expect(run.code, run.stderr).toBe(c.code)
    // short: the problem (one line per problem) and a hint, never the whole help
    expect(run.stderr.trim().split("\n").length).toBeLessThanOrEqual(4)
  })

  it("feedback --reference with no daemon listening says the connection was refused, exit 1", async () => {
    const url = `http://127.0.0.1:${await freePort()}`
    const run = await warden(["feedback", "--reference", "r", "--notes", "n", "--admin-token", "t", "--admin-url", url])
    expect(run.stderr.trim()).toBe(`warden feedback: cannot reach the daemon's admin API at ${url}: connection refused`)
    expect(run.code).toBe(1)
  })

  it("--help still prints the whole help on stdout and exits 0", async () => {
    const run = await warden(["analyze", "text", "--help"])
    expect(run.code).toBe(0)
    expect(run.stdout).toContain("--save-request")
    expect(run.stderr).toBe("")
  })

  it("a usage error prints one line and a --help hint on stderr, nothing on stdout", async () => {
    const run = await warden(["analyze", "text", "--bogus"])
    expect(run.code).toBe(2)
    expect(run.stdout).toBe("")
    expect(run.stderr.trim().split("\n")).toEqual([
      "warden analyze text: Unrecognized flag: --bogus",
      "Run 'warden analyze text --help' for usage."
    ])
  })
})
