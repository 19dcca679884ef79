/**
 * The review console's sign-in and its guards, over real HTTP: the page loads without a token but the
 * data does not; the printed link sets an HttpOnly, SameSite=Strict cookie and redirects to `/`; a
 * cookie call that changes state needs the session's CSRF token and the console's origin; the JSON API
 * keeps taking the bearer token without either.
 */
import { DatabaseSync } from "node:sqlite"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { buildConsole } from "../console/build.ts"
import { ADMIN_TOKEN } from "./support/InProcess.ts"
import { startSandboxDaemon } from "./support/SandboxDaemon.ts"

let started: Awaited<ReturnType<typeof startSandboxDaemon>> | undefined
let daemon: NonNullable<typeof started>["daemon"]
let stateFile: string

beforeAll(async () => {
  await buildConsole()
  // A configured sink that never gets a record: its empty queue must still be listed.
  const audit = { name: "audit", type: "test", batchSize: 10, deliver: () => Effect.succeed([]) }
  started = await startSandboxDaemon({ platforms: 0, sources: () => [], sinks: [audit] })
  ;({ daemon, stateFile } = started)
}, 60_000)

afterAll(() => started?.close())

const get = (path: string, headers: Record<string, string> = {}) =>
  fetch(`${daemon.adminUrl}${path}`, { headers, redirect: "manual" })

/** Signs in with the printed link; returns the cookie header to send back and the CSRF token. */
const signIn = async () => {
  const res = await get(`/?token=${encodeURIComponent(ADMIN_TOKEN)}`)
  const cookie = res.headers.get("set-cookie")!.split(";")[0]!
  const session = (await (await get("/api/session", { cookie })).json()) as { csrf: string }
  return { cookie, csrf: session.csrf }
}

