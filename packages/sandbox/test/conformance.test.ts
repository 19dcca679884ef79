/**
 * One test per rule of the spec the sandbox serves, black-box over real HTTP on loopback with a
 * plain `fetch` (no client library).
 */
import { randomUUID } from "node:crypto"
import { ImageAnalyzeResponse, LegacyAnalyzeResponse, TextAnalyzeResponse, UsernameAnalyzeResponse } from "@warden/core"
import { Schema } from "effect"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { Png } from "../src/index.ts"
import {
  CHANNEL,
  expectError,
  get,
  post,
  put,
  RESELLER,
  type Running,
  STANDARD,
  start,
  violatedFields
} from "./helpers.ts"

let sandbox: Running
let url: string
beforeAll(async () => {
  sandbox = await start()
  url = sandbox.url
})
afterAll(() => sandbox.close())
beforeEach(async () => {
  const r = await fetch(`${url}/_sandbox/reset`, { method: "POST" })
  expect(r.status).toBe(200)
})

const text = (t: string, extra: Record<string, unknown> = {}) => ({ channelId: CHANNEL, text: t, ...extra })

describe("authentication", () => {
  const reasonOf = (reply: Awaited<ReturnType<typeof post>>) => expectError(reply, 401, "AUTHENTICATION_ERROR").reason

  it("a missing key gives 401 on every endpoint", async () => {
    for (const path of ["/analyze/v1/text", "/analyze/v1/image", "/analyze/v1/username", "/feedback/v1/text"]) {
      expect(reasonOf(await post(url, path, {}, { key: null }))).toBe("REASON_INVALID_CREDENTIALS")
    }
    expect(reasonOf(await post(url, "/api/analyze", {}, { key: null }))).toBe("REASON_INVALID_CREDENTIALS")
  })

  it("the scheme ApiKey is case-sensitive", async () => {
    for (const header of [`apikey ${STANDARD}`, `APIKEY ${STANDARD}`, `Bearer ${STANDARD}`, STANDARD, "ApiKey"]) {
      const reply = await post(url, "/analyze/v1/text", text("hi"), { key: null, headers: { authorization: header } })
      expect(reasonOf(reply)).toBe("REASON_INVALID_CREDENTIALS")
    }
    expect((await post(url, "/analyze/v1/text", text("hi"))).status).toBe(200)
  })

  it("unknown, expired and disabled keys give the spec's reasons, on v1 and legacy", async () => {
    const cases = [
      ["no-such-key", "REASON_INVALID_CREDENTIALS"],
      ["sandbox-expired-key", "REASON_EXPIRED_CREDENTIALS"],
      ["sandbox-disabled-key", "REASON_DISABLED_CREDENTIALS"]
    ] as const
    for (const [key, reason] of cases) {
      expect(reasonOf(await post(url, "/analyze/v1/text", text("hi"), { key }))).toBe(reason)
      expect(reasonOf(await post(url, "/api/analyze", { channelUuid: "c", contents: [] }, { key }))).toBe(reason)
    }
  })

  it("legacy takes the key in X-Api-Key, not Authorization", async () => {
    const body = { channelUuid: "c", contents: [{ text: "hi" }] }
    expect((await post(url, "/api/analyze", body)).status).toBe(200)
    const viaAuthorization = await post(url, "/api/analyze", body, {
      key: null,
      headers: { authorization: `ApiKey ${STANDARD}` }
    })
    expect(reasonOf(viaAuthorization)).toBe("REASON_INVALID_CREDENTIALS")
  })

  it("keys from the configuration belong to their organisation and kind", async () => {
    const other = await start({
      keys: [
        { key: "acme-key", organisation: "acme", kind: "reseller" },
        { key: "old-key", organisation: "acme", status: "expired" }
      ]
    })
    try {
      const reply = await post(other.url, "/analyze/v1/text", text("hi", { industry: "INDUSTRY_MEDIA" }), {
        key: "acme-key"
      })
      expect(reply.status).toBe(200)
      expect(reasonOf(await post(other.url, "/analyze/v1/text", text("hi"), { key: "old-key" }))).toBe(
        "REASON_EXPIRED_CREDENTIALS"
      )
    } finally {
      await other.close()
    }
  })
})

