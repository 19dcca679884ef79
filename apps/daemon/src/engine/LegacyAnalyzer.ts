/**
 * Legacy mode: a round of items becomes calls of at most 100 messages (`LegacyBatch.analyzeWithRequests`
 * per group of whole items, a few at a time), and each answer is mapped back to its item by message
 * reference (segments of a split text carry `<reference>#<n>`).
 *
 * Each call stands alone: a 429 on one is sent again through the limiter while the others' answers are
 * kept (one `analyzeWithRequests` for the whole round failed as a whole on any call's 429, and the
 * answers of its other calls, already billed, were thrown away and asked for again).
 */
import { type LegacyMessageOnWire, Limits } from "@warden/core"
import { LegacyBatch } from "@warden/legacy"
import { Context, Effect, Layer } from "effect"
import { callOnce, failedOutcome, unrecognisedOutcome } from "./Analyzer.ts"
import type { EngineError } from "./EngineError.ts"
import { finishOnStop } from "./FinishOnStop.ts"
import type { Outcome } from "../domain/Outcome.ts"
import * as Verdict from "./Verdict.ts"
import type { Verdict as VerdictType } from "../domain/Verdict.ts"

/** One item's legacy messages (one, or one per segment). */
export interface LegacyItem {
  readonly key: string
  readonly messages: ReadonlyArray<LegacyMessageOnWire>
}

const ENDPOINT = "/api/analyze"
/** Calls of one round in flight at once (the limiter paces them). */
const CONCURRENCY = 4

/**
 * Splits items into groups of at most `max` messages, keeping each item's messages together (an item
 * with more than `max` messages is a group of its own; the client splits it).
 */
export const groups = <I extends LegacyItem>(items: ReadonlyArray<I>, max: number): Array<Array<I>> => {
  const out: Array<Array<I>> = []
  let current: Array<I> = []
  let size = 0
  for (const item of items) {
    if (current.length > 0 && size + item.messages.length > max) {
      out.push(current)
      current = []
      size = 0
    }
    current.push(item)
    size += item.messages.length
  }
  if (current.length > 0) out.push(current)
  return out
}

/**
 * The request each message is recorded with: its own part of the call that carried it, the call's body
 * with `contents` cut down to that message (its JSON exactly as sent, in the call's envelope). A call
 * carries up to 100 messages of many items; recording the whole body with each item stored every call
 * 100 times (24 KB per item where v1 stores ~0.3 KB: 1.27 GB for 50,000 legacy items).
 */
const messageRequests = (chunks: ReadonlyArray<LegacyBatch.Chunk>): Map<number, string> => {
  const requestOf = new Map<number, string>()
  for (const chunk of chunks) {
    const body = JSON.parse(chunk.request) as { readonly contents: ReadonlyArray<unknown> }
    chunk.positions.forEach((position, i) => {
      requestOf.set(position, JSON.stringify({ ...body, contents: [body.contents[i]] }))
    })
  }
  return requestOf
}

/** Maps one call's answer back to its items. */
const outcomesOf = (
  items: ReadonlyArray<LegacyItem>,
  result: LegacyBatch.BatchResultWithRequests,
  into: Map<string, Outcome>
): void => {
  const requestOf = messageRequests(result.chunks)
  const byReference = new Map(result.data.map((a) => [a.reference, a] as const))
  const errorAt = new Map(result.errors.map((e) => [e.details.position, e] as const))
  let position = 0
  for (const item of items) {
    const verdicts: Array<VerdictType> = []
    const segments: Array<{ request: string; response: string }> = []
    let failure: Outcome | undefined
    let unreadable: Outcome | undefined
    for (const message of item.messages) {
      const at = position++
      const error = errorAt.get(at)
      const analysis = byReference.get(String(message.reference))
      if (error !== undefined || analysis === undefined) {
        failure ??= failedOutcome(ENDPOINT, requestOf.get(at), {
          _tag: "LegacyError",
          message:
            error === undefined ? "the answer held no analysis for this message" : `${error.status}: ${error.reason}`
        })
        continue
      }
      if (!Verdict.isRecognisedLegacy(analysis)) {
        // the message's own part of the call's answer, as the request is its part of the call
        unreadable ??= unrecognisedOutcome(
          ENDPOINT,
          requestOf.get(at) ?? "",
          analysis,
          JSON.stringify(analysis) ?? "null"
        )
        continue
      }
      verdicts.push(Verdict.fromLegacyAnalysis(analysis))
      segments.push({ request: requestOf.get(at) ?? "", response: JSON.stringify(analysis) })
    }
    if (failure !== undefined || unreadable !== undefined) {
      into.set(item.key, (failure ?? unreadable)!)
      continue
    }
    const worst = Verdict.mostSevereIndex(verdicts)
    into.set(item.key, {
      status: "analysed",
      endpoint: ENDPOINT,
      request: segments[worst]!.request,
      response: segments[worst]!.response,
      verdict: verdicts[worst]!,
      segments
    })
  }
}

/** The legacy-mode analyser's service. */
export interface LegacyAnalyzerShape {
  /**
   * Analyses a round's items into `into` (keyed by `LegacyItem.key`), one call's items at a time as
   * their answer arrives: when the round fails (the API unavailable) or is interrupted (shutdown),
   * `into` still holds every answer received, for the caller to record.
   */
  readonly analyse: (
    source: string,
    channelUuid: string,
    items: ReadonlyArray<LegacyItem>,
    into?: Map<string, Outcome>
  ) => Effect.Effect<Map<string, Outcome>, EngineError>
}

const make = Effect.gen(function* () {
  const client = yield* LegacyBatch.LegacyBatch

  const analyse = Effect.fn("LegacyAnalyzer.analyse")(function* (
    source: string,
    channelUuid: string,
    items: ReadonlyArray<LegacyItem>,
    into: Map<string, Outcome> = new Map()
  ) {
    const results = yield* Effect.forEach(
      groups(items, Limits.LEGACY_MAX_MESSAGES),
      (group) =>
        callOnce(
          source,
          ENDPOINT,
          client.analyzeWithRequests(
            channelUuid,
            group.flatMap((item) => item.messages)
          )
        ).pipe(
          Effect.tap((result) =>
            Effect.sync(() => {
              // The whole call was refused as bad input: every item of it records that.
              if ("status" in result) for (const item of group) into.set(item.key, result)
              else outcomesOf(group, result, into)
            })
          ),
          finishOnStop,
          Effect.result
        ),
      { concurrency: CONCURRENCY }
    )
    const failed = results.find((r) => r._tag === "Failure")
    if (failed !== undefined) return yield* Effect.fail(failed.failure)
    return into
  })

  return LegacyAnalyzer.of({ analyse })
})

/** The legacy-mode analyser. */
export class LegacyAnalyzer extends Context.Service<LegacyAnalyzer, LegacyAnalyzerShape>()(
  "@warden/daemon/LegacyAnalyzer"
) {
  /** On the `LegacyBatch` client in context. */
  static readonly layer = Layer.effect(LegacyAnalyzer, make)
}
