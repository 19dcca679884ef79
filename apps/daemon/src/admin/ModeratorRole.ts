/**
 * Moderators' roles and who a caller is, apart from `Moderators.ts` (which uses `node:crypto`):
 * `AdminApi.ts` names them, and the browser console type-imports `AdminApi.ts`.
 */

/** What a moderator may do, from least to most. */
export const ROLES = ["viewer", "moderator", "admin"] as const
/** A moderator's role. */
export type Role = (typeof ROLES)[number]

/** Whether `role` includes what `needed` may do. */
export const allows = (role: Role, needed: Role): boolean => ROLES.indexOf(role) >= ROLES.indexOf(needed)

/** The name the audit gives the shared `admin.token`. */
export const ADMIN_TOKEN_NAME = "admin-token"

/** A signed-in person (or the automation behind the shared token). */
export interface Moderator {
  readonly name: string
  readonly role: Role
  /** Where they are defined: the shared token, the config file, or the state (`warden moderator add`). */
  readonly from: "token" | "config" | "state"
}