const feedback = { reference: "never/seen", notes: "wrong" }
const post = (path: string, headers: Record<string, string>, body: unknown = feedback) =>
  fetch(`${daemon.adminUrl}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body)
  })

describe("review console sign-in", () => {
  it("serves the page to anyone but no data without a token or a session", async () => {
    const page = await get("/")
    expect(page.status).toBe(200)
    expect(page.headers.get("content-type")).toContain("text/html")
    expect(page.headers.get("content-security-policy")).toContain("connect-src 'self'")
    expect(await page.text()).toContain('src="/console/app.js"')
    expect((await get("/console/app.js")).status).toBe(200)
    expect((await get("/api/decisions")).status).toBe(401)
    expect((await get("/readyz")).status).toBe(401)
    expect((await get("/api/session")).status).toBe(401)
    expect((await get("/api/decisions", { cookie: "warden_session=forged" })).status).toBe(401)
  })

  it("the printed link sets an HttpOnly SameSite=Strict cookie and redirects to / without the token", async () => {
    const res = await get(`/?token=${encodeURIComponent(ADMIN_TOKEN)}`)
    expect(res.status).toBe(303)
    expect(res.headers.get("location")).toBe("/")
    const setCookie = res.headers.get("set-cookie")!
    expect(setCookie).toMatch(/^warden_session=[A-Za-z0-9_-]{40,};/u)
    expect(setCookie).toContain("HttpOnly")
    expect(setCookie).toContain("SameSite=Strict")
    expect(setCookie).not.toContain(ADMIN_TOKEN)
    const cookie = setCookie.split(";")[0]!
    const page = await get("/api/decisions", { cookie })
    expect(page.status).toBe(200)
    expect(await page.json()).toEqual({ decisions: [], nextCursor: null })
  })

  it("a wrong token in the link sets no cookie", async () => {
    const res = await get("/?token=not-the-token")
    expect(res.status).toBe(303)
    expect(res.headers.get("location")).toBe("/?signin=refused")
    expect(res.headers.get("set-cookie")).toBeNull()
  })

  it("the page's form signs in with the token, refuses a wrong one and a foreign origin", async () => {
    expect((await post("/session", {}, { token: "wrong" })).status).toBe(401)
    const foreign = await post("/session", { origin: "http://evil.example" }, { token: ADMIN_TOKEN })
    expect(foreign.status).toBe(403)
    expect(foreign.headers.get("set-cookie")).toBeNull()
    const ok = await post("/session", { origin: daemon.adminUrl }, { token: ADMIN_TOKEN })
    expect(ok.status).toBe(200)
    expect(ok.headers.get("set-cookie")).toContain("HttpOnly")
    // The answer carries the session's CSRF token: the page needs no session check before its first
    // state-changing call (it signs out with it here).
    const cookie = ok.headers.get("set-cookie")!.split(";")[0]!
    const { csrf } = (await ok.json()) as { signedIn: true; csrf: string }
    expect(csrf).toBe(((await (await get("/api/session", { cookie })).json()) as { csrf: string }).csrf)
    expect((await post("/session/end", { cookie, "x-warden-csrf": csrf, origin: daemon.adminUrl }, {})).status).toBe(
      200
    )
    expect((await get("/api/decisions", { cookie })).status).toBe(401)
  })

  it("a state-changing cookie call without the CSRF token, or from another origin, is refused", async () => {
    const { cookie, csrf } = await signIn()
    const none = await post("/api/feedback", { cookie })
    expect(none.status).toBe(403)
    expect(((await none.json()) as any).error.code).toBe("CROSS_SITE_REFUSED")
    const wrong = await post("/api/feedback", { cookie, "x-warden-csrf": `${csrf}x` })
    expect(wrong.status).toBe(403)
    const foreign = await post("/api/feedback", { cookie, "x-warden-csrf": csrf, origin: "http://127.0.0.1:1" })
    expect(foreign.status).toBe(403)
    // With the token from its own origin the call reaches the route (unknown reference: 404, not 403).
    const allowed = await post("/api/feedback", { cookie, "x-warden-csrf": csrf, origin: daemon.adminUrl })
    expect(allowed.status).toBe(404)
  })

  it("the bearer token needs no CSRF token; signing out ends the session", async () => {
    const bearer = await post("/api/feedback", { authorization: `Bearer ${ADMIN_TOKEN}` })
    expect(bearer.status).toBe(404)
    const { cookie, csrf } = await signIn()
    expect((await post("/session/end", { cookie, "x-warden-csrf": csrf }, {})).status).toBe(200)
    expect((await get("/api/decisions", { cookie })).status).toBe(401)
  })

  it("Replay puts a sink's dead letters back into its outbox, once, from the console's session", async () => {
    const db = new DatabaseSync(stateFile)
    try {
      db.prepare(`INSERT INTO warden_dead_letters (id, sink, source, reference, version, payload, attempts, last_error, failed_at)
        VALUES ('hook\u001fs\u001fr\u001f1', 'hook', 's', 'r', 1, '{"v":1}', 8, 'HTTP 500', 1000)`).run()
    } finally {
      db.close()
    }
    const { cookie, csrf } = await signIn()
    const before = (await (await get("/api/pipeline", { cookie })).json()) as any
    // Every configured sink (audit, empty), and any sink with dead letters (hook, no longer configured).
    expect(before.sinks).toEqual([
      { sink: "audit", backlog: 0, deadLetters: 0 },
      { sink: "hook", backlog: 0, deadLetters: 1 }
    ])
    expect((await post("/api/sinks/hook/replay", { cookie }, {})).status).toBe(403)
    const replay = await post("/api/sinks/hook/replay", { cookie, "x-warden-csrf": csrf }, {})
    expect(await replay.json()).toEqual({ sink: "hook", replayed: 1 })
    const after = (await (await get("/api/pipeline", { cookie })).json()) as any
    expect(after.sinks).toEqual([
      { sink: "audit", backlog: 0, deadLetters: 0 },
      { sink: "hook", backlog: 1, deadLetters: 0 }
    ])
    const again = await post("/api/sinks/hook/replay", { authorization: `Bearer ${ADMIN_TOKEN}` }, {})
    expect(await again.json()).toEqual({ sink: "hook", replayed: 0 })
    // A sink the pipeline does not list: 404 naming those it does, not a 200 that replayed nothing.
    const misspelt = await post("/api/sinks/audti/replay", { authorization: `Bearer ${ADMIN_TOKEN}` }, {})
    expect(misspelt.status).toBe(404)
    expect(await misspelt.json()).toEqual({
      error: { code: "NOT_FOUND", message: "no sink 'audti' (sinks: audit, hook)", parameter: "sink" }
    })
  })
})
