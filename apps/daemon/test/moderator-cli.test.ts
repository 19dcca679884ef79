/**
 * Named moderators from the command line (issue 36) and erasure by username (issue 37), against a
 * daemon running on the same state: `warden moderator add` prints a token and sign-in link that work
 * (bearer and console session, with the role given), `list` shows the file's and the state's,
 * `disable` ends the token and the sessions at once; a name the file defines is refused; every change
 * is in the audit. `warden erase --username` lists what it would erase and erases only when confirmed.
 */
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Redacted } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { waitFor } from "./support/DaemonProcess.ts"
import { startSandboxDaemon } from "./support/SandboxDaemon.ts"
import { query } from "./support/StateDb.ts"
import { connector, platformSource, pluginSourceConfig } from "./support/TestPlatform.ts"
import { warden } from "./support/WardenCli.ts"

const CAROL = "carol-token-0123456789"

describe("warden moderator and warden erase --username on a running daemon's state", () => {
  let started: Awaited<ReturnType<typeof startSandboxDaemon>>
  let config: string
  const dir = mkdtempSync(join(tmpdir(), "warden-moderator-"))
  const filename = join(dir, "state.db")

  beforeAll(async () => {
    started = await startSandboxDaemon({
      state: { _tag: "sqlite", filename },
      sources: ([url]) => [
        platformSource(url!, {
          id: "platform",
          platform: "testplatform",
          connectorActions: connector.capabilities.actions,
          rules: [{ name: "hold", when: { recommendedAction: ["REMOVE"] }, actions: [], review: true }]
        })
      ],
      moderators: [{ name: "carol", role: "admin", token: Redacted.make(CAROL) }]
    })
    const platform = started.platforms[0]!
    config = join(dir, "warden.yaml")
    const source = pluginSourceConfig(platform.url)
    writeFileSync(
      config,
      `state:\n  sqlite: ${filename}\nadmin:\n  listen: 127.0.0.1:9911\nmoderators:\n  - name: carol\n    role: admin\n    token: \${env:CAROL_TOKEN}\nsources:\n  - ${JSON.stringify(source)}\n`
    )
    platform.publish({ kind: "upsert", reference: "m/1", text: "You are an idiot", author: "u-9" })
    platform.publish({ kind: "upsert", reference: "m/2", text: "Thank you, lovely", author: "u-8" })
    await waitFor(
      async () => (await started.daemon.admin("/api/decisions")).body.decisions?.length === 2,
      20_000,
      "verdicts"
    )
  }, 60_000)
  afterAll(() => started.close())

  const cli = (args: ReadonlyArray<string>) => warden(args, { env: { CAROL_TOKEN: CAROL } })

  it("add prints a token and a sign-in link that work with the role given; disable ends both at once", async () => {
    const added = await cli(["moderator", "add", "alice", "--role", "viewer", "--config", config])
    expect(added.stderr).toBe("")
    expect(added.code).toBe(0)
    const token = /token {4}(\S+)/.exec(added.stdout)![1]!
    expect(added.stdout).toContain(`sign in  http://127.0.0.1:9911/?token=${token}`)
    // stored as its SHA-256 only
    expect(JSON.stringify(query(filename, "SELECT * FROM warden_moderators"))).not.toContain(token)

    const me = await started.daemon.as(token, "/api/session")
    expect(me.body).toMatchObject({ name: "alice", role: "viewer" })
    const refused = await started.daemon.as(token, "/api/decisions/m%2F1/review", {
      method: "POST",
      body: JSON.stringify({ decision: "approve" })
    })
    expect(refused.status).toBe(403)
    expect(refused.body.error.message).toBe("viewer alice cannot decide reviews (needs moderator)")
    // the sign-in link opens a session bound to her
    const link = await fetch(`${started.daemon.adminUrl}/?token=${token}`, { redirect: "manual" })
    expect(link.status).toBe(303)
    const cookie = link.headers.get("set-cookie")!.split(";")[0]!
    const session = await fetch(`${started.daemon.adminUrl}/api/session`, { headers: { cookie } })
    expect(await session.json()).toMatchObject({ via: "cookie", name: "alice", role: "viewer" })

    const list = await cli(["moderator", "list", "--config", config])
    expect(list.code).toBe(0)
    expect(list.stdout).toMatch(/^alice\s+viewer\s+cli:/m)
    expect(list.stdout).toMatch(/^carol\s+admin\s+config file/m)

    const disabled = await cli(["moderator", "disable", "alice", "--config", config])
    expect(disabled.code).toBe(0)
    expect((await started.daemon.as(token, "/api/session")).status).toBe(401)
    expect((await fetch(`${started.daemon.adminUrl}/api/session`, { headers: { cookie } })).status).toBe(401)

    const audit = await started.daemon.as(CAROL, "/api/audit")
    const actions = audit.body.entries.map(
      (e: { action: string; actor: string }) => `${e.action} ${e.actor.split("@")[0]}`
    )
    expect(actions).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^moderator\.add cli:/),
        expect.stringMatching(/^moderator\.disable cli:/)
      ])
    )
  }, 60_000)

  it("refuses a name the file defines, one already taken, and one that is not a name", async () => {
    const file = await cli(["moderator", "add", "carol", "--role", "viewer", "--config", config])
    expect(file.code).toBe(1)
    expect(file.stderr).toContain("defines moderator carol (moderators.0)")
    const taken = await cli(["moderator", "add", "alice", "--role", "admin", "--config", config])
    expect(taken.code).toBe(1)
    expect(taken.stderr).toContain("exists already")
    const bad = await cli(["moderator", "add", "not a name", "--role", "admin", "--config", config])
    expect(bad.code).toBe(2)
    expect((await cli(["moderator", "disable", "carol", "--config", config])).code).toBe(1)
  }, 60_000)

  it("erase --username lists the authors first and erases only when confirmed", async () => {
    const asked = await cli(["erase", "--config", config, "--username", "u-9-name", "--source", "platform"])
    expect(asked.code).toBe(1)
    expect(asked.stdout).toContain("username u-9-name in source platform: this erases")
    expect(asked.stdout).toContain("author testplatform:u-9: 1 item version in platform (names: u-9-name)")
    expect(asked.stderr).toContain("nothing erased (confirm with --yes)")
    expect(query(filename, "SELECT author_name FROM warden_items WHERE reference = 'm/1'")).toEqual([
      { author_name: "u-9-name" }
    ])
    const done = await cli(["erase", "--config", config, "--username", "u-9-name", "--source", "platform", "--yes"])
    expect(done.code).toBe(0)
    expect(done.stdout).toContain("erased 1 item version")
    expect(query(filename, "SELECT author_name, author_key FROM warden_items WHERE reference = 'm/1'")).toEqual([
      { author_name: null, author_key: null }
    ])
    // the other author is untouched
    expect(query(filename, "SELECT author_name FROM warden_items WHERE reference = 'm/2'")).toEqual([
      { author_name: "u-8-name" }
    ])
    // the admin API's confirmation listing: the other author, by username
    const listed = await started.daemon.as(CAROL, "/api/authors/-?username=u-8-name&source=platform", {
      method: "DELETE"
    })
    expect(listed.status).toBe(200)
    expect(listed.body).toMatchObject({
      confirm: false,
      wouldErase: { authors: [{ key: "testplatform:u-8", items: 1 }] }
    })
    expect(query(filename, "SELECT author_name FROM warden_items WHERE reference = 'm/2'")).toEqual([
      { author_name: "u-8-name" }
    ])
  }, 60_000)
})
