/**
 * The documented, deterministic effect of each reseller field in the sandbox (README, "Reseller
 * fields"), over real HTTP with the reseller key: each case compares the same input with and without
 * the field, so the field is what made the difference.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { CHANNEL, post, RESELLER, type Running, start } from "./helpers.ts"

let sandbox: Running
let url: string
beforeAll(async () => {
  sandbox = await start()
  url = sandbox.url
})
afterAll(() => sandbox.close())

const analyse = async (path: string, body: Record<string, unknown>) => {
  const reply = await post(url, path, { channelId: CHANNEL, ...body }, { key: RESELLER })
  expect(reply.status, reply.text).toBe(200)
  return reply.json
}
const text = async (t: string, extra: Record<string, unknown> = {}) =>
  (await analyse("/analyze/v1/text", { text: t, ...extra })).textAnalysis
const username = async (u: string, extra: Record<string, unknown> = {}) =>
  (await analyse("/analyze/v1/username", { username: u, ...extra })).usernameAnalysis
const ocr = async (t: string, extra: Record<string, unknown> = {}) =>
  (
    await analyse("/analyze/v1/image", {
      imageUrl: `https://img.example/meme.png?ocr=${encodeURIComponent(t)}`,
      ocrEnabled: true,
      ...extra
    })
  ).imageAnalysis.ocrAnalysis.textAnalysis

describe("industry", () => {
  it("gaming and sport keep a single insult (banter: LOW, KEEP) that the default removes (MEDIUM, REMOVE)", async () => {
    expect(await text("what a noob, such a clown")).toMatchObject({ severity: "MEDIUM", recommendedAction: "REMOVE" })
    for (const industry of ["INDUSTRY_GAMING", "INDUSTRY_SPORT"]) {
      expect(await text("what a noob, such a clown", { industry })).toMatchObject({
        type: "HATEFUL",
        classifications: ["INSULT"],
        severity: "LOW",
        recommendedAction: "KEEP"
      })
    }
  })

  it("media and brand rate a single insult HIGH; social platform, tech provider and other change nothing", async () => {
    for (const industry of ["INDUSTRY_MEDIA", "INDUSTRY_BRAND"])
      expect((await text("such a clown", { industry })).severity).toBe("HIGH")
    for (const industry of ["INDUSTRY_SOCIAL_PLATFORM", "INDUSTRY_TECH_PROVIDER", "INDUSTRY_OTHER"])
      expect((await text("such a clown", { industry })).severity).toBe("MEDIUM")
  })

  it("threats and hatred are never moved, and a [[SEVERITY]] marker still wins", async () => {
    expect(await text("I will murder you", { industry: "INDUSTRY_GAMING" })).toMatchObject({
      severity: "VERY_HIGH",
      recommendedAction: "REMOVE"
    })
    expect((await text("immigrants are vermin", { industry: "INDUSTRY_GAMING" })).severity).toBe("HIGH")
    expect((await text("clown [[SEVERITY:VERY_HIGH]]", { industry: "INDUSTRY_GAMING" })).severity).toBe("VERY_HIGH")
  })

  it("applies to the username endpoint and to the OCR text of an image", async () => {
    expect((await username("clown", { industry: "INDUSTRY_GAMING" })).severity).toBe("LOW")
    expect((await ocr("such a clown", { industry: "INDUSTRY_GAMING" })).recommendedAction).toBe("KEEP")
    expect((await ocr("such a clown")).recommendedAction).toBe("REMOVE")
  })
})

describe("customerContext", () => {
  const people = 'A streaming channel. The hosts are "kaycee" and "big_bo"; viewers joke about them.'

  it("a quoted name makes a text naming that person directed at SINGLE_PERSON (and a threat VERY_HIGH)", async () => {
    expect(await ocr("kaycee is a clown")).toMatchObject({ directedAt: "UNDEFINED" })
    expect(await ocr("kaycee is a clown", { customerContext: people })).toMatchObject({ directedAt: "SINGLE_PERSON" })
    expect(await ocr("murder big bo", { customerContext: people })).toMatchObject({
      directedAt: "SINGLE_PERSON",
      severity: "VERY_HIGH"
    })
    expect((await ocr("murder big bo")).severity).toBe("HIGH")
  })

  it("role-play/fiction keywords stop a second-person pronoun alone from counting as directed", async () => {
    expect((await ocr("you clown")).directedAt).toBe("SINGLE_PERSON")
    const fiction = "A role-play server: players write in character and address each other's characters."
    expect((await ocr("you clown", { customerContext: fiction })).directedAt).toBe("UNDEFINED")
    expect((await ocr("@kaycee you clown", { customerContext: fiction })).directedAt).toBe("USER")
  })

  it("applies to usernames: a username naming a quoted person is directed at them", async () => {
    expect((await username("kill_kaycee")).directedAt).toBe("UNDEFINED")
    expect((await username("kill_kaycee", { customerContext: people })).directedAt).toBe("SINGLE_PERSON")
  })
})

describe("defaultLanguage, classificationsEnabled, ocrEnabled", () => {
  it("defaultLanguage decides a short text's language (weak detection) and not a long one's", async () => {
    expect((await text("merci")).language).toBe("en")
    expect((await text("merci", { defaultLanguage: "fr" })).language).toBe("fr")
    expect((await username("gg", { defaultLanguage: "de" })).language).toBe("de")
    expect((await text("this sentence is plainly written in english", { defaultLanguage: "fr" })).language).toBe("en")
  })

  it("classificationsEnabled limits the image classifications; ocrEnabled alone adds ocrAnalysis", async () => {
    const image = { imageUrl: "https://img.example/weapons-alcohol.png?ocr=hello" }
    const all = (await analyse("/analyze/v1/image", image)).imageAnalysis
    expect([...all.classifications].sort()).toEqual(["ALCOHOL", "WEAPONS"])
    expect(all.ocrAnalysis).toBeUndefined()
    const limited = (await analyse("/analyze/v1/image", { ...image, classificationsEnabled: ["ALCOHOL"] }))
      .imageAnalysis
    expect(limited.classifications).toEqual(["ALCOHOL"])
    const withOcr = (await analyse("/analyze/v1/image", { ...image, ocrEnabled: true })).imageAnalysis
    expect(withOcr.ocrAnalysis.text).toBe("hello")
  })
})