describe("validation", () => {
  const long = (n: number) => "x".repeat(n)
  const cases: ReadonlyArray<readonly [string, unknown, string]> = [
    ["channelId required", { text: "hi" }, "channelId"],
    ["channelId uuid", text("hi", { channelId: "nope" }), "channelId"],
    ["text required", { channelId: CHANNEL }, "text"],
    ["text <= 10000", text(long(10_001)), "text"],
    ["publishedAt date-time", text("hi", { publishedAt: "yesterday" }), "publishedAt"],
    ["reference <= 256", text("hi", { reference: long(257) }), "reference"],
    ["permalink uri", text("hi", { permalink: "not a uri" }), "permalink"],
    ["language 2 letters", text("hi", { language: "eng" }), "language"],
    ["post.title required", text("hi", { post: {} }), "post.title"],
    ["post.title <= 2048", text("hi", { post: { title: long(2049) } }), "post.title"],
    ["post.reference <= 256", text("hi", { post: { title: "t", reference: long(257) } }), "post.reference"],
    ["post.publishedAt", text("hi", { post: { title: "t", publishedAt: "2024-13-99" } }), "post.publishedAt"],
    ["post.permalink", text("hi", { post: { title: "t", permalink: "x" } }), "post.permalink"],
    ["post.countryCode uppercase", text("hi", { post: { title: "t", countryCode: "be" } }), "post.countryCode"],
    ["author.username required", text("hi", { author: {} }), "author.username"],
    ["author.username <= 255", text("hi", { author: { username: long(256) } }), "author.username"],
    ["author.reference", text("hi", { author: { username: "u", reference: long(257) } }), "author.reference"],
    ["author.permalink", text("hi", { author: { username: "u", permalink: "nope" } }), "author.permalink"],
    [
      "author.profilePictureUrl",
      text("hi", { author: { username: "u", profilePictureUrl: "x" } }),
      "author.profilePictureUrl"
    ],
    ["author.countryCode", text("hi", { author: { username: "u", countryCode: "BEL" } }), "author.countryCode"],
    ["unknown text field", text("hi", { colour: "red" }), "colour"]
  ]
  for (const [name, body, field] of cases) {
    it(`text: ${name} -> 400 naming ${field}`, async () => {
      expect(violatedFields(await post(url, "/analyze/v1/text", body))).toContain(field)
    })
  }

  it("the limits themselves are accepted (10000 characters, 256, 255, 2048)", async () => {
    const body = text(long(10_000), {
      reference: long(256),
      post: { title: long(2048), reference: long(256), countryCode: "BE" },
      author: { username: long(255), countryCode: "US" },
      language: "en",
      publishedAt: "2024-05-01T12:30:00Z",
      permalink: "https://example.com/p/1"
    })
    expect((await post(url, "/analyze/v1/text", body)).status).toBe(200)
  })

  it("characters are code points: 10,000 emoji (20,000 UTF-16 units) are accepted, 10,001 refused", async () => {
    expect((await post(url, "/analyze/v1/text", text("😀".repeat(10_000)))).status).toBe(200)
    expect(violatedFields(await post(url, "/analyze/v1/text", text("😀".repeat(10_001))))).toContain("text")
    const legacy = await post(url, "/api/analyze", {
      channelUuid: "c",
      contents: [{ text: "😀".repeat(1000) }, { text: "😀".repeat(1001) }]
    })
    expect(legacy.status).toBe(200)
    const answer = legacy.json as {
      data: Array<unknown>
      errors: Array<{ status: string; details: { position: number } }>
    }
    expect(answer.data).toHaveLength(1)
    expect(answer.errors.map((e) => [e.status, e.details.position])).toEqual([["TEXT_TOO_LONG", 1]])
  })

  it("every violation is reported at once", async () => {
    const fields = violatedFields(
      await post(url, "/analyze/v1/text", { channelId: "x", text: 1, post: { countryCode: "be" }, extra: true })
    )
    expect(fields).toEqual(expect.arrayContaining(["channelId", "text", "post.title", "post.countryCode", "extra"]))
  })

  it("image: exactly one of imageUrl and imageData, each well-formed", async () => {
    expect(violatedFields(await post(url, "/analyze/v1/image", { channelId: CHANNEL }))).toEqual([""])
    const both = await post(url, "/analyze/v1/image", {
      channelId: CHANNEL,
      imageUrl: "https://img.example/a.png",
      imageData: "aGk="
    })
    expect(violatedFields(both).length).toBeGreaterThan(0)
    expect(violatedFields(await post(url, "/analyze/v1/image", { channelId: CHANNEL, imageUrl: "nope" }))).toContain(
      "imageUrl"
    )
    expect(violatedFields(await post(url, "/analyze/v1/image", { channelId: CHANNEL, imageData: "%%%" }))).toContain(
      "imageData"
    )
  })

  it("image and username requests keep unknown fields", async () => {
    const image = await post(url, "/analyze/v1/image", { channelId: CHANNEL, imageUrl: "https://i.example/a", x: 1 })
    expect(image.status).toBe(200)
    const user = await post(url, "/analyze/v1/username", { channelId: CHANNEL, username: "bob", x: 1 })
    expect(user.status).toBe(200)
  })

  it("username: required, not empty, <= 255", async () => {
    expect(violatedFields(await post(url, "/analyze/v1/username", { channelId: CHANNEL }))).toContain("username")
    expect(violatedFields(await post(url, "/analyze/v1/username", { channelId: CHANNEL, username: "" }))).toContain(
      "username"
    )
    const tooLong = await post(url, "/analyze/v1/username", { channelId: CHANNEL, username: long(256) })
    expect(violatedFields(tooLong)).toContain("username")
  })

  it("a body that is not JSON gives 400", async () => {
    for (const body of ["{nope", "", "undefined", "{'a':1}"]) {
      expect(violatedFields(await post(url, "/analyze/v1/text", body))).toEqual([""])
    }
  })

  it("JSON that is not an object gives 400", async () => {
    for (const body of ["[]", "42", "null", '"text"']) {
      expectError(await post(url, "/analyze/v1/text", body), 400, "BAD_REQUEST_ERROR")
    }
  })

  it("a missing or other Content-Type gives 400", async () => {
    const missing = await fetch(`${url}/analyze/v1/text`, {
      method: "POST",
      headers: { authorization: `ApiKey ${STANDARD}` },
      body: new Blob([JSON.stringify(text("hi"))])
    })
    const missingReply = { status: missing.status, text: "", json: await missing.json() }
    expectError(missingReply, 400, "BAD_REQUEST_ERROR")
    for (const type of ["text/plain", "application/x-www-form-urlencoded", "application/jsonx"]) {
      const reply = await post(url, "/analyze/v1/text", text("hi"), { headers: { "content-type": type } })
      expect(violatedFields(reply)).toEqual([""])
    }
    const withCharset = await post(url, "/analyze/v1/text", text("hi"), {
      headers: { "content-type": "application/json; charset=utf-8" }
    })
    expect(withCharset.status).toBe(200)
  })
})

