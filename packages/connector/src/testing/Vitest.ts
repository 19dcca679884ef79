/**
 * Registers the conformance checks as vitest tests.
 *
 * @since 0.1.0
 */
import { it } from "@effect/vitest"
import { describe } from "vitest"
import * as Conformance from "./Conformance.ts"

/**
 * Registers one `it.live` test per conformance check inside a `describe(name)` block. Call it at the top
 * level of a test file: `describeConformance("rss", { connector, setup })`.
 */
export const describeConformance = (name: string, options: Conformance.Options): void => {
  const timeout = Conformance.durationMillis(options.timeout ?? "10 seconds") * 3 + 5_000
  describe(`conformance: ${name}`, () => {
    for (const [check, run] of Object.entries(Conformance.checks)) {
      it.live(check, () => run(options), timeout)
    }
  })
}
