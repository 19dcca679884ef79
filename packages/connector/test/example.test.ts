import { assert, describe, it } from "@effect/vitest"
import { Connector, Preview, SourceEvent } from "@warden/connector"
import { describeConformance } from "@warden/connector/testing"
import { Effect, Stream } from "effect"
import { connector as changelog } from "../examples/ChangeLogConnector.ts"
import { connector } from "../examples/JsonPollConnector.ts"
import * as ChangeLogUpstream from "./fixtures/ChangeLogUpstream.ts"
import * as JsonUpstream from "./fixtures/JsonUpstream.ts"

// The example of docs/connectors.md passes the whole conformance kit against a real HTTP upstream.
describeConformance("json-poll example", { connector, setup: JsonUpstream.make, timeout: "5 seconds" })
// The change-log example (edits, deletes, a hide action) passes it too, every check driven.
describeConformance("change-log example", { connector: changelog, setup: ChangeLogUpstream.make, timeout: "5 seconds" })

describe("example connector", () => {
  it.live("preview returns the first N events", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const { config, upstream } = yield* JsonUpstream.make
        yield* upstream.publish(5)
        const events = yield* Preview.preview(connector, config, 3, { timeout: "5 seconds" })
        assert.deepStrictEqual(
          events.map((e) => (e.kind === "upsert" ? e.reference : e.kind)),
          ["json-poll:1", "json-poll:2", "json-poll:3"]
        )
      })
    )
  )

  it.live("preview leaves out progress events (a poll that found nothing)", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const quiet = Connector.make({
          ...connector,
          make: () =>
            Effect.succeed({
              events: () => Stream.empty,
              pollOnce: () =>
                Stream.make<Array<SourceEvent.SourceEvent>>(
                  { kind: "progress", checkpoint: { after: 0 } },
                  SourceEvent.upsertText({ reference: "json-poll:1", checkpoint: { after: 1 }, text: "hi" }),
                  { kind: "progress", checkpoint: { after: 1 } }
                )
            })
        })
        const events = yield* Preview.preview(quiet, { url: "http://127.0.0.1:9/" }, 10)
        assert.deepStrictEqual(
          events.map((e) => e.kind),
          ["upsert"]
        )
      })
    )
  )

  it.live("preview stops at the timeout with what arrived", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const { config, upstream } = yield* JsonUpstream.make
        yield* upstream.publish(2)
        // Two events exist and the limit is 10, so only the timeout can end the preview. 300 ms let
        // one of the two arrive at load ~41 in a .ci/run; 3 s is room for both, not a speed bound.
        const events = yield* Preview.preview(connector, config, 10, { timeout: "3 seconds" })
        assert.strictEqual(events.length, 2)
      })
    )
  )

  it.effect("invalid config names the field", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(Connector.decodeConfig(connector, { url: "ftp://x", extra: 1 }))
      assert.strictEqual(error.reason, "InvalidConfig")
      assert.include(error.message, "url")
      assert.include(error.message, "extra")
    })
  )

  it("derives a JSON Schema from the config schema", () => {
    const schema = Connector.configJsonSchema(connector)
    assert.strictEqual(schema.$schema, "https://json-schema.org/draft/2020-12/schema")
    assert.deepStrictEqual((schema as { required?: unknown }).required, ["url"])
    assert.strictEqual((schema as { additionalProperties?: unknown }).additionalProperties, false)
  })
})

describe("docs/connectors.md", () => {
  it("shows the example connector exactly as the file the tests run", async () => {
    const { readFile } = await import("node:fs/promises")
    const doc = await readFile(new URL("../../../docs/connectors.md", import.meta.url), "utf8")
    const file = await readFile(new URL("../examples/JsonPollConnector.ts", import.meta.url), "utf8")
    assert.include(doc, `\`\`\`ts\n${file}\`\`\``)
  })
})
