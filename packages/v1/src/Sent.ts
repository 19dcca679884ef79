/**
 * A call's result together with the exact JSON text that was sent: the daemon stores that text and
 * later passes it, unchanged, as the `analyzeRequest` of a feedback (spec, Endpoints rule 3). The
 * answer's text as received comes with it, for a caller that keeps a record of the exchange: storing
 * it costs no second encode of the decoded answer, and it is what the API said, byte for byte.
 */
import type { Region } from "@warden/transport"

/** The decoded answer and what went on the wire. */
export interface Sent<A> {
  /** The exact body text sent, byte-for-byte. */
  readonly request: string
  /** The decoded answer. */
  readonly response: A
  /** The answer's body text, exactly as received. */
  readonly responseText: string
  /** The region that answered. */
  readonly region: Region.Region | "legacy"
  /** Attempts made (1 when the first one succeeded). */
  readonly attempts: number
  /** The `x-request-id` of the call. */
  readonly requestId: string
}
