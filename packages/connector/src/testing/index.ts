/**
 * The connector conformance kit: `describeConformance` for vitest, or the checks as Effects.
 *
 * @since 0.1.0
 */

/** The checks, their options and the upstream driver contract. */
export * as Conformance from "./Conformance.ts"

/** A CONNECT proxy on loopback, for tests of clients that honour HTTP(S)_PROXY. */
export * as ConnectProxy from "./ConnectProxy.ts"

/** Vitest registration of the checks. */
export { describeConformance } from "./Vitest.ts"

/** Handles left behind after a scope closed (the kits' `cleanShutdown`). */
export * as Handles from "./Handles.ts"
