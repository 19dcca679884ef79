/**
 * The moderation keys of the config file (issues 36, 37): named moderators with roles, the strike
 * policy and the appeal window, `review: true` on a rule and `when.author` conditions; and the rule
 * checks `config check` and `warden policy test --rules` share, so both refuse the same rules.
 */
import { join } from "node:path"
import { Duration, Effect, Redacted } from "effect"
import { describe, expect, it } from "vitest"
import { checkConfig, ConfigError, formatProblem } from "../src/config/index.ts"
import * as Rule from "../src/domain/Rule.ts"
import { configFiles } from "./support/ConfigFiles.ts"
import { warden } from "./support/WardenCli.ts"

const { dir, write } = configFiles("warden-moderation-config-")
const CHANNEL = "0b5d4c1e-8a4f-4f5e-9c43-1d2e3f4a5b6c"
const env = { KEY: "sk-test-123456", ALICE_TOKEN: "alice-token-0123456789", BOB_TOKEN: "short" }

const check = (path: string) => Effect.runPromise(Effect.result(checkConfig(path, { env })))

const problemsOf = async (text: string) => {
  const r = await check(write(text))
  if (r._tag === "Success") throw new Error("expected problems, the file decoded")
  expect(r.failure).toBeInstanceOf(ConfigError)
  return r.failure.problems.map(formatProblem)
}

const head = `api:\n  apiKey: \${env:KEY}\n  baseUrl: https://api.example.com\nstate:\n  sqlite: ${join(dir, "state.db")}\n`
const rss = (rules: string) =>
  `sources:\n  - id: forum\n    type: rss\n    channelId: ${CHANNEL}\n    config: { feeds: [https://example.com/feed.xml] }\n    rules:\n${rules}`

describe("moderators, authors, review and author rules in the config file", () => {
  it("decode with their defaults: roles, Redacted tokens, a 7-day half-life, a 30-day appeal window", async () => {
    const r = await check(
      write(
        `${head}moderators:\n  - name: alice\n    role: moderator\n    token: "\${env:ALICE_TOKEN}"\n` +
          `authors:\n  strikes:\n    verdicts:\n      - when: { type: [HATEFUL], severityAtLeast: HIGH }\n` +
          rss(
            "      - name: escalating\n        when: { author: { strikesAtLeast: 3 } }\n        review: true\n" +
              "      - name: repeat-hate\n        when: { type: [HATEFUL], author: { within: 24 hours, count: 3, type: [HATEFUL] } }\n        review: true\n"
          )
      )
    )
    if (r._tag === "Failure") throw new Error(r.failure.problems.map(formatProblem).join("\n"))
    const config = r.success.config
    expect(config.moderators.map((m) => [m.name, m.role])).toEqual([["alice", "moderator"]])
    expect(Redacted.value(config.moderators[0]!.token)).toBe(env.ALICE_TOKEN)
    expect(String(config.moderators[0]!.token)).not.toContain(env.ALICE_TOKEN)
    expect(Duration.toHours(config.authors.strikes.halfLife)).toBe(7 * 24)
    expect(config.authors.strikes.rejection).toBe(1)
    expect(config.authors.strikes.verdicts).toEqual([
      { when: { type: ["HATEFUL"], severityAtLeast: "HIGH" }, weight: 1 }
    ])
    expect(Duration.toHours(config.authors.appealWindow)).toBe(30 * 24)
    const [escalating, repeat] = config.sources[0]!.rules
    expect(escalating).toMatchObject({ review: true, when: { author: { strikesAtLeast: 3 } } })
    expect(Duration.toHours(repeat!.when.author!.within!)).toBe(24)
    // A token written inline works but is warned about, as every other secret.
    const inline = await check(
      write(`${head}moderators:\n  - name: bob\n    role: viewer\n    token: "inline-token-0123456789"\n`)
    )
    if (inline._tag === "Failure") throw new Error("expected the file to decode")
    expect(inline.success.warnings.map(formatProblem).join("\n")).toContain("moderators.0.token: secret written inline")
  })

  it("refuses a short token, a duplicate name, the shared token's name, and author conditions that cannot be meant", async () => {
    const problems = await problemsOf(
      `${head}moderators:\n  - name: bob\n    role: moderator\n    token: "\${env:BOB_TOKEN}"\n` +
        "  - name: carol\n    role: boss\n    token: carol-token-0123456789\n" +
        "  - name: carol\n    role: viewer\n    token: carol-token-0123456789\n" +
        "  - name: admin-token\n    role: admin\n    token: admin-token-0123456789\n" +
        `authors:\n  strikes:\n    verdicts:\n      - when: { type: [HATEFULL] }\n` +
        rss(
          "      - name: a\n        when: { author: { within: 1 hour } }\n        review: true\n" +
            "      - name: b\n        when: { author: { count: 2, within: 1 hour, type: [HATE] } }\n" +
            "      - name: c\n        when: { author: { type: [HATEFUL] } }\n"
        )
    )
    const text = problems.join("\n")
    expect(text).toContain("moderators.0.token: must be at least 16 characters")
    expect(text).toContain("moderators.1.role")
    expect(text).toContain("moderators.2.name: duplicate moderator name 'carol' (also moderators.1)")
    expect(text).toContain("moderators.3.name: 'admin-token' is the name the audit gives the shared admin.token")
    expect(text).toContain("authors.strikes.verdicts.0.when.type.0: 'HATEFULL' is not an analysis type the rules know")
    expect(text).toContain("sources.0.rules.0.when.author.count: within and count go together")
    expect(text).toContain("sources.0.rules.1.when.author.type.0: 'HATE' is not an analysis type the rules know")
    expect(text).toContain("sources.0.rules.2.when.author")
    // The secret's value is never in a message.
    expect(text).not.toContain(env.BOB_TOKEN)
  })

  it("never refuses review: true, on a read-only source too, but refuses a platform action the connector lacks", async () => {
    const ok = await check(
      write(`${head}${rss("      - name: hold\n        when: { type: [HATEFUL] }\n        review: true\n")}`)
    )
    expect(ok._tag).toBe("Success")
    const problems = await problemsOf(
      `${head}${rss("      - name: hold\n        when: { type: [HATEFUL] }\n        review: true\n        actions: [hide]\n")}`
    )
    expect(problems.join("\n")).toContain("sources.0.rules.0.actions.0: connector rss cannot 'hide'; it can: (none)")
  })

  it("warns that strikesAtLeast never matches when nothing can earn a strike", async () => {
    const r = await check(
      write(
        `${head}authors:\n  strikes:\n    rejection: 0\n${rss("      - name: e\n        when: { author: { strikesAtLeast: 1 } }\n        review: true\n")}`
      )
    )
    if (r._tag === "Failure") throw new Error(r.failure.problems.map(formatProblem).join("\n"))
    expect(r.success.warnings.map(formatProblem).join("\n")).toContain(
      "sources.0.rules.0.when.author.strikesAtLeast: never matches"
    )
  })
})

