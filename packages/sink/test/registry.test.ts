import { fileURLToPath } from "node:url"
import { assert, describe, it } from "@effect/vitest"
import { SinkRegistry } from "@warden/sink"
import { Effect } from "effect"
import { sink as example } from "../examples/HttpSink.ts"

const baseDirectory = fileURLToPath(new URL(".", import.meta.url))
const importModule = (specifier: string) => import(/* @vite-ignore */ specifier)
const options = { importModule, baseDirectory }

describe("SinkRegistry", () => {
  it.effect("a type names its package and the install command", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(SinkRegistry.resolve(options, { type: "nats" }))
      assert.strictEqual(error._tag, "SinkNotFound")
      assert.strictEqual(
        error.message,
        "sink type 'nats' needs the package @warden/sink-nats: run `pnpm add @warden/sink-nats`"
      )
    })
  )

  it.effect("a built-in is found by type without importing", () =>
    Effect.gen(function* () {
      const found = yield* SinkRegistry.resolve({ ...options, builtins: [example] }, { type: "http-example" })
      assert.strictEqual(found, example)
    })
  )

  it.effect("a module path is loaded relative to the config's directory, once", () =>
    Effect.gen(function* () {
      const resolve = SinkRegistry.cached(options)
      const found = yield* resolve({ module: "../examples/HttpSink.ts" })
      assert.strictEqual(found, example)
      assert.strictEqual(yield* resolve({ module: "../examples/HttpSink.ts" }), found)
    })
  )

  it.effect("a module without a valid sink, or a missing file, is named", () =>
    Effect.gen(function* () {
      const invalid = yield* Effect.flip(SinkRegistry.resolve(options, { module: "./fixtures/not-a-sink.ts" }))
      assert.strictEqual(invalid._tag, "InvalidSinkModule")
      assert.include(invalid.message, "does not export a sink")
      const missing = yield* Effect.flip(SinkRegistry.resolve(options, { module: "./fixtures/nope.js" }))
      assert.strictEqual(missing._tag, "SinkNotFound")
      assert.include(missing.message, "sink module './fixtures/nope.js' not found")
    })
  )
})
