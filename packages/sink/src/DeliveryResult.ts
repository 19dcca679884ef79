/**
 * What became of one record of a batch. A sink answers one result per record, in order:
 * - `Delivered`: the receiver has it (a repeat the receiver dropped as already seen is delivered too);
 * - `Retryable`: not now (the receiver down, a timeout, a 5xx, a 408 or 429): the daemon retries it with
 *   backoff for the sink's retry window;
 * - `Permanent`: never (a 4xx, a record the receiver refuses, a stream that does not exist): the daemon
 *   moves it to the dead letters at once, with the reason.
 *
 * @since 0.1.0
 */

/** The record was delivered. */
export interface Delivered {
  readonly _tag: "Delivered"
}
/** The record was not delivered; a later attempt may succeed. */
export interface Retryable {
  readonly _tag: "Retryable"
  readonly reason: string
}
/** The record cannot be delivered; retrying would not help. */
export interface Permanent {
  readonly _tag: "Permanent"
  readonly reason: string
}
/** @see the module comment */
export type DeliveryResult = Delivered | Retryable | Permanent

/** The one `Delivered` value. */
export const delivered: DeliveryResult = { _tag: "Delivered" }
/** A retryable failure, with what went wrong. */
export const retryable = (reason: string): DeliveryResult => ({ _tag: "Retryable", reason })
/** A permanent failure, with what went wrong. */
export const permanent = (reason: string): DeliveryResult => ({ _tag: "Permanent", reason })

/** Whether a result is `Delivered`. */
export const isDelivered = (result: DeliveryResult): result is Delivered => result._tag === "Delivered"

/** The reason of a failure, `undefined` when delivered. */
export const reasonOf = (result: DeliveryResult): string | undefined =>
  result._tag === "Delivered" ? undefined : result.reason

/** The same result for every record of a batch (a batch that lands whole or not at all). */
export const all = (count: number, result: DeliveryResult): ReadonlyArray<DeliveryResult> =>
  Array.from({ length: count }, () => result)