describe("envelope", () => {
  it("unknown routes and wrong methods give a 404 NOT_FOUND_ERROR envelope", async () => {
    const d = expectError(await post(url, "/analyze/v2/text", text("hi")), 404, "NOT_FOUND_ERROR")
    expect(d.resourceIdentifier).toBe("POST /analyze/v2/text")
    for (const method of ["GET", "PUT", "DELETE", "PATCH"]) {
      const res = await fetch(`${url}/analyze/v1/text`, { method })
      expectError({ status: res.status, text: "", json: await res.json() }, 404, "NOT_FOUND_ERROR")
    }
    const root = await fetch(`${url}/`)
    expect(root.headers.get("content-type")).toBe("application/json")
    expectError({ status: root.status, text: "", json: await root.json() }, 404, "NOT_FOUND_ERROR")
  })

  it("malformed HTTP gets a JSON envelope too", async () => {
    const { connect } = await import("node:net")
    const { port } = new URL(url)
    const raw = await new Promise<string>((resolve) => {
      const socket = connect(Number(port), "127.0.0.1", () => socket.write("NOT HTTP AT ALL\r\n\r\n"))
      let out = ""
      socket.on("data", (c) => {
        out += c.toString()
      })
      socket.on("close", () => resolve(out))
    })
    expect(raw).toMatch(/^HTTP\/1\.1 400/)
    const body = JSON.parse(raw.slice(raw.indexOf("\r\n\r\n") + 4))
    expect(body.error.code).toBe("BAD_REQUEST_ERROR")
  })
})

