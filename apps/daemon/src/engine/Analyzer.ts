/**
 * The analysis step: sends prepared bodies through `@warden/v1` (or `@warden/legacy`) and turns the
 * answers into outcomes. Failures are sorted by what they mean for the item:
 * - bad input (client-side refusal, 400 and other 4xx but 401/403/429): the item is recorded as failed;
 * - 401/403: the source pauses (`SourcePaused`);
 * - 429: the transport's limiter learnt the quota from it; the item is sent again at once, through the
 *   limiter like any other request, never dropped (the other items keep flowing meanwhile);
 * - 503/no answer/garbled answer after the transport's own retries: the batch is handed back
 *   (`ApiUnavailable`) and sent again later.
 */
import { Backoff } from "@warden/connector"
import type { AnalyzeV1 } from "@warden/v1"
import { Duration, Effect } from "effect"
import { ApiUnavailable, type EngineError, SourcePaused } from "./EngineError.ts"
import type { Analysed, Failed, Outcome, Unrecognised } from "../domain/Outcome.ts"
import type { Prepared } from "./RequestBuilder.ts"
import * as Verdict from "./Verdict.ts"

type AnyError = { readonly _tag: string; readonly message: string }

/** How an API failure affects the item. */
export type Disposition = "item-failed" | "paused" | "quota" | "unavailable"

/** Sorts a client failure by what it means for the item (see the module comment). */
export const dispositionOf = (error: AnyError): Disposition => {
  switch (error._tag) {
    case "AuthenticationError":
    case "PermissionDeniedError":
      return "paused"
    case "QuotaError":
      return "quota"
    case "TransientError":
    case "TransportError":
    case "ResponseDecodeError":
      return "unavailable"
    default:
      return "item-failed"
  }
}

const codeOf = (error: AnyError): string => {
  const envelope = (error as { error?: { code?: unknown } }).error
  return typeof envelope?.code === "string" ? envelope.code : error._tag
}

/** The failure recorded for an item refused as bad input. */
export const failedOutcome = (endpoint: string | undefined, request: string | undefined, error: AnyError): Failed => {
  const violations = (error as { fieldViolations?: ReadonlyArray<{ field: string; message: string }> }).fieldViolations
  return {
    status: "failed",
    endpoint,
    request,
    error: {
      code: codeOf(error),
      message: error.message,
      ...(violations === undefined ? {} : { fieldViolations: violations })
    }
  }
}

/** Maps a client failure to the batch-level error it causes, for `paused` and `unavailable`. */
export const batchError = (source: string, error: AnyError): EngineError =>
  dispositionOf(error) === "paused"
    ? new SourcePaused({ source, code: codeOf(error), detail: error.message })
    : new ApiUnavailable({ source, code: codeOf(error), detail: error.message })

/**
 * When a 429 is sent again. At once, twice: the transport's limiter learnt the quota from the 429 (the
 * value it names) and paces the new attempt like any other request, so waiting here as well would only
 * idle a quota that has room (issue 19: a 10 s wait per refused item stopped whole batches). Only an
 * item refused again and again (a limiter that cannot pace it: a quota it cannot read) waits, growing
 * to 1 s; the other items of its batch keep going meanwhile.
 */
export const quotaRetryDelayMillis = (attempt: number): number =>
  attempt <= 2 ? 0 : Backoff.baseMillis(quotaBackoff, attempt - 2)

/** The wait of an item refused again and again: 50 ms doubling up to 1 s (the connector SDK's one backoff). */
const quotaBackoff: Backoff.Backoff = { initial: Duration.millis(50), max: Duration.seconds(1) }

/**
 * Runs one API call: a 429 is sent again through the limiter (never dropped); bad input becomes a
 * `Failed` outcome; pause/unavailable fail the batch. The retry is only built on a failure: an
 * `Effect.retry` per call built its schedule for every item, answered or not (~2% of the data path's
 * allocation per item, docs/BENCHMARKS.md).
 */
