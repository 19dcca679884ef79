/**
 * The version of `@warden/transport`, sent in the `User-Agent` of every call. A test keeps it equal to
 * the `version` of package.json (a JSON import would put package.json outside the build's rootDir).
 */
export const VERSION = "0.1.0"

/** The `User-Agent` of every call: names Warden, its version and the runtime. */
export const userAgent = (suffix?: string): string =>
  `warden/${VERSION} (@warden/transport; node/${typeof process === "undefined" ? "unknown" : process.versions.node})${
    suffix === undefined || suffix === "" ? "" : ` ${suffix}`
  }`
