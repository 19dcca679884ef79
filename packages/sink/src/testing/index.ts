/**
 * The sink conformance kit: `describeConformance` for vitest, or the checks as Effects.
 *
 * @since 0.1.0
 */

/** The checks, their options and the receiver's harness contract. */
export * as Conformance from "./Conformance.ts"

/** Vitest registration of the checks. */
export { describeConformance } from "./Vitest.ts"

/** A loopback HTTP receiver for the harness of an HTTP sink. */
export * as HttpReceiver from "./HttpReceiver.ts"
