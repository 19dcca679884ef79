/**
 * Fuzz: 10,000 random and mutated bodies against every endpoint, over real HTTP. Every answer must
 * be a valid error envelope (its code matching its status) or a success that decodes with core's
 * response schema; never a 5xx, since no fault is configured. Seeded: a failure replays.
 */
import {
  ApiErrorSchema,
  ERROR_STATUS,
  ErrorEnvelope,
  FeedbackResponse,
  ImageAnalyzeResponse,
  LegacyAnalyzeResponse,
  PATHS,
  TextAnalyzeResponse,
  UsernameAnalyzeResponse
} from "@warden/core"
import { Result, Schema } from "effect"
import { afterAll, beforeAll, expect, it } from "vitest"
import * as Prng from "../src/internal/Prng.ts"
import { CHANNEL, RESELLER, type Running, STANDARD, start } from "./helpers.ts"

const SEED = Number(process.env.WARDEN_FUZZ_SEED ?? 20_240_501)
const RUNS = 10_000
const CONCURRENCY = 32

const rng = Prng.make(SEED)
const int = (n: number) => Math.floor(rng.next() * n)
const pick = <A>(xs: ReadonlyArray<A>): A => xs[int(xs.length)]!

const STRINGS = [
  "",
  "hi",
  "you idiot",
  "[[THREAT]]",
  "[[NOT_A_MARKER",
  "x".repeat(1001),
  "x".repeat(10_001),
  "é✓\u0000\ud800",
  "0b5d4c1e-8a4f-4f5e-9c43-1d2e3f4a5b6c",
  "https://img.example/weapons.png",
  "2024-05-01T12:30:00Z",
  "aGVsbG8=",
  "BE",
  "fr",
  "INSULT",
  "WEAPONS",
  "INDUSTRY_MEDIA",
  "__proto__",
  "constructor"
]

const randomValue = (depth = 0): unknown => {
  switch (int(depth > 2 ? 5 : 8)) {
    case 0:
      return null
    case 1:
      return rng.next() < 0.5
    case 2:
      return pick([0, -1, 1.5, 1e308, Number.MAX_SAFE_INTEGER, 42])
    case 3:
    case 4:
      return pick(STRINGS)
    case 5:
      return Array.from({ length: int(4) }, () => randomValue(depth + 1))
    default: {
      const o: Record<string, unknown> = {}
      for (let i = int(4); i > 0; i--)
        o[pick([...STRINGS, "text", "channelId", "notes", "title"])] = randomValue(depth + 1)
      return o
    }
  }
}

const VALID: Record<string, () => Record<string, unknown>> = {
  [PATHS.analyzeText]: () => ({
    channelId: CHANNEL,
    text: pick(STRINGS),
    language: "en",
    post: { title: "t", countryCode: "BE" },
    author: { username: "bob" },
    ...(rng.next() < 0.3 ? { industry: "INDUSTRY_MEDIA" } : {})
  }),
  [PATHS.analyzeImage]: () =>
    rng.next() < 0.5
      ? { channelId: CHANNEL, imageUrl: "https://img.example/weapons.png?ocr=you+idiot", ocrEnabled: true }
      : { channelId: CHANNEL, imageData: "iVBORw0KGgo=", classificationsEnabled: ["WEAPONS"] },
  [PATHS.analyzeUsername]: () => ({ channelId: CHANNEL, username: pick(["4dm1n", "bob", "idiot"]) }),
  [PATHS.feedbackText]: () => ({ analyzeRequest: { channelId: CHANNEL, text: "hi" }, notes: "n", confidence: "LOW" }),
  [PATHS.feedbackImage]: () => ({
    analyzeRequest: { channelId: CHANNEL, imageUrl: "https://i.example/a" },
    classificationsToAdd: ["WEAPONS"],
    ocrIssue: false
  }),
  [PATHS.legacyAnalyze]: () => ({
    channelUuid: "c",
    contents: [
      { text: "hi", reference: "r" },
      { text: "x".repeat(1001) },
      { text: "ok", context: { topLevelReference: "t" } }
    ]
  })
}

