/**
 * The `http` push source (issue 39) against a running daemon, from clients with no Warden code: a
 * Python client (standard library: hmac, urllib) signing with Standard Webhooks, and curl with a bearer
 * token. Items answered 202 survive a kill -9 of the daemon right after the answer: after a restart
 * every one is analysed and recorded exactly once. A check answers from the verdict through the rules,
 * answers the same content again without a second API call, and answers within its deadline by the
 * failure mode while the API is down. Refusals are the API's envelopes.
 */
import { execFile } from "node:child_process"
import { randomBytes } from "node:crypto"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { promisify } from "node:util"
import { Sandbox } from "@warden/sandbox"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest"
import { freePort, startDaemon, waitFor, writeConfig } from "./support/DaemonProcess.ts"
import { insultRejected } from "./support/PushDecisions.ts"
import * as StateDb from "./support/StateDb.ts"

const run = promisify(execFile)
const CLIENT = new URL("./fixtures/push/client.py", import.meta.url).pathname
const CHANNEL = "0b5d4c1e-8a4f-4f5e-9c43-1d2e3f4a5b6c"
const SECRET = `whsec_${randomBytes(24).toString("base64")}`
const TOKEN = randomBytes(24).toString("base64url")

interface Answer {
  readonly status: number
  readonly body: any
  readonly retryAfter: string | null
  readonly millis: number
}

