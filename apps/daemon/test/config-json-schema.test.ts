/**
 * The config file's JSON Schema as a document (config/ConfigJsonSchema.ts): valid under Ajv's strict
 * mode (a user's CI may compile it with `strict: true`), and plugins' definitions merged by name
 * without one silently replacing another.
 */
import { Sink } from "@warden/sink"
import { Ajv2020 } from "ajv/dist/2020.js"
import { Effect, Schema } from "effect"
import { describe, expect, it } from "vitest"
import * as ConfigJsonSchema from "../src/config/ConfigJsonSchema.ts"
import * as Sinks from "../src/config/Sinks.ts"

/** A sink whose config refers to a named definition (`$defs/Target`) of the given shape (one whose encoded form is itself). */
const sinkWithTarget = (type: string, target: Schema.Codec<unknown, unknown>) =>
  Sink.make({
    type,
    configSchema: Schema.Struct({ target: target.annotate({ identifier: "Target" }) }),
    delivery: "idempotent",
    make: () => Effect.die("not started in this test")
  })

describe("the config file's JSON Schema", () => {
  it("compiles under Ajv's strict mode, and still refuses a state with both sqlite and postgres", async () => {
    const doc = await Effect.runPromise(ConfigJsonSchema.document)
    const validate = new Ajv2020({ strict: true, validateFormats: false }).compile(doc)
    const source = {
      id: "feed",
      type: "rss",
      channelId: "0b5d4c1e-8a4f-4f5e-9c43-1d2e3f4a5b6c",
      config: { feeds: ["https://example.org/feed.xml"] }
    }
    const sinks = [{ type: "jsonl", name: "out", path: "out.jsonl" }]
    expect(validate({ state: { sqlite: "state.db" }, sources: [source], sinks }), JSON.stringify(validate.errors)).toBe(
      true
    )
    expect(validate({ state: { sqlite: "state.db", postgres: "postgres://x" }, sources: [source], sinks })).toBe(false)
    // exactly one of type and module
    expect(validate({ sources: [{ ...source, module: "./mine.js" }], sinks })).toBe(false)
    const { type: _, ...noType } = source
    expect(validate({ sources: [noType], sinks })).toBe(false)
  })

  it("merges a definition two sinks share, and refuses two different ones under one name, naming the sink", () => {
    const same = sinkWithTarget("one", Schema.String)
    expect(() => ConfigJsonSchema.make([], [], [...Sinks.BUILTINS, same, { ...same, type: "again" }])).not.toThrow()
    const other = sinkWithTarget("two", Schema.Struct({ host: Schema.String }))
    expect(() => ConfigJsonSchema.make([], [], [...Sinks.BUILTINS, same, other])).toThrow(
      "JSON Schema definition Target of sink two clashes with another of the same name"
    )
  })
})
