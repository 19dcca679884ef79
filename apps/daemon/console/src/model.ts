/**
 * What the admin API answers, as the console reads it: the types are the admin API's own schemas
 * (`src/admin/*Api.ts` and `ItemSchemas.ts`, imported as types only: nothing of them is bundled), so a field renamed
 * there fails the console's typecheck instead of showing blanks.
 */
import {
  ANALYSIS_TYPES,
  CONFIDENCES as CONFIDENCE_LEVELS,
  SEVERITIES as SEVERITY_NAMES,
  TEXT_CLASSIFICATIONS
} from "@warden/core/client"
import type * as ConsoleApi from "../../src/admin/ConsoleApi.ts"
import type * as DecisionsApi from "../../src/admin/DecisionsApi.ts"
import type * as ItemSchemas from "../../src/admin/ItemSchemas.ts"
import type * as ReviewApi from "../../src/admin/ReviewApi.ts"
import type { Verdict as StoredVerdict } from "../../src/domain/Verdict.ts"

/** A recorded item version (a version of `GET /api/decisions/{reference}`). */
export type Decision = typeof DecisionsApi.Decision.Type

/** A row of `GET /api/decisions` (and an event of its stream): a decision and its actions' outcomes. */
export type ListedDecision = typeof DecisionsApi.ListedDecision.Type

/** What became of one action of a listed decision. */
export type ActionOutcome = typeof DecisionsApi.ActionOutcome.Type

/** A row of the review queue (`GET /api/review`, and an event of its stream). */
export type ReviewItem = typeof ItemSchemas.ReviewItem.Type

/** `GET /api/review`. */
export type ReviewPage = typeof ReviewApi.ReviewPage.Type

/** The answer of `POST /api/decisions/{reference}/review`. */
export type ReviewResult = typeof ReviewApi.ReviewResult.Type

/** `GET /api/authors/{author}`. */
export type AuthorHistory = typeof ReviewApi.AuthorHistory.Type

/** One of an author's items on their page. */
export type AuthorItem = typeof ReviewApi.AuthorItem.Type

/** A moderator's role: a `viewer` reads, a `moderator` decides, an `admin` also erases and replays. */
export type Role = typeof ConsoleApi.Role.Type

/** The verdict as stored (the API gives it as JSON of this shape, or null). */
export type Verdict = Partial<StoredVerdict>

/** A platform action and its outcome. */
export type Action = typeof ItemSchemas.ActionRow.Type

/** `GET /api/decisions/{reference}`. */
export type DecisionDetail = typeof DecisionsApi.DecisionDetail.Type

/** The answer of `POST /api/decisions/{reference}/moderate`. */
export type ModerateResult = typeof DecisionsApi.ModerateResult.Type

/** Feedback the API recorded (`POST /api/feedback`). */
export type FeedbackSent = typeof ItemSchemas.FeedbackSent.Type

/** A decision's verdict (an empty one when it has none). */
export const verdictOf = (d: Pick<Decision, "verdict">): Verdict => (d.verdict ?? {}) as Verdict

/**
 * The `lang` of a verdict's content (WCAG 3.1.2: a screen reader reads a German comment with German
 * rules): the detected ISO 639-1 code when it is one, else none (the page's own language applies).
 */
export const langOf = (verdict: Verdict): string | undefined =>
  typeof verdict.language === "string" && /^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$/u.test(verdict.language)
    ? verdict.language.toLowerCase()
    : undefined

/** The source event behind an item (the parts the console shows). */
export interface SourceEvent {
  readonly content?: {
    readonly type?: string
    readonly text?: string
    readonly url?: string
    readonly username?: string
  }
  readonly permalink?: string
  readonly author?: { readonly username?: string; readonly name?: string; readonly id?: string } | string
  readonly publishedAt?: string
  readonly post?: { readonly title?: string } | string
}

/** The analysis types, classifications, severities and confidences (`@warden/core`'s lists). */
export const TYPES = ANALYSIS_TYPES
export const CLASSIFICATIONS = TEXT_CLASSIFICATIONS
export const SEVERITIES = SEVERITY_NAMES
export const CONFIDENCES = CONFIDENCE_LEVELS
/** The statuses of a platform action (the daemon's `warden_actions.status`). */
export const ACTION_STATUSES = ["pending", "done", "failed", "would-do"] as const

/**
 * The request sent as the API gives it: JSON (an object); a request an older state kept that is not
 * JSON comes as its text.
 */
const requestBody = (request: unknown): Record<string, unknown> | undefined => {
  if (typeof request === "object" && request !== null) return request as Record<string, unknown>
  if (typeof request !== "string") return undefined
  try {
    const parsed = JSON.parse(request) as unknown
    return typeof parsed === "object" && parsed !== null ? (parsed as Record<string, unknown>) : undefined
  } catch {
    return undefined
  }
}

/** The request sent, as text to show (indented JSON); "" when erased. */
export const requestText = (request: unknown): string => {
  if (request === null || request === undefined) return ""
  if (typeof request === "string") {
    const body = requestBody(request)
    return body === undefined ? request : JSON.stringify(body, null, 2)
  }
  return JSON.stringify(request, null, 2)
}

/** The text a moderator reads for an item: the content sent (text, username or image URL). */
export const contentOf = (d: Pick<Decision, "request">): string => {
  const body = requestBody(d.request)
  if (body === undefined) return typeof d.request === "string" ? d.request : ""
  for (const field of ["text", "username", "imageUrl"]) {
    if (typeof body[field] === "string") return body[field] as string
  }
  if (typeof body.imageData === "string") return "(image data)"
  return ""
}

/** A decision's key (source, reference, version). */
export const keyOf = (d: Pick<Decision, "source" | "reference" | "version">) =>
  `${d.source}\u001f${d.reference}\u001f${d.version}`

/** The console's address of an author's page (`<platform>:<identifier>`). */
export const authorHref = (key: string) => `#/authors/${encodeURIComponent(key)}`

/** The console's address of a decision's page. */
export const hrefOf = (source: string, reference: string) =>
  `#/decision/${encodeURIComponent(source)}/${encodeURIComponent(reference)}`

/** A time as the moderator's locale shows it (epoch milliseconds or an ISO date). */
export const when = (at: number | string) =>
  new Date(at).toLocaleString(undefined, { dateStyle: "short", timeStyle: "medium" })
