/**
 * Imported first by every Warden entry point (`@warden/core/node-version`): on a Node.js older than
 * the packages' `engines.node`, the import fails at once with a message saying so, instead of a
 * `Cannot read properties of undefined` deep inside undici on the first call.
 */

/** The oldest Node.js the packages run on (their `engines.node`). */
export const MINIMUM_NODE = "22.19.0"

/** Whether `version` (e.g. `24.1.0`) is at least `MINIMUM_NODE`. */
export const isSupported = (version: string): boolean => {
  const [major = 0, minor = 0] = version.split(".").map(Number)
  const [minMajor = 0, minMinor = 0] = MINIMUM_NODE.split(".").map(Number)
  return major > minMajor || (major === minMajor && minor >= minMinor)
}

const running = typeof process === "undefined" ? undefined : process.versions?.node
if (running !== undefined && !isSupported(running)) {
  throw new Error(
    `Warden needs Node.js >= ${MINIMUM_NODE}; this is Node.js ${running}. Install a newer Node.js (24 LTS is tested).`
  )
}
