/**
 * The daemon's {@link PushHost} for each source (issue 39): a push connector (`type: http`) commits
 * what its clients post to the state's intake (IntakeStore) and answers them once committed; its
 * stream is the intake, read in order, and the rows are forgotten once the daemon committed the
 * checkpoint past them (Source.acknowledge, after their verdicts are recorded). Every other step is
 * the path of every source: dedupe, quota, policy, sinks, actions, review.
 *
 * The host is handed to the connector in the context of its `make` ({@link withHosts}), so the engine's
 * pipeline runs a push source as it runs any other.
 */
import { type Checkpoint, type ConnectorError, PushHost, type SourceEvent } from "@warden/connector"
import { Clock, Effect, Option, Schema, Stream } from "effect"
import type { SourceSettings } from "../domain/SourceSettings.ts"
import { IntakeStore } from "../state/IntakeStore.ts"
import type { LatestRecord } from "../state/LatestRecord.ts"
import * as RecordedSignal from "../state/RecordedSignal.ts"
import { WriteSignals } from "../state/WriteSignals.ts"
import * as CheckDecision from "./CheckDecision.ts"
import * as ContentHash from "./ContentHash.ts"
import type { SourceSpec } from "./Pipeline.ts"

/** A push source's checkpoint: the intake's `seq` of its last item. */
export const IntakeCheckpoint = Schema.Struct({ seq: Schema.Int })

const decodeCheckpoint = Schema.decodeUnknownOption(IntakeCheckpoint)
const decodeItem = Schema.decodeUnknownEffect(Schema.fromJsonString(PushHost.PushItem))

/** Rows read from the intake per look. */
const page = 500

/** The stored event of an item: the pushed item as JSON text (the checkpoint is its row's `seq`). */
const eventText = (item: PushHost.PushItem): string => JSON.stringify(item)

/** The host of one source, on the state's stores. */
export const make = (settings: SourceSettings) =>
  Effect.gen(function* () {
    const intake = yield* IntakeStore
    const signals = yield* WriteSignals
    const source = settings.id
    /** How often a waiting check looks unannounced: a record of another runner (PostgreSQL) rings nothing here. */
    const lookEveryMillis = Math.min(1_000, signals.unannouncedLookMillis / 10)

    const unavailable = (e: { readonly message: string }) =>
      new PushHost.PushHostError({ message: `the state store could not record the items: ${e.message}` })

    const receive = (items: ReadonlyArray<PushHost.PushItem>) =>
      intake
        .append(
          items.map((item) => ({
            source,
            reference: item.reference,
            event: eventText(item),
            author: item.author?.identifier,
            authorName: item.author?.username
          }))
        )
        .pipe(Effect.mapError(unavailable))

    /** The record when it holds this content (an edit not yet recorded is not it). */
    const holding = (hash: string) => (record: LatestRecord) =>
      record.content_hash === hash ? Option.some(record) : Option.none()

    /** The newest record of the item when it holds this content. */
    const recordOf = (reference: string, hash: string) =>
      intake.latestRecord(source, reference).pipe(
        Effect.map((rows) => Option.flatMap(Option.fromNullishOr(rows[0]), holding(hash))),
        Effect.mapError(unavailable)
      )

    const check = Effect.fn("PushIntake.check")(function* (item: PushHost.PushItem, deadlineMillis: number) {
      const until = (yield* Clock.currentTimeMillis) + deadlineMillis
      // A kind the source does not analyse (`analyse`) is never recorded: no verdict will come to wait for.
      if (!settings.analyse.has(item.content.type)) return CheckDecision.byFailureMode(settings, item.reference)
      const hash = ContentHash.of(item.content)
      // The same content recorded before (by this runner or another): its decision, no second analysis.
      // Else the item is handed in after that first look, and the check waits for its record, which
      // the record transaction hands over as it announces it.
      const record: Option.Option<LatestRecord> = yield* signals.recorded.until(
        RecordedSignal.keyOf(source, item.reference),
        {
          look: recordOf(item.reference, hash),
          accept: holding(hash),
          untilMillis: until,
          lookEveryMillis,
          onFirstMiss: receive([item])
        }
      )
      return Option.isSome(record)
        ? CheckDecision.fromRecord(settings, item.reference, record.value)
        : CheckDecision.byFailureMode(settings, item.reference)
    })

    const events = (
      from: Option.Option<Checkpoint.Checkpoint>
    ): Stream.Stream<SourceEvent.SourceEvent, ConnectorError.ConnectorError> => {
      const start = Option.flatMap(from, decodeCheckpoint).pipe(
        Option.map((c) => c.seq),
        Option.getOrElse(() => 0)
      )
      const waiting = signals.intake.listen()
      /**
       * Whether the last read took every row there was (fewer than a page): the next read then waits for
       * a ring first (at once when one came meanwhile: the listener keeps it) instead of reading nothing
       * once per batch, a statement per check at a check's rate.
       */
      let drained = false
      const read = (after: number) =>
        Effect.gen(function* () {
          if (drained) yield* waiting.wait(signals.unannouncedLookMillis)
          const rows = yield* intake.after(source, after, page)
          drained = rows.length < page
          if (rows.length === 0) return [[], Option.some(after)] as const
          const out: Array<SourceEvent.SourceEvent> = []
          for (const row of rows) {
            const item = yield* decodeItem(row.event).pipe(
              // a row our own receive wrote, changed behind the daemon's back: a defect (state/internal/Rows.ts)
              Effect.orDie
            )
            out.push({ kind: "upsert", ...item, checkpoint: { seq: row.seq } })
          }
          return [out, Option.some(rows.at(-1)?.seq ?? after)] as const
        }).pipe(
          // The store down: the stream reports it and tries again (the source contract's `error` event).
          Effect.catchTag("SqlError", (e) =>
            Effect.as(Effect.sleep("1 second"), [
              [
                {
                  kind: "error",
                  source,
                  reason: "StateUnavailable",
                  message: `the intake could not be read: ${e.message}`,
                  attempt: 1,
                  retryInMillis: 1_000
                } satisfies SourceEvent.ErrorEvent
              ],
              Option.some(after)
            ] as const)
          )
        )
      // Rows up to the committed checkpoint were recorded (a stop between the commit and the forget).
      return Stream.unwrap(Effect.as(intake.forget(source, start).pipe(Effect.ignore), Stream.paginate(start, read)))
    }

    const acknowledge = (checkpoint: Checkpoint.Checkpoint) =>
      Option.match(decodeCheckpoint(checkpoint), {
        onNone: () => Effect.void,
        onSome: ({ seq }) => intake.forget(source, seq).pipe(Effect.ignore)
      })

    return PushHost.PushHost.of({ source, receive, check, events, acknowledge })
  })

/**
 * The sources with a host each in the context of their connector's `make` (a connector that is no push
 * connector never looks for it). Built once the stores are, so `make` needs nothing more than before.
 */
export const withHosts = (specs: ReadonlyArray<SourceSpec>) =>
  Effect.forEach(specs, (spec) =>
    Effect.map(
      make(spec.settings),
      (host): SourceSpec => ({
        ...spec,
        connector: {
          ...spec.connector,
          make: (config) => Effect.provideService(spec.connector.make(config), PushHost.PushHost, host)
        }
      })
    )
  )
