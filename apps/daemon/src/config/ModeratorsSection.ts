/**
 * The `moderators` entries of `warden.yaml`: a named moderator, their role and their own token.
 */
import { ConfigField } from "@warden/connector"
import { Schema } from "effect"

/** What a moderator may do: `viewer` reads; `moderator` also decides reviews, sends feedback, files appeals; `admin` also acts on platforms, erases, replays, tests policies, manages moderators. */
export const Role = Schema.Literals(["viewer", "moderator", "admin"])
/** @see {@link Role} */
export type Role = typeof Role.Type

/** A moderator's name: letters, digits, `-`, `_`, `.` (what the audit records). */
export const ModeratorName = Schema.String.check(
  Schema.isPattern(/^[A-Za-z0-9][A-Za-z0-9_.-]*$/u, { message: "must be letters, digits, '-', '_' or '.'" }),
  Schema.isMaxLength(64)
)

/** A named moderator with their own token (the shared `admin.token` stays for automation). */
export const ModeratorEntry = Schema.Struct({
  name: ModeratorName,
  role: Role,
  token: ConfigField.secret(
    Schema.RedactedFromValue(
      Schema.String.check(
        Schema.isMinLength(16, { message: "must be at least 16 characters (a guessable token is a door)" })
      )
    ),
    {
      description: "The moderator's own token (console sign-in link and Authorization: Bearer), at least 16 characters"
    }
  )
})
/** @see {@link ModeratorEntry} */
export type ModeratorEntry = typeof ModeratorEntry.Type
