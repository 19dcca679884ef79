/**
 * Actions the daemon asks a source to take on the platform (`Source.act`), their results and errors.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"

/**
 * The action kinds Warden knows; platforms may support others. `restore` reverses an earlier `hide`,
 * `holdForReview` or `reject` (the item is visible again): a connector declaring it lets a moderator
 * undo Warden's action from the review console.
 */
export const knownActionKinds = [
  "delete",
  "hide",
  "holdForReview",
  "reject",
  "publish",
  "timeoutAuthor",
  "react",
  "reply",
  "modLog",
  "kick",
  "log",
  "restore"
] as const

/** An action kind: one of {@link knownActionKinds} or any other string (open enum). */
export const ActionKind = Schema.Union([Schema.Literals(knownActionKinds), Schema.String])
/** @see {@link ActionKind} */
export type ActionKind = typeof ActionKind.Type

/**
 * An action on one item. `params` are kind-specific (`timeoutAuthor`: `{ seconds }`, `react`:
 * `{ emoji }`, `reply`: `{ text }`); `reason` is shown to moderators / written to the mod log.
 */
export const Action = Schema.Struct({
  kind: ActionKind,
  reference: Schema.String,
  params: Schema.optionalKey(Schema.Record(Schema.String, Schema.Json)),
  reason: Schema.optionalKey(Schema.String)
})
/** @see {@link Action} */
export type Action = typeof Action.Type

/**
 * What happened: `done` (the platform confirmed), `alreadyDone` (idempotent repeat: the item was
 * already hidden/deleted), `notFound` (the item is gone). `platformReference` is e.g. the id of a reply.
 */
export const ActionResult = Schema.Struct({
  status: Schema.Literals(["done", "alreadyDone", "notFound"]),
  platformReference: Schema.optionalKey(Schema.String),
  detail: Schema.optionalKey(Schema.String)
})
/** @see {@link ActionResult} */
export type ActionResult = typeof ActionResult.Type

/**
 * An action failed. `retryable: true` for rate limits and outages; `false` for missing permissions or
 * unsupported kinds, whose `message` names what is missing (e.g. "needs the MANAGE_MESSAGES permission").
 */
export class ActionError extends Schema.TaggedError<ActionError>()("ActionError", {
  kind: ActionKind,
  reference: Schema.String,
  reason: Schema.Union([
    Schema.Literals(["Unsupported", "PermissionDenied", "NotFound", "RateLimited", "Unavailable", "Invalid"]),
    Schema.String
  ]),
  retryable: Schema.Boolean,
  message: Schema.String,
  retryAfterMillis: Schema.optionalKey(Schema.Finite)
}) {}
