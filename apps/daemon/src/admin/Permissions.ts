/**
 * Which role each admin route needs (issue 36), in one table the auth middleware reads by the route's
 * group and name: `viewer` reads everything (every GET); `moderator` also decides reviews, sends
 * feedback and files appeals; `admin` also acts on platforms (Restore / Remove), erases, replays dead
 * letters, tests policies and manages moderators. A route not listed needs `viewer`. A refusal is a 403
 * `FORBIDDEN` naming who, what and the role it needs: "viewer alice cannot decide reviews (needs
 * moderator)".
 */
import { AdminRefused } from "./AdminError.ts"
import { allows, type Moderator, type Role } from "./ModeratorRole.ts"

/** What a route needs: a role, and what it does in words (the refusal says it). */
export interface Needed {
  readonly role: Role
  readonly what: string
}

/** The routes that need more than `viewer`, by `group.endpoint`. */
export const NEEDED: Readonly<Record<string, Needed>> = {
  "decisions.feedback": { role: "moderator", what: "send feedback" },
  "decisions.moderate": { role: "admin", what: "act on platforms" },
  "console.replay": { role: "admin", what: "replay dead letters" },
  "governance.policyTest": { role: "admin", what: "test policies" },
  "governance.eraseItem": { role: "admin", what: "erase" },
  "governance.eraseAuthor": { role: "admin", what: "erase" },
  "review.decide": { role: "moderator", what: "decide reviews" },
  "review.fileAppeal": { role: "moderator", what: "file appeals" }
}

/** What `group.endpoint` needs. */
export const neededFor = (route: string): Needed => NEEDED[route] ?? { role: "viewer", what: "read" }

/** The refusal of `who` for a route needing `needed`, or undefined when their role allows it. */
export const refusal = (who: Pick<Moderator, "name" | "role">, needed: Needed): AdminRefused | undefined =>
  allows(who.role, needed.role)
    ? undefined
    : new AdminRefused({
        status: 403,
        code: "FORBIDDEN",
        message: `${who.role} ${who.name} cannot ${needed.what} (needs ${needed.role})`
      })
