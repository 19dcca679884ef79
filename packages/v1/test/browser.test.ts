/** The `browser` export stands in for every name the package exports, so a browser bundle builds and throws its message. */
import { readFileSync } from "node:fs"
import { assert, describe, it } from "vitest"
import * as index from "../src/index.ts"

describe("browser.js", () => {
  it("exports every run-time name of the package, and throws server-only at load", () => {
    const source = readFileSync(new URL("../browser.js", import.meta.url), "utf8")
    const stubbed = [...source.matchAll(/ServerOnly as (\w+)/gu)].map((m) => m[1])
    assert.deepStrictEqual(stubbed.sort(), Object.keys(index).sort())
    assert.include(source, "server-only: API keys must not be used client-side")
  })
})
