/**
 * What the transport knows of a failed call, attached to its error: the `x-request-id` sent and the
 * number of attempts made. Kept under a symbol, not enumerable, so the error's wire envelope, its
 * `JSON.stringify` and its structural equality are unchanged; read it with the errors' `requestId`
 * and `attempts` getters, or `callInfoOf`.
 */

/** The request id and attempts of a call. */
export interface CallInfo {
  /** The `x-request-id` sent (the same on every attempt of the call). */
  readonly requestId: string
  /** Attempts made, over every region tried (0: refused before sending). */
  readonly attempts: number
}

const CALL_INFO = Symbol.for("@warden/core/CallInfo")

/** Attaches the call's request id and attempts to an error (the same object, for chaining). */
export const attachCallInfo = <E extends object>(error: E, info: CallInfo): E =>
  Object.defineProperty(error, CALL_INFO, { value: info, enumerable: false, configurable: true, writable: false })

/** The request id and attempts attached to an error by the transport, if any. */
export const callInfoOf = (error: unknown): CallInfo | undefined =>
  typeof error === "object" && error !== null ? (error as { [CALL_INFO]?: CallInfo })[CALL_INFO] : undefined