describe("analysis responses", () => {
  it("text: the magic marker fixes the classification; the answer decodes with core's schema", async () => {
    const reply = await post(url, "/analyze/v1/text", text("have a nice day [[THREAT]]"))
    expect(reply.status).toBe(200)
    const decoded = Schema.decodeUnknownSync(TextAnalyzeResponse)(reply.json)
    expect(decoded.textAnalysis?.classifications).toEqual(["THREAT"])
    expect(reply.json.textAnalysis).toMatchObject({ type: "HATEFUL", recommendedAction: "REMOVE" })
    expect(Object.keys(reply.json.textAnalysis).sort()).toEqual(
      ["classifications", "directedAt", "language", "recommendedAction", "severity", "type"].sort()
    )
  })

  it("text: the lexicon works in en, fr, de, es, it, nl", async () => {
    const cases = [
      ["you are a stupid idiot", "INSULT", "en"],
      ["je vais te tuer, sale type", "THREAT", "fr"],
      ["du bist so ein Vollidiot und ein Versager", "INSULT", "de"],
      ["gracias, me encanta este video, increible", "SUPPORTIVE", "es"],
      ["che partita noiosa e deludente, davvero pessimo", "CRITICISM", "it"],
      ["ga terug naar je eigen land", "HATRED", "nl"],
      ["the meeting is at noon on tuesday", "NEUTRAL", "en"]
    ] as const
    for (const [t, classification, language] of cases) {
      const reply = await post(url, "/analyze/v1/text", text(t))
      expect(reply.json.textAnalysis.classifications, t).toContain(classification)
      expect(reply.json.textAnalysis.language, t).toBe(language)
    }
  })

  it("text: the language hint is used as given", async () => {
    const reply = await post(url, "/analyze/v1/text", text("you idiot", { language: "nl" }))
    expect(reply.json.textAnalysis.language).toBe("nl")
  })

  it("username: lexicon and impersonation patterns with lookalike digits", async () => {
    const admin = await post(url, "/analyze/v1/username", { channelId: CHANNEL, username: "4dm1n_support" })
    Schema.decodeUnknownSync(UsernameAnalyzeResponse)(admin.json)
    expect(admin.json.usernameAnalysis).toMatchObject({ classifications: ["IMPERSONATION"], severity: "HIGH" })
    const insult = await post(url, "/analyze/v1/username", { channelId: CHANNEL, username: "stupid_1d10t" })
    expect(insult.json.usernameAnalysis.classifications).toContain("INSULT")
    const plain = await post(url, "/analyze/v1/username", { channelId: CHANNEL, username: "jane_doe" })
    expect(plain.json.usernameAnalysis.classifications).toEqual(["NEUTRAL"])
  })

  it("image: classifications from markers in the URL and in the bytes", async () => {
    const byUrl = await post(url, "/analyze/v1/image", {
      channelId: CHANNEL,
      imageUrl: "https://img.example/weapons-and-alcohol.png"
    })
    Schema.decodeUnknownSync(ImageAnalyzeResponse)(byUrl.json)
    expect([...byUrl.json.imageAnalysis.classifications].sort()).toEqual(["ALCOHOL", "WEAPONS"])
    expect(byUrl.json.imageAnalysis.ocrAnalysis).toBeUndefined()
    const bytes = Buffer.concat([Png.make(), Buffer.from("[[GRAPHIC_VIOLENCE]]")]).toString("base64")
    const byData = await post(url, "/analyze/v1/image", { channelId: CHANNEL, imageData: bytes })
    expect(byData.json.imageAnalysis.classifications).toEqual(["GRAPHIC_VIOLENCE"])
    const clean = await post(url, "/analyze/v1/image", { channelId: CHANNEL, imageData: Png.make().toString("base64") })
    expect(clean.json.imageAnalysis.classifications).toEqual([])
  })
})

