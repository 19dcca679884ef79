/** The legacy Promise client against the in-process sandbox: a batch over 100, errors, cancellation. */
import { Sandbox } from "@warden/sandbox"
import { afterAll, assert, beforeAll, describe, expect, it } from "vitest"
import { AbortError, AuthenticationError, WardenConfigError, WardenError, WardenLegacy } from "../src/index.ts"

const CHANNEL = "0b5d4c1e-8a4f-4f5e-9c43-1d2e3f4a5b6c"
let sandbox: Sandbox.RunningSandbox

beforeAll(async () => {
  sandbox = await Sandbox.startPromise()
})
afterAll(async () => {
  await sandbox.close()
})

describe("WardenLegacy", () => {
  it("analyses 150 messages in two calls and merges them, a too-long text as a TEXT_TOO_LONG error at its position", async () => {
    const legacy = new WardenLegacy({ apiKey: "sandbox-standard-key", legacyBaseUrl: sandbox.url, env: {} })
    const messages = Array.from({ length: 150 }, (_, i) => ({
      text: i === 7 ? "x".repeat(1001) : `message ${i}`,
      reference: `m-${i}`
    }))
    const result = await legacy.analyzeWithRequests(CHANNEL, messages)
    await legacy.close()
    assert.lengthOf(result.data, 149)
    assert.deepStrictEqual(
      result.errors.map((e) => [e.status, e.details.position]),
      [["TEXT_TOO_LONG", 7]]
    )
    assert.lengthOf(result.chunks, 2)
  })

  it("each chunk of a batch has its own request id, unless the caller chose one for all", async () => {
    const legacy = new WardenLegacy({ apiKey: "sandbox-standard-key", legacyBaseUrl: sandbox.url, env: {} })
    const messages = Array.from({ length: 150 }, (_, i) => ({ text: `message ${i}`, reference: `r-${i}` }))
    const own = await legacy.analyzeWithRequests(CHANNEL, messages)
    const chosen = await legacy.analyzeWithRequests(CHANNEL, messages, { requestId: "req_batch" })
    await legacy.close()
    const ids = own.chunks.map((c) => c.requestId)
    assert.lengthOf(ids, 2)
    assert.notStrictEqual(ids[0], ids[1])
    assert.deepStrictEqual(
      chosen.chunks.map((c) => c.requestId),
      ["req_batch", "req_batch"]
    )
  })

  it("needs a legacy base URL and a key, naming them", () => {
    expect(() => new WardenLegacy({ apiKey: "k", env: {} })).toThrow(WardenConfigError)
    expect(() => new WardenLegacy({ apiKey: "k", env: {} })).toThrow(/legacyBaseUrl or set WARDEN_LEGACY_BASE_URL/)
    expect(() => new WardenLegacy({ legacyBaseUrl: sandbox.url, env: {} })).toThrow(/WARDEN_API_KEY/)
  })

  it("a refused key is an AuthenticationError with status, request id and a one-line message", async () => {
    const legacy = new WardenLegacy({ apiKey: "sandbox-expired-key", legacyBaseUrl: sandbox.url, env: {} })
    const error = await legacy.analyze(CHANNEL, [{ text: "hi" }], { requestId: "req_legacy" }).catch((e: unknown) => e)
    await legacy.close()
    assert.instanceOf(error, AuthenticationError)
    assert.instanceOf(error, WardenError)
    assert.strictEqual(
      (error as WardenError).message,
      "401 AUTHENTICATION_ERROR: REASON_EXPIRED_CREDENTIALS (request req_legacy)"
    )
  })

  it("an aborted signal rejects with AbortError", async () => {
    const legacy = new WardenLegacy({ apiKey: "sandbox-standard-key", legacyBaseUrl: sandbox.url, env: {} })
    const error = await legacy
      .analyze(CHANNEL, [{ text: "hi" }], { signal: AbortSignal.abort() })
      .catch((e: unknown) => e)
    await legacy.close()
    assert.instanceOf(error, AbortError)
  })
})
