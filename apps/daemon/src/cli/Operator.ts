/** Who runs a CLI command, for the records that name who did what (checkpoint resets, erasures). */
import { hostname, userInfo } from "node:os"

/** `user@host`. */
export const operator = (): string => {
  let user = process.env.USER ?? process.env.USERNAME ?? "unknown"
  try {
    user = userInfo().username
  } catch {
    // No passwd entry (a container's uid): keep the environment's name.
  }
  return `${user}@${hostname()}`
}
