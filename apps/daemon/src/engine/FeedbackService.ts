/**
 * Feedback by reference: a moderator names an item (and optionally its version); the daemon loads the
 * exact request body it sent for that version and calls `/feedback/v1/text` or `/image` with it
 * byte-for-byte as `analyzeRequest` (spec rule 3). The API's `id` is stored with the item.
 *
 * Refused, with a clear reason and no API call: an item never analysed (unknown, failed, unanalysed),
 * an item analysed in legacy mode (the feedback endpoints take a v1 analyze body), and a feedback with
 * none of `classificationsToAdd`, `classificationsToRemove`, `notes` (as the API would).
 */
import { type Confidence, FEEDBACK_INPUTS_MESSAGE } from "@warden/core"
import { FeedbackV1 } from "@warden/v1"
import { Clock, Context, Effect, Layer, Option, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { AuditStore } from "../state/AuditStore.ts"
import { type FeedbackInput as StoredFeedback, FeedbackStore } from "../state/FeedbackStore.ts"
import { ItemStore } from "../state/ItemStore.ts"

/** What a feedback says about the verdict. */
export interface FeedbackInput {
  readonly classificationsToAdd?: ReadonlyArray<string> | undefined
  readonly classificationsToRemove?: ReadonlyArray<string> | undefined
  readonly notes?: string | undefined
  readonly confidence?: Confidence | undefined
}

/** Feedback that cannot be sent; `status` is the HTTP status the admin API answers with. */
export class FeedbackRefused extends Schema.TaggedError<FeedbackRefused>()("FeedbackRefused", {
  status: Schema.Int,
  code: Schema.String,
  reason: Schema.String,
  /** For `AMBIGUOUS_REFERENCE`: the sources that recorded the reference (name one). */
  sources: Schema.optionalKey(Schema.Array(Schema.String))
}) {
  override get message(): string {
    return `${this.code}: ${this.reason}`
  }
}

/** Feedback recorded by the API. */
export interface FeedbackSent {
  readonly id: string
  readonly source: string
  readonly reference: string
  readonly version: number
  readonly endpoint: string
}

/** A reference recorded by several sources, given without `source`: 409 naming them. */
export const ambiguous = (reference: string, sources: ReadonlyArray<string>) =>
  new FeedbackRefused({
    status: 409,
    code: "AMBIGUOUS_REFERENCE",
    reason: `${reference} was recorded by ${sources.length} sources (${sources.join(", ")}): name one with source`,
    sources: [...sources]
  })

const hasInput = (input: FeedbackInput) =>
  input.classificationsToAdd !== undefined || input.classificationsToRemove !== undefined || input.notes !== undefined

const defined = <A extends object>(a: A): A =>
  Object.fromEntries(Object.entries(a).filter(([, v]) => v !== undefined)) as A

/** Where a feedback comes from: an operator, a platform signal, a review decision, an appeal. */
export type Origin = "manual" | "reversal" | "report" | "review" | "appeal"

/** Who sends a feedback (the audit names them); automatic feedback is Warden's own. */
export interface Sender {
  readonly name: string
  readonly role: string
}

/** The sender of automatic feedback (platform reversals and reports). */
export const WARDEN: Sender = { name: "warden", role: "system" }

/** Sends feedback on a recorded verdict, by reference. */
export interface FeedbackServiceShape {
  /**
   * Sends feedback on a stored item version (the latest when `version` is undefined), quoting its
   * stored request byte for byte; records what was sent (or why it failed), with its audit row
   * (`feedback`, by `sender`, default Warden) in the same transaction. Refuses an item never
   * analysed, erased, without a verdict, or analysed by an endpoint without feedback.
   */
  readonly send: (options: {
    readonly reference: string
    readonly source?: string | undefined
    readonly version?: number | undefined
    readonly origin: Origin
    readonly input: FeedbackInput
    readonly sender?: Sender | undefined
  }) => Effect.Effect<FeedbackSent, FeedbackRefused>
}

const make = Effect.gen(function* () {
  const store = yield* ItemStore
  const feedbackStore = yield* FeedbackStore
  const client = yield* FeedbackV1.FeedbackV1
  const sql = yield* SqlClient.SqlClient
  const audit = yield* AuditStore

  /** The feedback row and its audit row, in one transaction. */
  const recorded = (row: StoredFeedback, sender: Sender) =>
    sql.withTransaction(
      Effect.gen(function* () {
        yield* feedbackStore.recordFeedback(row)
        yield* audit.record({
          at: yield* Clock.currentTimeMillis,
          actor: sender.name,
          role: sender.role,
          action: "feedback",
          source: row.source,
          reference: row.reference,
          version: row.version,
          detail: { origin: row.origin, status: row.status, id: row.feedbackId ?? null }
        })
      })
    )

  const send: FeedbackServiceShape["send"] = (options) =>
    Effect.withSpan("FeedbackService.send", {
      attributes: { "warden.reference": options.reference, "warden.feedback.origin": options.origin }
    })(
      Effect.gen(function* () {
        if (!hasInput(options.input)) {
          // The admin API's one code for a request it refuses as wrong (the API would say BAD_REQUEST_ERROR).
          return yield* new FeedbackRefused({ status: 400, code: "BAD_REQUEST", reason: FEEDBACK_INPUTS_MESSAGE })
        }
        if (options.source === undefined) {
          // A reference recorded by several sources names no item on its own: never pick one.
          const sources = yield* store.sourcesOf(options.reference).pipe(Effect.orDie)
          if (sources.length > 1) return yield* ambiguous(options.reference, sources)
        }
        const found = yield* store.item(options.source, options.reference, options.version).pipe(Effect.orDie)
        if (Option.isNone(found)) {
          return yield* new FeedbackRefused({
            status: 404,
            code: "NOT_ANALYSED",
            reason: `${options.reference}${options.version === undefined ? "" : ` version ${options.version}`} was never analysed`
          })
        }
        const row = found.value
        if (row.erased_at !== null && row.erased_at !== undefined) {
          // Retention or `warden erase` removed the request feedback must quote: nothing to send.
          return yield* new FeedbackRefused({
            status: 410,
            code: "ERASED",
            reason: `${options.reference} version ${row.version} was erased at ${row.erased_at} (retention or warden erase): its request is gone, so no feedback can be sent`
          })
        }
        if (row.status !== "analysed" || row.request === null) {
          return yield* new FeedbackRefused({
            status: 409,
            code: "NOT_ANALYSED",
            reason: `${options.reference} version ${row.version} has no verdict (status ${row.status}): there is nothing to give feedback on`
          })
        }
        const endpoint: string = row.endpoint ?? ""
        if (endpoint !== "/analyze/v1/text" && endpoint !== "/analyze/v1/image") {
          return yield* new FeedbackRefused({
            status: 409,
            code: "NO_FEEDBACK_ENDPOINT",
            reason: `${options.reference} was analysed by ${endpoint || "an unknown endpoint"}; the API takes feedback on text and image analyses (v1) only`
          })
        }
        const common = defined({
          classificationsToAdd: options.input.classificationsToAdd,
          classificationsToRemove: options.input.classificationsToRemove,
          notes: options.input.notes,
          confidence: options.input.confidence
        })
        const request: string = row.request
        const sent = yield* (
          endpoint === "/analyze/v1/text"
            ? client.textWithRequest({ analyzeRequest: request, ...common } as FeedbackV1.TextFeedbackInput)
            : client.imageWithRequest({ analyzeRequest: request, ...common } as FeedbackV1.ImageFeedbackInput)
        ).pipe(
          Effect.tapError((error) =>
            recorded(
              {
                source: row.source,
                reference: row.reference,
                version: row.version,
                origin: options.origin,
                feedbackId: undefined,
                request: JSON.stringify(common),
                status: "failed",
                error: error.message
              },
              options.sender ?? WARDEN
            ).pipe(Effect.ignore)
          ),
          Effect.mapError((error) => {
            const code = (error as { error?: { code?: string } }).error?.code ?? error._tag
            const status = error._tag === "RequestValidationError" || error._tag === "BadRequestError" ? 400 : 502
            // A refused input is the admin API's BAD_REQUEST (the API's own code in the message); the
            // API failing otherwise is a 502 with its code.
            return status === 400
              ? new FeedbackRefused({ status, code: "BAD_REQUEST", reason: `${code}: ${error.message}` })
              : new FeedbackRefused({ status, code, reason: error.message })
          })
        )
        yield* recorded(
          {
            source: row.source,
            reference: row.reference,
            version: row.version,
            origin: options.origin,
            feedbackId: sent.response.id,
            request: sent.request,
            status: "sent",
            error: undefined
          },
          options.sender ?? WARDEN
        ).pipe(Effect.orDie)
        return {
          id: sent.response.id,
          source: row.source,
          reference: row.reference,
          version: row.version,
          endpoint: endpoint.replace("analyze", "feedback")
        }
      })
    )

  return FeedbackService.of({ send })
})

/** Sends feedback by reference. */
export class FeedbackService extends Context.Service<FeedbackService, FeedbackServiceShape>()(
  "@warden/daemon/FeedbackService"
) {
  static readonly layer = Layer.effect(FeedbackService, make)
}
