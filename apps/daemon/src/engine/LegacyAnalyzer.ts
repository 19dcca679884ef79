/**
 * Legacy mode: a round of items becomes one `LegacyBatch.analyzeWithRequests` call (it splits into
 * calls of at most 100 messages), and each answer is mapped back to its item by message reference
 * (segments of a split text carry `<reference>#<n>`).
 */
import { LegacyBatch } from "@warden/legacy"
import { Context, Effect, Layer } from "effect"
import { callOnce, failedOutcome, unrecognisedOutcome } from "./Analyzer.ts"
import type { EngineError } from "./EngineError.ts"
import type { Outcome } from "./Outcome.ts"
import * as Verdict from "./Verdict.ts"

/** One item's legacy messages (one, or one per segment). */
export interface LegacyItem {
  readonly key: string
  readonly messages: ReadonlyArray<Record<string, unknown>>
}

const ENDPOINT = "/api/analyze"

const make = Effect.gen(function* () {
  const client = yield* LegacyBatch.LegacyBatch

  const analyse = (
    source: string,
    channelUuid: string,
    items: ReadonlyArray<LegacyItem>
  ): Effect.Effect<Map<string, Outcome>, EngineError> =>
    Effect.gen(function* () {
      const outcomes = new Map<string, Outcome>()
      if (items.length === 0) return outcomes
      const owner: Array<string> = []
      const messages = items.flatMap((item) =>
        item.messages.map((m) => {
          owner.push(item.key)
          return m
        })
      )
      const result = yield* callOnce(
        source,
        ENDPOINT,
        client.analyzeWithRequests(channelUuid, messages as never) as Effect.Effect<
          LegacyBatch.BatchResultWithRequests,
          { _tag: string; message: string }
        >
      )
      if ("status" in result) {
        // The whole call was refused as bad input: every item of the round records it.
        for (const item of items) outcomes.set(item.key, result)
        return outcomes
      }
      const requestOf = new Map<number, string>()
      for (const chunk of result.chunks) for (const p of chunk.positions) requestOf.set(p, chunk.request)
      const byReference = new Map(result.data.map((a) => [a.reference, a] as const))
      const errorAt = new Map(result.errors.map((e) => [e.details.position, e] as const))
      let position = 0
      for (const item of items) {
        const verdicts: Array<Verdict.Verdict> = []
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
                error === undefined
                  ? "the answer held no analysis for this message"
                  : `${error.status}: ${error.reason}`
            })
            continue
          }
          if (!Verdict.isRecognisedLegacy(analysis)) {
            unreadable ??= unrecognisedOutcome(ENDPOINT, requestOf.get(at) ?? "", analysis)
            continue
          }
          verdicts.push(Verdict.fromLegacyAnalysis(analysis))
          segments.push({ request: requestOf.get(at) ?? "", response: JSON.stringify(analysis) })
        }
        if (failure !== undefined || unreadable !== undefined) {
          outcomes.set(item.key, (failure ?? unreadable)!)
          continue
        }
        const worst = Verdict.mostSevereIndex(verdicts)
        outcomes.set(item.key, {
          status: "analysed",
          endpoint: ENDPOINT,
          request: segments[worst]!.request,
          response: segments[worst]!.response,
          verdict: verdicts[worst]!,
          segments
        })
      }
      return outcomes
    })

  return { analyse }
})

/** The legacy-mode analyser. */
export class LegacyAnalyzer extends Context.Service<LegacyAnalyzer, Effect.Success<typeof make>>()(
  "@warden/daemon/LegacyAnalyzer"
) {
  /** On the `LegacyBatch` client in context. */
  static readonly layer = Layer.effect(LegacyAnalyzer, make)
}
