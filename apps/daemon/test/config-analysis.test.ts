/**
 * `sources[].analysis` (the spec's reseller-only fields per source): what `config check` accepts,
 * refuses (standard key) and warns about (customerContext length, a field no endpoint of the source
 * takes), what each endpoint's request carries, and a daemon whose requests, read back from the
 * sandbox's request log, carry them.
 */
import { join } from "node:path"
import { Sandbox } from "@warden/sandbox"
import { Effect, Layer } from "effect"
import { afterAll, describe, expect, it } from "vitest"
import { checkConfig, formatProblem } from "../src/config/index.ts"
import { v1Bodies } from "../src/engine/RequestBuilder.ts"
import type { SourceSettings } from "../src/domain/SourceSettings.ts"
import { specOf } from "../src/FromConfig.ts"
import { SinkList } from "../src/sinks/SinkList.ts"
import { configFiles } from "./support/ConfigFiles.ts"
import { waitFor } from "./support/DaemonProcess.ts"
import { startDaemonInProcess } from "./support/InProcess.ts"
import { connector, startPlatform } from "./support/TestPlatform.ts"
import { warden } from "./support/WardenCli.ts"

const { dir, write } = configFiles("warden-analysis-")
const CHANNEL = "0b5d4c1e-8a4f-4f5e-9c43-1d2e3f4a5b6c"
const env = { WARDEN_TEST_API_KEY: "sk-test-123456" }
const CONTEXT_OK = `A gaming community for a strategy game. ${"Players trade friendly banter about matches. ".repeat(12)}`

const file = (keyKind: string | undefined, analysis: string, extra = "") =>
  `api:\n  apiKey: \${env:WARDEN_TEST_API_KEY}\n  baseUrl: https://api.example.com\n${keyKind === undefined ? "" : `  keyKind: ${keyKind}\n`}` +
  `sources:\n  - id: feed\n    type: testplatform\n    channelId: ${CHANNEL}\n    config: { url: "http://127.0.0.1:1" }\n` +
  `    analyse: [text, image, username]\n${extra}    analysis:\n${analysis
    .split("\n")
    .map((l) => `      ${l}`)
    .join("\n")}\n`

const check = (text: string) =>
  Effect.runPromise(Effect.result(checkConfig(write(text), { env, builtins: [connector] })))

const FIELDS: ReadonlyArray<readonly [field: string, yaml: string]> = [
  ["industry", "industry: INDUSTRY_GAMING"],
  ["defaultLanguage", "defaultLanguage: fr"],
  ["customerContext", `customerContext: "${CONTEXT_OK}"`],
  ["classificationsEnabled", "classificationsEnabled: [WEAPONS, NUDITY]"],
  ["ocrEnabled", "ocrEnabled: true"]
]

