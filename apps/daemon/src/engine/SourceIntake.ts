/**
 * The intake of a source's events, chunk by chunk as the connector hands them over: an event the
 * daemon cannot take is dead-lettered, an `error` event recorded, the item and `progress` events kept
 * in order for the batches.
 */
import { SourceEvent } from "@warden/connector"
import { Effect, Metric } from "effect"
import type { SqlError } from "effect/sql"
import type { SourceErrorStoreShape } from "../state/SourceErrorStore.ts"
import * as Metrics from "./Metrics.ts"
import { SourceStatus } from "./SourceStatus.ts"

/** A source's intake. */
export interface SourceIntake {
  /**
   * One chunk of the source's events: invalid events dead-lettered, error events recorded, the item and
   * `progress` events kept in order. A plain loop per chunk, where three Stream stages (a filter with an
   * effect, a tap, a filter) ran an effect per event.
   */
  readonly sort: (
    events: ReadonlyArray<SourceEvent.SourceEvent>
  ) => Effect.Effect<Array<SourceEvent.Positioned>, SqlError.SqlError>
}

/** An event as JSON text for the dead-letter table, whatever it holds (a BigInt is written as a string). */
export const safeJson = (value: unknown): string => {
  try {
    return JSON.stringify(value, (_, v) => (typeof v === "bigint" ? `${v}n` : v)) ?? String(value)
  } catch {
    return String(value)
  }
}

/** `checkpoint.cursor.seq` -> `checkpoint`: a metric attribute with a bounded set of values. */
export const topField = (field: string): string => field.split(/[.[]/u)[0] ?? field

/** The reference of an event that failed its checks, as far as it has one. */
const referenceOf = (event: unknown): string => {
  const raw: unknown = typeof event === "object" && event !== null ? Reflect.get(event, "reference") : undefined
  return typeof raw === "string" && raw !== "" ? raw : "(none)"
}

/** The intake of source `id`, recording in `sourceErrors`. */
export const make = Effect.fn("SourceIntake.make")(function* (
  id: string,
  sourceErrors: Pick<SourceErrorStoreShape, "recordSourceDeadLetter" | "recordSourceError">
) {
  const status = yield* SourceStatus

  /**
   * An event the daemon cannot take (a reference over 256 characters, a checkpoint that is not JSON,
   * content failing the schema) is recorded with its reference, field and reason, counted, logged and
   * skipped: the source goes on. Its checkpoint is not committed; the next valid event's is.
   */
  const deadLetter = (event: unknown, problems: ReadonlyArray<SourceEvent.Problem>) =>
    Effect.gen(function* () {
      const reference = referenceOf(event)
      const text = safeJson(event).slice(0, 4096)
      for (const problem of problems) {
        yield* sourceErrors.recordSourceDeadLetter({
          source: id,
          reference,
          field: problem.field,
          reason: problem.message,
          event: text
        })
        yield* Metric.update(
          Metric.withAttributes(Metrics.sourceDeadLetters, { source: id, field: topField(problem.field) }),
          1
        )
      }
      yield* Effect.logWarning(
        `event dead-lettered and skipped (GET /api/dead-letters): ${SourceEvent.formatProblems(problems)}`
      ).pipe(Effect.annotateLogs({ source: id, reference: reference.slice(0, 300) }))
    })

  /** Records an upstream error event: the error log, its metric, the source's status, a warning. */
  const upstreamError = (event: SourceEvent.ErrorEvent) =>
    Effect.all([
      sourceErrors.recordSourceError(id, event.reason, event.message),
      Metric.update(Metric.withAttributes(Metrics.sourceErrors, { source: id }), 1),
      status.set(id, { state: "upstream-error", reason: event.message }),
      Effect.logWarning(`source error: ${event.message}`).pipe(
        Effect.annotateLogs({ source: id, reason: event.reason, retryInMillis: event.retryInMillis })
      )
    ])

  return {
    sort: (events) =>
      Effect.gen(function* () {
        const kept: Array<SourceEvent.Positioned> = []
        for (const event of events) {
          const problems = SourceEvent.problems(event)
          if (problems.length > 0) yield* deadLetter(event, problems)
          else if (SourceEvent.isErrorEvent(event)) yield* upstreamError(event)
          else kept.push(event)
        }
        return kept
      })
  } satisfies SourceIntake
})