describe("warden policy test refuses the rules config check refuses (one check)", () => {
  it("actions: [hide] on an RSS source: exit 78 with config check's message; review: true is tested", async () => {
    const config = write(
      `${head}${rss("      - name: hold\n        when: { type: [HATEFUL] }\n        review: true\n")}`
    )
    const rules = join(dir, "hide.yaml")
    const { writeFileSync } = await import("node:fs")
    writeFileSync(rules, "- name: hold\n  when: { type: [HATEFUL] }\n  actions: [hide]\n")
    const refused = await warden(["policy", "test", "--config", config, "--rules", rules], { env })
    expect(refused.code).toBe(78)
    expect(refused.stderr).toContain("rules.0.actions.0: connector rss cannot 'hide'; it can: (none)")
    const unknownSink = join(dir, "sink.yaml")
    writeFileSync(
      unknownSink,
      "- name: s\n  sinks: [nowhere]\n  when: { author: { within: 1h, count: 2, type: [NOPE] } }\n"
    )
    const both = await warden(["policy", "test", "--config", config, "--rules", unknownSink], { env })
    expect(both.code).toBe(78)
    expect(both.stderr).toContain("rules.0.sinks.0: no sink named 'nowhere'")
    expect(both.stderr).toContain("rules.0.when.author.type.0: 'NOPE' is not an analysis type")
    const fine = join(dir, "review.yaml")
    writeFileSync(fine, "- name: hold\n  when: { type: [HATEFUL] }\n  review: true\n")
    const tested = await warden(["policy", "test", "--config", config, "--rules", fine], { env })
    expect(tested.stderr).toBe("")
    expect(tested.code).toBe(0)
  }, 60_000)
})

describe("author conditions", () => {
  const context = (strikes: number, counted: number): Rule.AuthorContext => ({
    key: "discord:1",
    strikes: () => strikes,
    count: () => counted
  })
  const rule = (when: Rule.RuleWhen) => ({ name: "r", when, actions: [] }) as Rule.Rule
  const hateful = { type: "HATEFUL", severity: "HIGH", classifications: [] }

  it("hold when the author meets them, never for an item without an author", () => {
    const escalating = rule({ author: { strikesAtLeast: 3 } })
    expect(Rule.firstMatch([escalating], hateful, context(3, 0))?.name).toBe("r")
    expect(Rule.firstMatch([escalating], hateful, context(2.9, 0))).toBeUndefined()
    expect(Rule.firstMatch([escalating], hateful, undefined)).toBeUndefined()
    const repeat = rule({ type: ["HATEFUL"], author: { within: Duration.hours(1), count: 3 } })
    expect(Rule.firstMatch([repeat], hateful, context(0, 3))?.name).toBe("r")
    expect(Rule.firstMatch([repeat], hateful, context(0, 2))).toBeUndefined()
    // the verdict's conditions still hold first
    expect(Rule.firstMatch([repeat], { ...hateful, type: "NEUTRAL" }, context(0, 9))).toBeUndefined()
  })
})
