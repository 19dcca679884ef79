/** The version of `@warden/daemon` (the CLI, the telemetry resource, /metrics), from its package.json at build time. */
import pkg from "../package.json" with { type: "json" }

/** The version string. */
export const version: string = pkg.version
