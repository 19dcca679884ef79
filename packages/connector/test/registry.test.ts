import { fileURLToPath } from "node:url"
import { assert, describe, it } from "@effect/vitest"
import { ConnectorRegistry } from "@warden/connector"
import { Effect } from "effect"
import { connector as example } from "../examples/JsonPollConnector.ts"

const baseDirectory = fileURLToPath(new URL(".", import.meta.url))
// The caller's import, as the daemon supplies it: resolution happens from this package's node_modules.
const importModule = (specifier: string) => import(/* @vite-ignore */ specifier)
const layer = ConnectorRegistry.ConnectorRegistry.layer({ importModule, baseDirectory })

describe("ConnectorRegistry", () => {
  it.effect("a missing connector package gives the install command", () =>
    Effect.gen(function* () {
      const registry = yield* ConnectorRegistry.ConnectorRegistry
      const error = yield* Effect.flip(registry.resolve({ type: "rss" }))
      assert.strictEqual(error._tag, "ConnectorNotFound")
      assert.strictEqual(
        error.message,
        "connector type 'rss' needs the package @warden/connector-rss: run `pnpm add @warden/connector-rss`"
      )
    }).pipe(Effect.provide(layer))
  )

  it.effect("loads a module path relative to the base directory and validates it", () =>
    Effect.gen(function* () {
      const registry = yield* ConnectorRegistry.ConnectorRegistry
      const connector = yield* registry.resolve({ module: "../examples/JsonPollConnector.ts" })
      assert.strictEqual(connector.type, "json-poll")
      assert.strictEqual(connector, example)
      // cached: the same object again
      assert.strictEqual(yield* registry.resolve({ module: "../examples/JsonPollConnector.ts" }), connector)
    }).pipe(Effect.provide(layer))
  )

  it.effect("a module without a valid connector is rejected", () =>
    Effect.gen(function* () {
      const registry = yield* ConnectorRegistry.ConnectorRegistry
      const error = yield* Effect.flip(registry.resolve({ module: "./fixtures/not-a-connector.ts" }))
      assert.strictEqual(error._tag, "InvalidConnectorModule")
      assert.include(error.message, "does not export a connector")
    }).pipe(Effect.provide(layer))
  )

  it.effect("a missing module file is ConnectorNotFound", () =>
    Effect.gen(function* () {
      const registry = yield* ConnectorRegistry.ConnectorRegistry
      const error = yield* Effect.flip(registry.resolve({ module: "./fixtures/nope.js" }))
      assert.strictEqual(error._tag, "ConnectorNotFound")
      assert.include(error.message, "./fixtures/nope.js")
    }).pipe(Effect.provide(layer))
  )

  it.effect("a connector whose own dependency is missing is InvalidConnectorModule, naming the dependency", () =>
    Effect.gen(function* () {
      const registry = yield* ConnectorRegistry.ConnectorRegistry
      const error = yield* Effect.flip(registry.resolve({ module: "./fixtures/broken-dependency.ts" }))
      assert.strictEqual(error._tag, "InvalidConnectorModule")
      assert.include(error.message, "warden-no-such-package-for-tests")
    }).pipe(Effect.provide(layer))
  )

  it.effect("a type resolves through importModule to @warden/connector-<type> and checks the type", () =>
    Effect.gen(function* () {
      const asked: Array<string> = []
      const options = {
        baseDirectory,
        importModule: async (s: string) => {
          asked.push(s)
          return { default: example }
        }
      }
      const ok = yield* ConnectorRegistry.resolve(options, { type: "json-poll" })
      assert.strictEqual(ok, example)
      const error = yield* Effect.flip(ConnectorRegistry.resolve(options, { type: "rss" }))
      assert.include(error.message, "exports a connector of type 'json-poll', expected 'rss'")
      assert.deepStrictEqual(asked, ["@warden/connector-json-poll", "@warden/connector-rss"])
    })
  )

  it.effect("builtins win without importing", () =>
    Effect.gen(function* () {
      const c = yield* ConnectorRegistry.resolve(
        { baseDirectory, builtins: [example], importModule: () => Promise.reject(new Error("no")) },
        { type: "json-poll" }
      )
      assert.strictEqual(c, example)
    })
  )
})