describe("the http push source, from Python and curl", () => {
  let sandbox: Awaited<ReturnType<typeof Sandbox.startPromise>>
  const dir = mkdtempSync(join(tmpdir(), "warden-push-http-"))
  const state = join(dir, "state.db")
  let url = ""
  let config = ""
  const env = { PUSH_SECRET: SECRET, PUSH_TOKEN: TOKEN }
  const started: Array<ReturnType<typeof startDaemon>> = []
  const start = async () => {
    const daemon = startDaemon(config, env)
    started.push(daemon)
    await waitFor(
      () => daemon.stderr().includes("push source listening"),
      60_000,
      () => `the listener\n${daemon.stderr().slice(-2000)}`
    )
    return daemon
  }

  /** Posts each line of `bodies` (one JSON body per line) with the Python client, signed unless `bearer`. */
  const python = async (path: string, bodies: ReadonlyArray<unknown>, extra: ReadonlyArray<string> = []) => {
    const file = join(dir, `bodies-${randomBytes(4).toString("hex")}.jsonl`)
    writeFileSync(file, bodies.map((b) => JSON.stringify(b)).join("\n"))
    const { stdout } = await run("python3", [CLIENT, url, path, file, "--secret", SECRET, ...extra])
    return stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Answer)
  }
  const curl = async (path: string, body: string, headers: ReadonlyArray<string> = []) => {
    const { stdout } = await run("curl", [
      "-s",
      "-w",
      "\n%{http_code}",
      "-X",
      "POST",
      "-H",
      "Content-Type: application/json",
      ...headers.flatMap((h) => ["-H", h]),
      "--data-binary",
      body,
      `${url}${path}`
    ])
    const at = stdout.lastIndexOf("\n")
    return { status: Number(stdout.slice(at + 1)), body: JSON.parse(stdout.slice(0, at)) }
  }
  const recorded = () =>
    StateDb.query<{ reference: string; version: number }>(state, "SELECT reference, version FROM warden_items")
  const intake = () => Number(StateDb.query<{ n: number }>(state, "SELECT COUNT(*) AS n FROM warden_intake")[0]?.n ?? 0)
  const analyseCalls = async () =>
    (await Effect.runPromise(sandbox.requests)).filter((r) => r.path.includes("/analyze/")).length

  beforeAll(async () => {
    sandbox = await Sandbox.startPromise()
    const port = await freePort()
    url = `http://127.0.0.1:${port}`
    config = writeConfig(dir, {
      api: { apiKey: "sandbox-standard-key", baseUrl: sandbox.url, retry: { maxAttempts: 1 } },
      state: { sqlite: state },
      sources: [
        {
          id: "site",
          type: "http",
          channelId: CHANNEL,
          config: {
            listen: `127.0.0.1:${port}`,
            clients: [
              { name: "backend", signingSecret: `\${env:PUSH_SECRET}` },
              { name: "forum", bearer: `\${env:PUSH_TOKEN}`, rate: { perSecond: 1, burst: 3 } }
            ],
            check: { deadline: "2 seconds" }
          },
          rules: [{ name: "insults", when: { classifications: { anyOf: ["INSULT"] } }, actions: ["hide"] }],
          failureMode: { mode: "reject", after: "1 hour", action: "hide" }
        }
      ],
      admin: { listen: "127.0.0.1:0" },
      log: { format: "json" }
    })
  })
  afterAll(async () => {
    for (const daemon of started) if (daemon.child.exitCode === null) daemon.child.kill("SIGKILL")
    await sandbox?.close()
  })

  it("items answered 202 survive a kill -9 right after the answer: each is recorded exactly once", async () => {
    // Many small items while the API is slow, so most are still in the intake at the kill.
    await Effect.runPromise(sandbox.setFaults({ stall: 1, stallMs: 300 }))
    const daemon = await start()
    const N = 200
    const bodies = Array.from({ length: N / 10 }, (_, b) => ({
      items: Array.from({ length: 10 }, (_, i) => {
        const n = b * 10 + i
        return {
          reference: `k-${n}`,
          text: n % 7 === 0 ? `You are an idiot, number ${n}` : `A perfectly fine comment number ${n}`,
          author: { identifier: `u-${n % 13}`, username: `user${n % 13}` }
        }
      })
    }))
    const answers = await python("/v1/items", bodies)
    daemon.child.kill("SIGKILL")
    await daemon.exited
    expect(answers.map((a) => a.status)).toEqual(bodies.map(() => 202))
    expect(answers.every((a) => a.body.accepted === 10 && a.body.rejected === 0)).toBe(true)
    const atKill = recorded().length
    expect(atKill, "killed before everything was recorded").toBeLessThan(N)
    expect(intake(), "what was not recorded is in the intake").toBeGreaterThan(0)

    await Effect.runPromise(sandbox.setFaults({}))
    const again = await start()
    await waitFor(
      () => recorded().length >= N && intake() === 0,
      120_000,
      () => `every item recorded (have ${recorded().length}, intake ${intake()})\n${again.stderr().slice(-2000)}`
    )
    const rows = recorded()
    expect(rows.length).toBe(N)
    expect(new Set(rows.map((r) => r.reference))).toEqual(new Set(Array.from({ length: N }, (_, n) => `k-${n}`)))
    expect(rows.every((r) => Number(r.version) === 1)).toBe(true)
    console.log(`killed -9 with ${atKill} of ${N} items recorded`)
  }, 300_000)

  it("a check answers from the verdict through the rules; the same content again costs no API call", async () => {
    const rude = await python("/v1/check", [{ reference: "c-1", text: "You are an idiot" }])
    expect(rude[0]?.status).toBe(200)
    expect(rude[0]?.body).toMatchObject(insultRejected("c-1"))
    const calls = await analyseCalls()
    const again = await curl("/v1/check", JSON.stringify({ reference: "c-1", text: "You are an idiot" }), [
      `Authorization: Bearer ${TOKEN}`
    ])
    expect(again).toEqual({ status: 200, body: rude[0]?.body })
    expect(await analyseCalls()).toBe(calls)
    const fine = await python("/v1/check", [{ reference: "c-2", text: "What a lovely day" }])
    expect(fine[0]?.body).toMatchObject({ decision: "allow", rule: null, actions: [], decidedBy: "verdict" })
  }, 60_000)

  it("during an API outage a check answers within its deadline by the failure mode; the verdict comes later", async () => {
    await Effect.runPromise(sandbox.setFaults({ transient: 1 }))
    const [answer] = await python("/v1/check?deadlineMillis=500", [{ reference: "o-1", text: "You are an idiot" }])
    expect(answer?.status).toBe(200)
    expect(answer?.body).toMatchObject({ decision: "reject", decidedBy: "failureMode", actions: ["hide"] })
    expect(answer?.millis).toBeLessThan(1_000)
    await Effect.runPromise(sandbox.setFaults({}))
    await waitFor(() => recorded().some((r) => r.reference === "o-1"), 60_000, "the item analysed once the API answers")
    const [later] = await python("/v1/check", [{ reference: "o-1", text: "You are an idiot" }])
    expect(later?.body).toMatchObject({ decision: "reject", decidedBy: "verdict", rule: "insults" })
  }, 90_000)

  it("a bad item is refused alone, naming its field; refusals are the API's envelopes", async () => {
    const [mixed] = await python("/v1/items", [
      {
        items: [
          { reference: "m-1", text: "fine" },
          { reference: "m-2", text: "fine too", language: "english" },
          { reference: "m-3" }
        ]
      }
    ])
    expect(mixed?.status).toBe(202)
    expect(mixed?.body.accepted).toBe(1)
    expect(mixed?.body.items[1]).toEqual({
      index: 1,
      reference: "m-2",
      status: "rejected",
      error: {
        error: {
          code: "BAD_REQUEST_ERROR",
          details: {
            badRequestError: { fieldViolations: [{ field: "items[1].language", message: expect.any(String) }] }
          }
        }
      }
    })
    expect(mixed?.body.items[2].error.error.details.badRequestError.fieldViolations[0].field).toBe("items[2].text")

    // a signature with another secret, or a timestamp 10 minutes old
    const forged = await run("python3", [
      CLIENT,
      url,
      "/v1/items",
      await bodyFile({ reference: "f-1", text: "x" }),
      "--secret",
      `whsec_${randomBytes(24).toString("base64")}`
    ])
    expect(JSON.parse(forged.stdout)).toMatchObject({
      status: 401,
      body: {
        error: {
          code: "AUTHENTICATION_ERROR",
          details: { authenticationError: { reason: "REASON_INVALID_CREDENTIALS" } }
        }
      }
    })
    const [old] = await python(
      "/v1/items",
      [{ reference: "f-2", text: "x" }],
      ["--timestamp", String(Math.floor(Date.now() / 1000) - 600)]
    )
    expect(old?.status).toBe(401)

    // the bearer client's rate: 3 at once, then 429 in the quota envelope with Retry-After
    const statuses: Array<number> = []
    let quota: any
    for (let i = 0; i < 5; i++) {
      const r = await curl("/v1/items", JSON.stringify({ reference: `r-${i}`, text: "fine" }), [
        `Authorization: Bearer ${TOKEN}`
      ])
      statuses.push(r.status)
      if (r.status === 429) quota = r.body
    }
    expect(statuses.slice(0, 3)).toEqual([202, 202, 202])
    expect(statuses).toContain(429)
    expect(quota).toEqual({
      error: {
        code: "QUOTA_ERROR",
        details: { quotaError: { violations: [{ quotaName: "warden.http.forum.requests_per_second", quotaValue: 1 }] } }
      }
    })
    const unknown = await curl("/v1/nothing", "{}", [`Authorization: Bearer ${TOKEN}`])
    expect(unknown.status).toBe(404)
    expect(unknown.body.error.code).toBe("NOT_FOUND_ERROR")
  }, 60_000)

  const bodyFile = async (body: unknown) => {
    const file = join(dir, `body-${randomBytes(4).toString("hex")}.jsonl`)
    writeFileSync(file, JSON.stringify(body))
    return file
  }

  it("serves its OpenAPI document", async () => {
    const response = await fetch(`${url}/openapi.json`)
    expect(response.status).toBe(200)
    const doc = (await response.json()) as any
    expect(doc.openapi).toBe("3.1.0")
    expect(Object.keys(doc.paths)).toEqual(["/v1/items", "/v1/check"])
  })

  it("stops on SIGTERM", async () => {
    const daemon = started.at(-1)!
    onTestFinished(() => {
      if (daemon.child.exitCode === null) daemon.child.kill("SIGKILL")
    })
    const { code } = await daemon.stop("SIGTERM")
    expect(code).toBe(0)
  }, 30_000)
})