describe("config check: sources[].analysis", () => {
  for (const [field, yaml] of FIELDS) {
    it(`${field} with a reseller key decodes into the source`, async () => {
      const r = await check(file("reseller", yaml))
      if (r._tag === "Failure") throw new Error(r.failure.problems.map(formatProblem).join("\n"))
      expect(Object.keys(r.success.config.sources[0]!.analysis ?? {})).toEqual([field])
      expect(r.success.warnings.filter((w) => w.path.includes("analysis"))).toEqual([])
    })
    for (const keyKind of [undefined, "standard"]) {
      it(`${field} with a ${keyKind ?? "default (standard)"} key is refused at sources.0.analysis.${field}, naming api.keyKind`, async () => {
        const r = await check(file(keyKind, yaml))
        if (r._tag === "Success") throw new Error("expected the file to be refused")
        const problems = r.failure.problems.filter((p) => p.path.startsWith("sources.0.analysis"))
        expect(problems.map((p) => p.path)).toEqual([`sources.0.analysis.${field}`])
        expect(problems[0]!.message).toContain("api.keyKind is standard")
      })
    }
  }

  it("WARDEN_KEY_KIND=reseller counts as the key kind", async () => {
    const r = await Effect.runPromise(
      Effect.result(
        checkConfig(write(file(undefined, "industry: INDUSTRY_MEDIA")), {
          env: { ...env, WARDEN_KEY_KIND: "reseller" },
          builtins: [connector]
        })
      )
    )
    expect(r._tag).toBe("Success")
  })

  it("values are decoded with core's schemas: an unknown industry, a 3-letter language, a non-boolean ocrEnabled", async () => {
    const r = await check(file("reseller", "industry: INDUSTRY_FOOD\ndefaultLanguage: fra\nocrEnabled: maybe"))
    if (r._tag === "Success") throw new Error("expected the file to be refused")
    expect(r.failure.problems.map((p) => p.path).sort()).toEqual([
      "sources.0.analysis.defaultLanguage",
      "sources.0.analysis.industry",
      "sources.0.analysis.ocrEnabled"
    ])
  })

  it.each([
    ["short", "A forum.", 8],
    ["long", "x".repeat(1025), 1025]
  ])(
    "warns when customerContext is too %s (outside 512-1024 characters), counting characters",
    async (_, value, length) => {
      const r = await check(file("reseller", `customerContext: "${value}"`))
      if (r._tag === "Failure") throw new Error(r.failure.problems.map(formatProblem).join("\n"))
      expect(r.success.warnings.filter((w) => w.path.includes("analysis")).map(formatProblem)).toEqual([
        `sources.0.analysis.customerContext: ${length} characters; the spec recommends 512 to 1024 (describe the platform, audience and conventions)`
      ])
    }
  )

  it("counts code points, not UTF-16 units: 512 emoji are inside the range", async () => {
    const r = await check(file("reseller", `customerContext: "${"😀".repeat(512)}"`))
    expect(r._tag === "Success" && r.success.warnings.filter((w) => w.path.includes("analysis"))).toEqual([])
  })

  it("warns when a field applies to none of the endpoints the source analyses, or the source is legacy", async () => {
    const textOnly = (await check(
      file("reseller", "ocrEnabled: true\nindustry: INDUSTRY_SPORT").replace("[text, image, username]", "[text]")
    )) as any
    expect(textOnly.success.warnings.filter((w: any) => w.path.includes("analysis")).map(formatProblem)).toEqual([
      "sources.0.analysis.ocrEnabled: never sent: it applies to image and this source analyses text"
    ])
    const legacy = (await check(
      file("reseller", "industry: INDUSTRY_SPORT", "    mode: legacy\n").replace("[text, image, username]", "[text]")
    )) as any
    const warnings = (legacy._tag === "Success" ? legacy.success.warnings : legacy.failure.warnings).map(formatProblem)
    expect(warnings).toContain(
      "sources.0.analysis.industry: never sent: the legacy batch endpoint takes no reseller fields (mode: legacy)"
    )
  })

  it("warden config check exits 78 and prints the path and api.keyKind", async () => {
    const r = await warden(["config", "check", write(file("standard", "industry: INDUSTRY_GAMING"))], {
      env: { ...env, WARDEN_CONNECTOR_PATH: "" }
    })
    expect(r.code).toBe(78)
    expect(r.stderr).toContain("sources.0.analysis.industry: reseller-only field, but api.keyKind is standard")
  })
})

