/**
 * Registers the sink conformance checks as vitest tests.
 *
 * @since 0.1.0
 */
import { it } from "@effect/vitest"
import { Duration } from "effect"
import { describe } from "vitest"
import * as Conformance from "./Conformance.ts"

/**
 * Registers one `it.live` test per check inside a `describe(name)` block. Call it at the top level of a
 * test file: `describeConformance("nats", { sink, setup, child })`.
 */
export const describeConformance = (name: string, options: Conformance.Options): void => {
  const timeout = Duration.toMillis(Duration.fromInputUnsafe(options.timeout ?? "10 seconds")) * 5 + 10_000
  describe(`sink conformance: ${name}`, () => {
    for (const [check, run] of Object.entries(Conformance.checks)) {
      it.live(check, () => run(options), timeout)
    }
  })
}
