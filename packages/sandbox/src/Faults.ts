/**
 * The fault profile: how often the sandbox misbehaves on purpose — a 503 `TRANSIENT_ERROR`, a dropped
 * connection (socket destroyed without an answer), a stall of N ms, a malformed body — globally or per
 * endpoint. A seed makes the sequence of decisions reproducible.
 */
import type { EndpointName } from "@warden/core"
import { PATHS } from "@warden/core"
import { Schema } from "effect"
import * as Prng from "./internal/Prng.ts"

const Probability = Schema.Number.check(
  Schema.makeFilter<number>((n) => Number.isFinite(n) && n >= 0 && n <= 1, {
    message: "must be a probability between 0 and 1"
  })
)
const Millis = Schema.Int.check(
  Schema.makeFilter<number>((n) => n >= 0 && n <= 600_000, { message: "must be between 0 and 600000 ms" })
)

/** The fault rates of one scope (the whole server, or one endpoint). */
export const FaultRates = Schema.Struct({
  /** Probability of answering 503 `TRANSIENT_ERROR`. */
  transient: Schema.optionalKey(Probability),
  /** Probability of destroying the connection without an answer. */
  drop: Schema.optionalKey(Probability),
  /** Probability of waiting `stallMs` before answering. */
  stall: Schema.optionalKey(Probability),
  /** Length of a stall, in ms (default 1000). */
  stallMs: Schema.optionalKey(Millis),
  /** Probability of answering 200 with a truncated, unparseable JSON body. */
  malformed: Schema.optionalKey(Probability)
}).annotate({ identifier: "FaultRates" })
export type FaultRates = typeof FaultRates.Type

const endpointNames = Object.keys(PATHS) as Array<EndpointName>

/** The whole profile: global rates, a seed, and optional per-endpoint rates that replace the global ones. */
export const FaultProfile = Schema.Struct({
  ...FaultRates.fields,
  seed: Schema.optionalKey(Schema.Int),
  endpoints: Schema.optionalKey(
    Schema.Struct(
      Object.fromEntries(endpointNames.map((n) => [n, Schema.optionalKey(FaultRates)])) as {
        readonly [K in EndpointName]: Schema.optionalKey<typeof FaultRates>
      }
    )
  )
}).annotate({ identifier: "FaultProfile" })
export type FaultProfile = typeof FaultProfile.Type

/** What to do to one request. */
export interface FaultDecision {
  readonly drop: boolean
  readonly stallMs: number
  readonly transient: boolean
  readonly malformed: boolean
}

/** No fault at all. */
export const NONE: FaultDecision = { drop: false, stallMs: 0, transient: false, malformed: false }

const DEFAULT_STALL_MS = 1000

const isQuiet = (r: FaultRates): boolean => !r.transient && !r.drop && !r.stall && !r.malformed

/** Draws fault decisions from a profile, reproducibly when it has a seed. */
export class FaultInjector {
  private prng: Prng.Prng
  private quiet: boolean
  private profile: FaultProfile
  constructor(profile: FaultProfile = {}) {
    this.profile = profile
    this.prng = Prng.make(profile.seed ?? Date.now())
    this.quiet = this.computeQuiet()
  }
  private computeQuiet(): boolean {
    const p = this.profile
    return isQuiet(p) && Object.values(p.endpoints ?? {}).every((r) => r === undefined || isQuiet(r))
  }
  /** The profile in force. */
  current(): FaultProfile {
    return this.profile
  }
  /** Replaces the profile and restarts the random sequence from its seed. */
  set(profile: FaultProfile): void {
    this.profile = profile
    this.prng = Prng.make(profile.seed ?? Date.now())
    this.quiet = this.computeQuiet()
  }
  /** The faults for the next request to `endpoint`. Draws the same number of numbers per request. */
  decide(endpoint: EndpointName): FaultDecision {
    if (this.quiet) return NONE
    const rates = this.profile.endpoints?.[endpoint] ?? this.profile
    const [a, b, c, d] = [this.prng.next(), this.prng.next(), this.prng.next(), this.prng.next()]
    return {
      drop: a < (rates.drop ?? 0),
      stallMs: b < (rates.stall ?? 0) ? (rates.stallMs ?? DEFAULT_STALL_MS) : 0,
      transient: c < (rates.transient ?? 0),
      malformed: d < (rates.malformed ?? 0)
    }
  }
}
