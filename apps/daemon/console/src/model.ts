/** What the admin API answers, as the console reads it (lenient: unknown fields are ignored). */

/** A row of `GET /api/decisions`. */
export interface Decision {
  readonly source: string
  readonly reference: string
  readonly version: number
  readonly status: string
  readonly contentType: string
  readonly endpoint: string | null
  readonly request: string | null
  readonly verdict: Verdict | null
  readonly error: unknown
  readonly analysedAt: string | null
  /** How many requests the content took (a text over the endpoint's limit is sent in segments). */
  readonly segments: number
  readonly createdAt: number
  readonly deletedAt: string | null
}

/** The verdict as stored. */
export interface Verdict {
  readonly type?: string
  readonly classifications?: ReadonlyArray<string>
  readonly severity?: string
  readonly directedAt?: string
  readonly language?: string
  readonly recommendedAction?: string
}

/** A platform action and its outcome. */
export interface Action {
  readonly version: number
  readonly seq: number
  readonly rule: string
  readonly kind: string
  readonly reason: string | null
  readonly status: string
  readonly attempts: number
  readonly lastError: string | null
}

/** Feedback sent about an item. */
export interface FeedbackRow {
  readonly version: number
  readonly origin: string
  readonly id: string | null
  readonly status: string
  readonly error: string | null
  readonly request: unknown
  readonly createdAt: number
}

/** `GET /api/decisions/{reference}`. */
export interface DecisionDetail {
  readonly reference: string
  readonly source: string
  readonly event: SourceEvent | null
  readonly latest: Decision
  readonly versions: ReadonlyArray<Decision>
  readonly actions: ReadonlyArray<Action>
  readonly feedback: ReadonlyArray<FeedbackRow>
  /** What a moderator can ask of the platform now. */
  readonly platformActions: ReadonlyArray<"restore" | "remove">
}

/** The answer of `POST /api/decisions/{reference}/moderate`. */
export interface ModerateResult {
  readonly action: { readonly kind: string; readonly status: string; readonly lastError: string | null }
  readonly feedback: { readonly id: string } | null
  readonly feedbackNote: string
}

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

/** The analysis types, classifications, severities and action statuses the filters offer. */
export const TYPES = ["HATEFUL", "SUPPORTIVE", "NEUTRAL"] as const
export const CLASSIFICATIONS = ["INSULT", "CRITICISM", "HATRED", "THREAT", "SUPPORTIVE", "NEUTRAL"] as const
export const SEVERITIES = ["NONE", "LOW", "MEDIUM", "HIGH", "VERY_HIGH"] as const
export const ACTION_STATUSES = ["pending", "done", "failed", "would-do"] as const
export const CONFIDENCES = ["LOW", "MEDIUM", "HIGH", "VERY_HIGH"] as const

/** The text a moderator reads for an item: the content sent (text, username or image URL). */
export const contentOf = (d: Decision): string => {
  if (d.request === null) return ""
  try {
    const body = JSON.parse(d.request) as Record<string, unknown>
    for (const field of ["text", "username", "imageUrl"]) {
      if (typeof body[field] === "string") return body[field] as string
    }
    if (typeof body.imageData === "string") return "(image data)"
  } catch {
    // Not JSON: shown as it is below.
  }
  return d.request
}

/** A decision's key (source, reference, version). */
export const keyOf = (d: Decision) => `${d.source}\u001f${d.reference}\u001f${d.version}`

/** The console's address of a decision's page. */
export const hrefOf = (source: string, reference: string) =>
  `#/decision/${encodeURIComponent(source)}/${encodeURIComponent(reference)}`

/** A time as the moderator's locale shows it (epoch milliseconds or an ISO date). */
export const when = (at: number | string) =>
  new Date(at).toLocaleString(undefined, { dateStyle: "short", timeStyle: "medium" })