describe("reseller-only fields", () => {
  it("a standard key sending one is refused with 403 naming the fields", async () => {
    const cases = [
      ["/analyze/v1/text", text("hi", { industry: "INDUSTRY_MEDIA" }), "industry"],
      ["/analyze/v1/text", text("hi", { defaultLanguage: "fr" }), "defaultLanguage"],
      ["/analyze/v1/image", { channelId: CHANNEL, imageUrl: "https://i.example/a", ocrEnabled: true }, "ocrEnabled"],
      [
        "/analyze/v1/image",
        { channelId: CHANNEL, imageUrl: "https://i.example/a", classificationsEnabled: ["WEAPONS"] },
        "classificationsEnabled"
      ],
      ["/analyze/v1/username", { channelId: CHANNEL, username: "bob", customerContext: "a forum" }, "customerContext"]
    ] as const
    for (const [path, body, field] of cases) {
      const d = expectError(await post(url, path, body), 403, "PERMISSION_DENIED_ERROR")
      expect(d.permission).toBe("reseller_fields")
      expect(d.resourceIdentifier).toContain(field)
    }
  })

  it("a field sent to an endpoint where it does not apply is ignored, never refused", async () => {
    const textWithImageFields = text("[[INSULT]] x", {
      ocrEnabled: true,
      customerContext: "c",
      classificationsEnabled: []
    })
    const reply = await post(url, "/analyze/v1/text", textWithImageFields)
    expect(reply.status, reply.text).toBe(200)
    expect(reply.json.textAnalysis.classifications).toEqual(["INSULT"])
    const user = await post(url, "/analyze/v1/username", { channelId: CHANNEL, username: "bob", ocrEnabled: true })
    expect(user.status).toBe(200)
  })

  it("classificationsEnabled limits the image classifications returned", async () => {
    const body = { channelId: CHANNEL, imageUrl: "https://img.example/weapons-alcohol-qr-code.png" }
    const all = await post(url, "/analyze/v1/image", body, { key: RESELLER })
    expect(all.json.imageAnalysis.classifications).toHaveLength(3)
    const only = await post(
      url,
      "/analyze/v1/image",
      { ...body, classificationsEnabled: ["WEAPONS", "CSAM"] },
      { key: RESELLER }
    )
    expect(only.json.imageAnalysis.classifications).toEqual(["WEAPONS"])
  })

  it("ocrEnabled adds ocrAnalysis with a full textAnalysis (URL ?ocr= or PNG tEXt chunk)", async () => {
    const byUrl = await post(
      url,
      "/analyze/v1/image",
      { channelId: CHANNEL, imageUrl: "https://img.example/meme.png?ocr=you+stupid+idiot", ocrEnabled: true },
      { key: RESELLER }
    )
    expect(byUrl.json.imageAnalysis.ocrAnalysis.text).toBe("you stupid idiot")
    expect(byUrl.json.imageAnalysis.ocrAnalysis.textAnalysis).toMatchObject({
      type: "HATEFUL",
      classifications: ["INSULT"],
      language: "en",
      recommendedAction: "REMOVE"
    })
    const png = Png.make({ OCR: "je vais te tuer" }).toString("base64")
    const byData = await post(
      url,
      "/analyze/v1/image",
      { channelId: CHANNEL, imageData: png, ocrEnabled: true },
      { key: RESELLER }
    )
    const analysis = byData.json.imageAnalysis.ocrAnalysis.textAnalysis
    expect(byData.json.imageAnalysis.ocrAnalysis.text).toBe("je vais te tuer")
    expect(Object.keys(analysis).sort()).toEqual(
      ["classifications", "directedAt", "language", "recommendedAction", "severity", "type"].sort()
    )
    expect(analysis.classifications).toEqual(["THREAT"])
  })

  it("defaultLanguage is used when language detection is unsure, not otherwise", async () => {
    const unsure = await post(url, "/analyze/v1/text", text("ok", { defaultLanguage: "nl" }), { key: RESELLER })
    expect(unsure.json.textAnalysis.language).toBe("nl")
    const sure = await post(
      url,
      "/analyze/v1/text",
      text("this is clearly an english sentence about the weather today", { defaultLanguage: "nl" }),
      { key: RESELLER }
    )
    expect(sure.json.textAnalysis.language).toBe("en")
  })
})

