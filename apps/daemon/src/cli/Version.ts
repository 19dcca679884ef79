/** The version of the `warden` CLI, read from this package's package.json at build time. */
import pkg from "../../package.json" with { type: "json" }

/** The CLI's version string. */
export const version: string = pkg.version
