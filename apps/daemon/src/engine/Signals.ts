/**
 * The batch's signal step: a moderator undid an action on the platform (a reversal), or a member
 * reported a miss. Either turns into feedback to the API on the item's latest analysed version,
 * sent once per version however often the platform repeats the signal.
 */
import { Effect, Option } from "effect"
import type { SourceSettings } from "../domain/SourceSettings.ts"
import type { FeedbackStoreShape } from "../state/FeedbackStore.ts"
import type { ItemStoreShape } from "../state/ItemStore.ts"
import type * as BatchEvent from "./BatchEvent.ts"
import type { FeedbackService } from "./FeedbackService.ts"

/** What the signal step uses. */
export interface SignalDeps {
  readonly items: ItemStoreShape
  readonly feedbackLog: FeedbackStoreShape
  readonly feedback: FeedbackService["Service"]
}

/** Sends the feedback a reversal or a report calls for (logged, never failing the batch). */
export const handle = (
  deps: SignalDeps,
  settings: SourceSettings,
  event: BatchEvent.Reversal | BatchEvent.Report
): Effect.Effect<void> =>
  Effect.gen(function* () {
    const latest = yield* deps.items.latestVersion(settings.id, event.reference).pipe(Effect.orDie)
    if (Option.isNone(latest) || latest.value.status !== "analysed") return
    const origin = event.kind === "reversal" ? "reversal" : "report"
    if (event.kind === "reversal" && settings.autoFeedback !== true) {
      return yield* Effect.logInfo("reversal reported; autoFeedback is off, no feedback sent").pipe(
        Effect.annotateLogs({ source: settings.id, reference: event.reference })
      )
    }
    // Automatic feedback goes once per item version, however often the platform repeats the signal.
    const version = latest.value.version
    if (yield* deps.feedbackLog.hasFeedback(settings.id, event.reference, version, origin).pipe(Effect.orDie)) return
    const row = yield* deps.items.item(settings.id, event.reference, version).pipe(Effect.orDie)
    const classifications = Option.isSome(row) ? [...(row.value.verdict?.classifications ?? [])] : []
    const by = event.by?.username ?? event.by?.identifier
    const input =
      event.kind === "reversal"
        ? {
            classificationsToRemove: classifications,
            notes: `A moderator${by === undefined ? "" : ` (${by})`} reversed Warden's ${event.action ?? "action"} on the platform.`,
            confidence: "HIGH" as const
          }
        : {
            notes: event.note ?? `Reported as harmful by a member${by === undefined ? "" : ` (${by})`}.`,
            confidence: "LOW" as const
          }
    yield* deps.feedback.send({ source: settings.id, reference: event.reference, version, origin, input }).pipe(
      Effect.tap((sent) =>
        Effect.logInfo(`${origin} feedback sent: ${sent.id}`).pipe(
          Effect.annotateLogs({ source: settings.id, reference: event.reference })
        )
      ),
      Effect.catch((refused) =>
        Effect.logWarning(`${origin} feedback not sent: ${refused.message}`).pipe(
          Effect.annotateLogs({ source: settings.id, reference: event.reference })
        )
      )
    )
  })
