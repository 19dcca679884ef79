/**
 * The console session's cookie name and what a session holds, apart from `ConsoleSession.ts` (which
 * uses `node:crypto`): `AdminApi.ts` names them, and the browser console type-imports `AdminApi.ts`
 * (its tsconfig has DOM types and no Node types).
 */

/** The session cookie's name. */
export const COOKIE = "warden_session"

import type { Moderator } from "./ModeratorRole.ts"

/** A signed-in browser. */
export interface Session {
  readonly csrf: string
  readonly expiresAt: number
  /** Who signed in. */
  readonly moderator: Moderator
}