describe("feedback", () => {
  it("none of the three inputs gives 400; any one alone is enough", async () => {
    const analyzeRequest = text("hi")
    expect(violatedFields(await post(url, "/feedback/v1/text", { analyzeRequest }))).toEqual([""])
    expect(violatedFields(await post(url, "/feedback/v1/text", { analyzeRequest, confidence: "LOW" }))).toEqual([""])
    for (const extra of [{ notes: "wrong" }, { classificationsToAdd: ["INSULT"] }, { classificationsToRemove: [] }]) {
      const reply = await post(url, "/feedback/v1/text", { analyzeRequest, ...extra })
      expect(reply.status, reply.text).toBe(200)
    }
  })

  it("200 with only a fresh uuid id", async () => {
    const a = await post(url, "/feedback/v1/text", { analyzeRequest: text("hi"), notes: "n" })
    const b = await post(url, "/feedback/v1/text", { analyzeRequest: text("hi"), notes: "n" })
    expect(Object.keys(a.json)).toEqual(["id"])
    expect(a.json.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
    expect(a.json.id).not.toBe(b.json.id)
  })

  it("analyzeRequest is validated as the analyze body it embeds", async () => {
    const fields = violatedFields(
      await post(url, "/feedback/v1/text", { analyzeRequest: { channelId: "x", text: "hi" }, notes: "n" })
    )
    expect(fields).toContain("analyzeRequest.channelId")
    const image = await post(url, "/feedback/v1/image", { analyzeRequest: { channelId: CHANNEL }, notes: "n" })
    expect(violatedFields(image)).toContain("analyzeRequest")
    const wrongClass = await post(url, "/feedback/v1/text", { analyzeRequest: text("hi"), classificationsToAdd: ["x"] })
    expect(violatedFields(wrongClass)).toContain("classificationsToAdd.0")
  })

  it("image feedback takes the OCR flag; unknown fields are refused", async () => {
    const analyzeRequest = { channelId: CHANNEL, imageData: Png.make().toString("base64") }
    expect((await post(url, "/feedback/v1/image", { analyzeRequest, ocrIssue: true, notes: "n" })).status).toBe(200)
    expect(violatedFields(await post(url, "/feedback/v1/image", { analyzeRequest, notes: "n", x: 1 }))).toContain("x")
  })

  it("is stored with the raw body exactly as received, and listed", async () => {
    const raw = `{ "analyzeRequest" : {"text":"caf\u00e9 \\u00e9 ✓","channelId":"${CHANNEL}"},\n  "notes":"wrong", "confidence":"HIGH" }`
    const reply = await post(url, "/feedback/v1/text", raw)
    expect(reply.status, reply.text).toBe(200)
    const listed = await get(url, "/_sandbox/feedback")
    expect(listed.json.feedback).toHaveLength(1)
    const stored = listed.json.feedback[0]
    expect(stored).toMatchObject({ id: reply.json.id, kind: "text", organisation: "sandbox-org" })
    expect(stored.rawBody).toBe(raw)
    expect(Buffer.from(stored.rawBody, "utf8").equals(Buffer.from(raw, "utf8"))).toBe(true)
    expect(stored.body.notes).toBe("wrong")
  })
})

describe("legacy batch", () => {
  const legacy = (contents: Array<unknown>, channelUuid = "chan-1") =>
    post(url, "/api/analyze", { channelUuid, contents })

  it("more than 100 messages gives 400", async () => {
    const msgs = Array.from({ length: 101 }, (_, i) => ({ text: `m${i}` }))
    expect(violatedFields(await legacy(msgs))).toContain("contents")
    expect((await legacy(msgs.slice(0, 100))).status).toBe(200)
  })

  it("a text over 1000 characters becomes an errors item; the others are analysed; HTTP 200", async () => {
    const long = "y".repeat(1001)
    const reply = await legacy([{ text: "you idiot" }, { text: long }, { text: "x".repeat(1000) }])
    expect(reply.status).toBe(200)
    Schema.decodeUnknownSync(LegacyAnalyzeResponse)(reply.json)
    expect(reply.json.data).toHaveLength(2)
    expect(reply.json.errors).toEqual([
      expect.objectContaining({ status: "TEXT_TOO_LONG", details: { position: 1, limit: 1000, value: long } })
    ])
    expect(reply.json.data[0]).toMatchObject({
      text: "you idiot",
      type: "HATEFUL",
      recommendedAction: "REMOVE",
      meta: { classifications: ["INSULT"] }
    })
    expect(Number.isNaN(Date.parse(reply.json.data[0].analyzedAt))).toBe(false)
  })

  it("omitted references come back as <prefix>/<uuid>", async () => {
    const reply = await legacy([{ text: "a" }, { text: "b" }])
    const refs = reply.json.data.map((d: { reference: string }) => d.reference)
    for (const ref of refs) expect(ref).toMatch(/^sandbox\/[0-9a-f-]{36}$/)
    expect(refs[0]).not.toBe(refs[1])
  })

  it("a reference is unique per channel: sending it again updates that record", async () => {
    await legacy([{ text: "first version", reference: "r1" }])
    await legacy([{ text: "second version", reference: "r1" }])
    await legacy([{ text: "other channel", reference: "r1" }], "chan-2")
    const records = (await get(url, "/_sandbox/legacy-records?channelUuid=chan-1")).json.records
    expect(records).toHaveLength(1)
    expect(records[0]).toMatchObject({ reference: "r1", text: "second version", version: 2 })
    expect((await get(url, "/_sandbox/legacy-records")).json.records).toHaveLength(2)
  })

  it("a body that breaks the schema gives 400 naming the field", async () => {
    expect(violatedFields(await post(url, "/api/analyze", { channelUuid: "c", contents: [{ txt: "a" }] }))).toContain(
      "contents.0.text"
    )
  })
})

describe("quotas", () => {
  it("none by default: a burst of requests is never throttled", async () => {
    const replies = await Promise.all(Array.from({ length: 200 }, () => post(url, "/analyze/v1/text", text("hi"))))
    expect(replies.every((r) => r.status === 200)).toBe(true)
  })

  it("per organisation and per endpoint, token bucket; over it 429 QUOTA_ERROR naming the quota", async () => {
    const set = await put(url, "/_sandbox/quotas", { "sandbox-org": { analyzeText: { requestsPerSecond: 2 } } })
    expect(set.status).toBe(200)
    const statuses = []
    for (let i = 0; i < 4; i++) statuses.push((await post(url, "/analyze/v1/text", text("hi"))).status)
    expect(statuses).toEqual([200, 200, 429, 429])
    const d = expectError(await post(url, "/analyze/v1/text", text("hi")), 429, "QUOTA_ERROR")
    expect(d.violations).toEqual([{ quotaName: "analyze.message.requests_per_second", quotaValue: 2 }])
    // another organisation, another endpoint: untouched
    expect((await post(url, "/analyze/v1/text", text("hi"), { key: RESELLER })).status).toBe(200)
    expect((await post(url, "/analyze/v1/username", { channelId: CHANNEL, username: "bob" })).status).toBe(200)
    // the bucket refills
    await new Promise((r) => setTimeout(r, 600))
    expect((await post(url, "/analyze/v1/text", text("hi"))).status).toBe(200)
  })

  it('"*" applies to every organisation; bad quotas are refused with field names', async () => {
    await put(url, "/_sandbox/quotas", { "*": { legacyAnalyze: { requestsPerSecond: 1, burst: 1 } } })
    const body = { channelUuid: "c", contents: [] }
    expect((await post(url, "/api/analyze", body)).status).toBe(200)
    const d = expectError(await post(url, "/api/analyze", body), 429, "QUOTA_ERROR")
    expect(d.violations[0].quotaName).toBe("legacy.message.requests_per_second")
    const bad = await put(url, "/_sandbox/quotas", { acme: { analyzeText: { requestsPerSecond: -1 }, nope: {} } })
    expect(violatedFields(bad)).toEqual(expect.arrayContaining(["acme.analyzeText.requestsPerSecond", "acme.nope"]))
  })
})

describe("faults", () => {
  const statuses = async (n: number) => {
    const out: Array<number> = []
    for (let i = 0; i < n; i++) out.push((await post(url, "/analyze/v1/text", text("hi"))).status)
    return out
  }

  it("transient probability gives 503 TRANSIENT_ERROR envelopes, reproducibly with a seed", async () => {
    await put(url, "/_sandbox/faults", { transient: 0.5, seed: 42 })
    const first = await statuses(40)
    await put(url, "/_sandbox/faults", { transient: 0.5, seed: 42 })
    const second = await statuses(40)
    expect(second).toEqual(first)
    expect(first.filter((s) => s === 503).length).toBeGreaterThan(5)
    expect(first.filter((s) => s === 200).length).toBeGreaterThan(5)
    await put(url, "/_sandbox/faults", { transient: 1 })
    expectError(await post(url, "/analyze/v1/text", text("hi")), 503, "TRANSIENT_ERROR")
  })

  it("drop destroys the connection without an answer", async () => {
    await put(url, "/_sandbox/faults", { drop: 1 })
    await expect(post(url, "/analyze/v1/text", text("hi"))).rejects.toThrow()
    const log = (await get(url, "/_sandbox/requests")).json.requests
    expect(log.at(-1)).toMatchObject({ status: 0, fault: "drop" })
  })

  it("stall waits N ms before answering", async () => {
    await put(url, "/_sandbox/faults", { stall: 1, stallMs: 300 })
    const t0 = performance.now()
    expect((await post(url, "/analyze/v1/text", text("hi"))).status).toBe(200)
    expect(performance.now() - t0).toBeGreaterThanOrEqual(290)
  })

  it("malformed answers a body that is not JSON", async () => {
    await put(url, "/_sandbox/faults", { malformed: 1 })
    const reply = await post(url, "/analyze/v1/text", text("hi"))
    expect(reply.status).toBe(200)
    expect(reply.json).toBeUndefined()
    expect(reply.text.startsWith('{"textAnalysis"')).toBe(true)
  })

  it("per endpoint rates replace the global ones; the control API is never faulted", async () => {
    await put(url, "/_sandbox/faults", { endpoints: { analyzeUsername: { transient: 1 } } })
    expect((await post(url, "/analyze/v1/text", text("hi"))).status).toBe(200)
    expectError(await post(url, "/analyze/v1/username", { channelId: CHANNEL, username: "b" }), 503, "TRANSIENT_ERROR")
    await put(url, "/_sandbox/faults", { transient: 1, drop: 0 })
    expect((await get(url, "/_sandbox/stats")).status).toBe(200)
  })

  it("a bad profile is refused naming the field", async () => {
    expect(violatedFields(await put(url, "/_sandbox/faults", { transient: 2, endpoints: { nope: {} } }))).toEqual(
      expect.arrayContaining(["transient", "endpoints.nope"])
    )
  })
})

describe("magic markers", () => {
  it("[[TRANSIENT]] 503, [[QUOTA]] 429, on analyze, legacy and feedback notes", async () => {
    expectError(await post(url, "/analyze/v1/text", text("[[TRANSIENT]]")), 503, "TRANSIENT_ERROR")
    const q = expectError(await post(url, "/analyze/v1/text", text("[[QUOTA]]")), 429, "QUOTA_ERROR")
    expect(q.violations[0].quotaName).toBe("analyze.message.requests_per_second")
    expectError(
      await post(url, "/api/analyze", { channelUuid: "c", contents: [{ text: "ok" }, { text: "[[TRANSIENT]]" }] }),
      503,
      "TRANSIENT_ERROR"
    )
    expectError(
      await post(url, "/feedback/v1/text", { analyzeRequest: text("hi"), notes: "[[QUOTA]]" }),
      429,
      "QUOTA_ERROR"
    )
    expectError(
      await post(url, "/analyze/v1/image", { channelId: CHANNEL, imageUrl: "https://i.example/[[TRANSIENT]].png" }),
      503,
      "TRANSIENT_ERROR"
    )
  })

  it("[[STALL:ms]], [[DROP]], [[MALFORMED]], [[LANG:xx]], [[SEVERITY:X]]", async () => {
    const t0 = performance.now()
    expect((await post(url, "/analyze/v1/text", text("[[STALL:250]] hi"))).status).toBe(200)
    expect(performance.now() - t0).toBeGreaterThanOrEqual(240)
    await expect(post(url, "/analyze/v1/text", text("[[DROP]]"))).rejects.toThrow()
    const malformed = await post(url, "/analyze/v1/text", text("[[MALFORMED]]"))
    expect(malformed.json).toBeUndefined()
    const lang = await post(url, "/analyze/v1/text", text("[[LANG:de]] [[INSULT]] [[SEVERITY:LOW]]"))
    expect(lang.json.textAnalysis).toMatchObject({ language: "de", classifications: ["INSULT"], severity: "LOW" })
  })

  it("markers act only after authentication and validation", async () => {
    expectError(
      await post(url, "/analyze/v1/text", text("[[TRANSIENT]]"), { key: "nope" }),
      401,
      "AUTHENTICATION_ERROR"
    )
    expectError(await post(url, "/analyze/v1/text", { text: "[[TRANSIENT]]" }), 400, "BAD_REQUEST_ERROR")
  })
})

describe("control API", () => {
  it("/_sandbox/requests logs every request with the key redacted", async () => {
    const secret = `secret-${randomUUID()}`
    await post(url, "/analyze/v1/text", text("hello log"))
    await post(url, "/analyze/v1/text", text("x"), { key: secret })
    await post(url, "/api/analyze", { channelUuid: "c", contents: [] })
    const reply = await get(url, "/_sandbox/requests")
    expect(reply.text).not.toContain(STANDARD)
    expect(reply.text).not.toContain(secret)
    const [first, second, third] = reply.json.requests
    expect(first).toMatchObject({ method: "POST", path: "/analyze/v1/text", endpoint: "analyzeText", status: 200 })
    expect(first.headers.authorization).toBe("ApiKey <redacted>")
    expect(JSON.parse(first.body).text).toBe("hello log")
    expect(Number.isNaN(Date.parse(first.time))).toBe(false)
    expect(second.status).toBe(401)
    expect(third.headers["x-api-key"]).toBe("<redacted>")
  })

  it("the request log is a bounded ring buffer of configurable size", async () => {
    const small = await start({ requestLogSize: 3 })
    try {
      for (let i = 0; i < 5; i++) await post(small.url, "/analyze/v1/text", text(`m${i}`))
      const requests = (await get(small.url, "/_sandbox/requests")).json.requests
      expect(requests.map((r: { body: string }) => JSON.parse(r.body).text)).toEqual(["m2", "m3", "m4"])
    } finally {
      await small.close()
    }
  })

  it("/_sandbox/stats counts per endpoint and status; reset clears everything", async () => {
    await post(url, "/analyze/v1/text", text("a"))
    await post(url, "/analyze/v1/text", text("b"))
    await post(url, "/analyze/v1/text", { nope: 1 })
    await post(url, "/nowhere", {})
    const stats = (await get(url, "/_sandbox/stats")).json
    expect(stats).toEqual({ total: 4, byEndpoint: { analyzeText: { "200": 2, "400": 1 }, unknown: { "404": 1 } } })
    await put(url, "/_sandbox/faults", { transient: 1 })
    await post(url, "/feedback/v1/text", { analyzeRequest: text("a"), notes: "n" })
    await fetch(`${url}/_sandbox/reset`, { method: "POST" })
    expect((await get(url, "/_sandbox/stats")).json).toEqual({ total: 0, byEndpoint: {} })
    expect((await get(url, "/_sandbox/requests")).json.requests).toEqual([])
    expect((await get(url, "/_sandbox/faults")).json).toEqual({})
    expect((await post(url, "/analyze/v1/text", text("a"))).status).toBe(200)
  })

  it("unknown control routes give the 404 envelope", async () => {
    expectError(await get(url, "/_sandbox/nope"), 404, "NOT_FOUND_ERROR")
  })
})