const mutate = (body: Record<string, unknown>): unknown => {
  const copy: Record<string, unknown> = structuredClone(body)
  const keys = Object.keys(copy)
  for (let n = 1 + int(3); n > 0; n--) {
    switch (int(5)) {
      case 0:
        if (keys.length > 0) delete copy[pick(keys)]
        break
      case 1:
        if (keys.length > 0) copy[pick(keys)] = randomValue()
        break
      case 2:
        copy[pick(STRINGS)] = randomValue()
        break
      case 3: {
        const k = keys.length > 0 ? pick(keys) : "x"
        const inner = copy[k]
        if (typeof inner === "object" && inner !== null && !Array.isArray(inner)) {
          const innerKeys = Object.keys(inner)
          if (innerKeys.length > 0) (inner as Record<string, unknown>)[pick(innerKeys)] = randomValue()
        }
        break
      }
      default:
        return randomValue()
    }
  }
  return copy
}

const rawBody = (path: string): string => {
  const r = rng.next()
  if (r < 0.05) return pick(["", "{", "nul", "[1,", '{"a":}', "\u0000\u0001", "{}".repeat(3)])
  if (r < 0.15) return JSON.stringify(randomValue())
  const valid = VALID[path]!()
  return JSON.stringify(r < 0.3 ? valid : mutate(valid))
}

const SUCCESS: Record<string, Schema.Top> = {
  [PATHS.analyzeText]: TextAnalyzeResponse,
  [PATHS.analyzeImage]: ImageAnalyzeResponse,
  [PATHS.analyzeUsername]: UsernameAnalyzeResponse,
  [PATHS.feedbackText]: FeedbackResponse,
  [PATHS.feedbackImage]: FeedbackResponse,
  [PATHS.legacyAnalyze]: LegacyAnalyzeResponse
}
const isEnvelope = Schema.is(ErrorEnvelope)
const decodeApiError = Schema.decodeUnknownResult(ApiErrorSchema)
const decodes = (schema: Schema.Top, u: unknown) =>
  Result.isSuccess(Schema.decodeUnknownResult(schema as Schema.Codec<unknown, unknown>)(u))

let sandbox: Running
beforeAll(async () => {
  sandbox = await start({ requestLogSize: 100 })
})
afterAll(() => sandbox.close())

it(`${RUNS} random and mutated bodies: always a valid envelope or a valid success, never a 5xx (seed ${SEED})`, async () => {
  const paths = [...Object.values(PATHS), "/analyze/v1/nope", "/"]
  const problems: Array<string> = []
  const statuses = new Map<number, number>()
  let next = 0
  const worker = async () => {
    while (next < RUNS) {
      const i = next++
      const path = pick(paths)
      const body = rawBody(VALID[path] === undefined ? PATHS.analyzeText : path)
      const key = pick([STANDARD, STANDARD, STANDARD, RESELLER, "sandbox-expired-key", "nope"])
      const headers: Record<string, string> = {
        "content-type": rng.next() < 0.03 ? pick(["text/plain", "application/xml", ""]) : "application/json",
        ...(path === PATHS.legacyAnalyze ? { "x-api-key": key } : { authorization: `ApiKey ${key}` })
      }
      const method = rng.next() < 0.03 ? pick(["GET", "PUT", "DELETE"]) : "POST"
      const res = await fetch(`${sandbox.url}${path}`, { method, headers, ...(method === "GET" ? {} : { body }) })
      const text = await res.text()
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1)
      const fail = (why: string) =>
        problems.push(`#${i} ${method} ${path} -> ${res.status} ${why}: ${text.slice(0, 200)}`)
      if (res.status >= 500) {
        fail("5xx without a configured fault")
        continue
      }
      let json: unknown
      try {
        json = JSON.parse(text)
      } catch {
        fail("body is not JSON")
        continue
      }
      if (res.status === 200) {
        if (!decodes(SUCCESS[path]!, json)) fail("success does not decode")
      } else if (!isEnvelope(json) || Result.isFailure(decodeApiError(json))) fail("not a valid envelope")
      else if (ERROR_STATUS[(json as { error: { code: keyof typeof ERROR_STATUS } }).error.code] !== res.status) {
        fail("code does not match status")
      }
    }
  }
  await Promise.all(Array.from({ length: CONCURRENCY }, worker))
  expect(problems.slice(0, 10)).toEqual([])
  // the generator reaches every kind of answer
  for (const status of [200, 400, 401, 403, 404])
    expect(statuses.get(status) ?? 0, `status ${status}`).toBeGreaterThan(0)
}, 180_000) // about 8 s alone; seven times that was seen with the machine fully loaded