describe("requests carry the fields their endpoint takes", () => {
  const settings: SourceSettings = {
    id: "s",
    connector: "x",
    channelId: CHANNEL,
    mode: "v1",
    analyse: new Set(["text", "image", "username"]),
    oversize: "split",
    dryRun: false,
    analysis: {
      industry: "INDUSTRY_GAMING",
      defaultLanguage: "fr",
      customerContext: "ctx",
      classificationsEnabled: ["WEAPONS"],
      ocrEnabled: true
    }
  }
  const bodyOf = (content: any) => {
    const r = v1Bodies(settings, { kind: "upsert", reference: "r/1", content } as any)
    if (r._tag !== "Prepared") throw new Error(r.message)
    return r.bodies[0]!
  }
  const reseller = (body: Record<string, unknown>) =>
    Object.keys(body)
      .filter((k) =>
        ["industry", "defaultLanguage", "customerContext", "classificationsEnabled", "ocrEnabled"].includes(k)
      )
      .sort()

  it("text: industry, defaultLanguage", () => {
    expect(reseller(bodyOf({ type: "text", text: "hello" }))).toEqual(["defaultLanguage", "industry"])
  })
  it("image: all five", () => {
    expect(reseller(bodyOf({ type: "image", url: "https://img.example/a.png" }))).toEqual([
      "classificationsEnabled",
      "customerContext",
      "defaultLanguage",
      "industry",
      "ocrEnabled"
    ])
  })
  it("username: industry, defaultLanguage, customerContext", () => {
    expect(reseller(bodyOf({ type: "username", username: "bob" }))).toEqual([
      "customerContext",
      "defaultLanguage",
      "industry"
    ])
  })
  it("a source without analysis sends none", () => {
    const r = v1Bodies({ ...settings, analysis: undefined }, {
      kind: "upsert",
      reference: "r/1",
      content: { type: "image", url: "https://img.example/a.png" }
    } as any)
    expect(r._tag === "Prepared" && reseller(r.bodies[0]!)).toEqual([])
  })
})

describe("a daemon from a config file with analysis", () => {
  const cleanups: Array<() => Promise<void>> = []
  afterAll(async () => {
    for (const c of cleanups.reverse()) await c()
  })

  it("sends the fields to the sandbox (read back from /_sandbox/requests), which applies them", async () => {
    const sandbox = await Sandbox.startPromise()
    cleanups.push(() => sandbox.close())
    const platform = await startPlatform()
    cleanups.push(() => platform.close())
    const path = write(
      `api:\n  apiKey: sandbox-reseller-key\n  keyKind: reseller\n  baseUrl: ${sandbox.url}\n` +
        `state:\n  sqlite: ${join(dir, "daemon.db")}\n` +
        `sources:\n  - id: games\n    type: testplatform\n    channelId: ${CHANNEL}\n` +
        `    config: { url: "${platform.url}", pollMillis: 50 }\n` +
        "    analysis: { industry: INDUSTRY_GAMING, defaultLanguage: fr, customerContext: ignored-for-text }\n"
    )
    const checked = await Effect.runPromise(checkConfig(path, { env: {}, builtins: [connector] }))
    const { spec } = specOf(checked)
    const daemon = await startDaemonInProcess({
      ...spec,
      sinks: Layer.succeed(SinkList, []),
      sinkNames: []
    })
    cleanups.push(daemon.close)
    platform.publish({ kind: "upsert", reference: "g/1", text: "what a clown" })
    const analyseRequests = async (): Promise<Array<any>> =>
      ((await (await fetch(`${sandbox.url}/_sandbox/requests`)).json()) as any).requests.filter(
        (q: any) => q.path === "/analyze/v1/text"
      )
    await waitFor(async () => (await analyseRequests()).length > 0, 20_000, "the analyse request")
    const logged = await analyseRequests()
    expect(logged).toHaveLength(1)
    const body = typeof logged[0].body === "string" ? JSON.parse(logged[0].body) : logged[0].body
    expect(body).toMatchObject({ text: "what a clown", industry: "INDUSTRY_GAMING", defaultLanguage: "fr" })
    expect(body.customerContext).toBeUndefined()
    expect(logged[0].status).toBe(200)
    // the sandbox's gaming banter rule: one insult is LOW, KEEP
    const latest = async () => (await daemon.admin("/api/decisions?limit=10")).body.decisions?.[0]
    await waitFor(async () => (await latest()) !== undefined, 20_000, "the decision")
    const verdict = await latest()
    expect(verdict).toMatchObject({ reference: "g/1" })
    expect(JSON.stringify(verdict)).toContain('"LOW"')
  })
})