export const callOnce = <A>(
  source: string,
  endpoint: string,
  call: Effect.Effect<A, AnyError>
): Effect.Effect<A | Failed, EngineError> => {
  const attempt = (retries: number): Effect.Effect<A | Failed, EngineError> =>
    Effect.catch(call, (error: AnyError) => {
      const disposition = dispositionOf(error)
      if (disposition === "quota") {
        const delay = quotaRetryDelayMillis(retries + 1)
        const again = Effect.suspend(() => attempt(retries + 1))
        return delay === 0 ? again : Effect.andThen(Effect.sleep(Duration.millis(delay)), again)
      }
      return disposition === "item-failed"
        ? Effect.succeed(failedOutcome(endpoint, undefined, error))
        : Effect.fail(batchError(source, error))
    })
  return attempt(0)
}

/**
 * The outcome of an answer that holds none of the fields a verdict is made of; `responseText`: the
 * answer as received.
 */
export const unrecognisedOutcome = (
  endpoint: string,
  request: string,
  response: unknown,
  responseText: string
): Unrecognised => ({
  status: "unrecognised",
  endpoint,
  request,
  response: responseText,
  shape: Verdict.shapeOf(response)
})

const isFailed = (value: unknown): value is Failed =>
  typeof value === "object" && value !== null && (value as { status?: unknown }).status === "failed"

/** A call's answer: the exact body sent, the decoded answer, and its text as received. */
type Answer = { readonly request: string; readonly response: unknown; readonly responseText: string }

const ENDPOINT_PATH = { text: "/analyze/v1/text", image: "/analyze/v1/image", username: "/analyze/v1/username" }

/** The call of each body of `prepared`, to its endpoint (built, not run). */
const callsOf = (client: AnalyzeV1.Shape, prepared: Prepared): ReadonlyArray<Effect.Effect<Answer, AnyError>> => {
  switch (prepared.endpoint) {
    case "text":
      return prepared.bodies.map((body) => client.textWithRequest(body))
    case "image":
      return prepared.bodies.map((body) => client.imageWithRequest(body))
    case "username":
      return prepared.bodies.map((body) => client.usernameWithRequest(body))
  }
}

/** Analyses a prepared v1 item: every segment, the verdict of the most severe. */
export const analyseV1 = (
  client: AnalyzeV1.Shape,
  source: string,
  prepared: Prepared
): Effect.Effect<Outcome, EngineError> =>
  Effect.gen(function* () {
    const endpoint = ENDPOINT_PATH[prepared.endpoint]
    const verdictOf =
      prepared.endpoint === "text"
        ? Verdict.fromTextResponse
        : prepared.endpoint === "image"
          ? Verdict.fromImageResponse
          : Verdict.fromUsernameResponse
    const one = (call: Effect.Effect<Answer, AnyError>) => callOnce(source, endpoint, call)
    const calls = callsOf(client, prepared)
    // Most items are one segment: no concurrent forEach (its fibers) for a single call.
    const sent = calls.length === 1 ? [yield* one(calls[0]!)] : yield* Effect.forEach(calls, one, { concurrency: 4 })
    const failed = sent.find(isFailed)
    if (failed !== undefined) return failed
    const answers = sent as ReadonlyArray<Answer>
    // An answer without a verdict is not "clean": the whole item is unrecognised, whatever the other segments said.
    const unreadable = answers.find((a) => !Verdict.isRecognised(prepared.endpoint, a.response))
    if (unreadable !== undefined)
      return unrecognisedOutcome(endpoint, unreadable.request, unreadable.response, unreadable.responseText)
    const verdicts = answers.map((a) => verdictOf(a.response))
    const worst = Verdict.mostSevereIndex(verdicts)
    // Each answer stored as received (no encode of the decoded answer): the item's response is its
    // most severe segment's.
    const segments = answers.map((a) => ({ request: a.request, response: a.responseText }))
    const analysed: Analysed = {
      status: "analysed",
      endpoint,
      request: segments[worst]!.request,
      response: segments[worst]!.response,
      verdict: verdicts[worst]!,
      segments
    }
    return analysed
  })
