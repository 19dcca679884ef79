/**
 * System error codes (`error.code` of Node's file and socket errors) as the phrases a user reads, for
 * the lines naming a setting: at start (StartupFailure: `sinks.0.path: cannot create /sys/x: permission
 * denied`), and when a running daemon loses a disk or a database (`state.postgres: cannot connect to
 * 10.0.0.5:5432: connection refused (ECONNREFUSED)`, Outage.ts).
 */

/** A system error code as the phrase a user reads; `fallback` for a code without one. */
export const describeErrno = (code: string | undefined, fallback: string): string => {
  switch (code) {
    case "EACCES":
    case "EPERM":
      return "permission denied"
    case "EISDIR":
      return "is a directory"
    case "ENOENT":
      return "no such file or directory"
    case "ENOTDIR":
      return "a parent is not a directory"
    case "EROFS":
      return "read-only file system"
    case "ENOSPC":
      return "no space left on the device"
    case "EDQUOT":
      return "disk quota exceeded"
    case "EIO":
      return "input/output error"
    case "EADDRINUSE":
      return "address already in use"
    case "EADDRNOTAVAIL":
      return "address not available on this machine"
    case "ECONNREFUSED":
      return "connection refused"
    case "ECONNRESET":
      return "connection reset"
    case "ETIMEDOUT":
      return "timed out"
    default:
      return fallback
  }
}

/** The `code` of an error-like value, when it has a string one. */
export const codeOf = (u: unknown): string | undefined => {
  const code = typeof u === "object" && u !== null ? (u as { readonly code?: unknown }).code : undefined
  return typeof code === "string" ? code : undefined
}
