import { describe, expect, it } from "@effect/vitest"
import { Duration, Option, Schema } from "effect"
import { ConfigDuration } from "../src/index.ts"

const millis = (text: string) => Option.map(ConfigDuration.parse(text), Duration.toMillis)

describe("ConfigDuration", () => {
  it("reads the short forms operators write (500ms, 10s, 5m, 1h, 2d, 1h30m) and Effect's '10 seconds'", () => {
    expect(millis("500ms")).toEqual(Option.some(500))
    expect(millis("10s")).toEqual(Option.some(10_000))
    expect(millis("1.5s")).toEqual(Option.some(1500))
    expect(millis("5m")).toEqual(Option.some(300_000))
    expect(millis("1h")).toEqual(Option.some(3_600_000))
    expect(millis("2d")).toEqual(Option.some(172_800_000))
    expect(millis("1h30m")).toEqual(Option.some(5_400_000))
    expect(millis("10 seconds")).toEqual(Option.some(10_000))
    expect(millis("500 millis")).toEqual(Option.some(500))
  })

  it("reads a negative duration (for the bounds to refuse with their message)", () => {
    expect(millis("-5s")).toEqual(Option.some(-5000))
    expect(millis("-5 minutes")).toEqual(Option.some(-300_000))
  })

  it("refuses a bare number, a unit alone, an unknown unit", () => {
    for (const text of ["10", "s", "10x", "ten seconds", "", "10 parsecs", "-"]) {
      expect(ConfigDuration.parse(text), text).toEqual(Option.none())
    }
  })

  it("formats the shortest exact short form, which parses back to the same duration", () => {
    for (const [ms, text] of [
      [0, "0s"],
      [250, "250ms"],
      [90_000, "1m30s"],
      [5_400_000, "1h30m"],
      [86_400_000, "1d"],
      [1500, "1s500ms"]
    ] as const) {
      expect(ConfigDuration.format(Duration.millis(ms))).toBe(text)
      expect(millis(text)).toEqual(Option.some(ms))
    }
  })

  it("decodes a config key with a default and a bound, naming the bound in the short form", () => {
    const S = Schema.Struct({ every: ConfigDuration.withDefault("5m", "1s") })
    const decode = Schema.decodeUnknownExit(S)
    expect(Duration.toMillis((decode({}) as any).value.every)).toBe(300_000)
    expect(Duration.toMillis((decode({ every: "30s" }) as any).value.every)).toBe(30_000)
    expect(String(decode({ every: "100ms" }))).toContain("must be at least 1s")
    expect(String(decode({ every: "soon" }))).toContain("expected a duration such as '500ms'")
    expect(Schema.encodeSync(S)({ every: Duration.minutes(90) })).toEqual({ every: "1h30m" })
  })
})
