/** Maps failed requests to core's `TransportError`, without any header in the text. */
import { TransportError, type TransportFailure } from "@warden/core/client"

const codesOf = (cause: unknown): Array<string> => {
  const codes: Array<string> = []
  let current: unknown = cause
  for (let depth = 0; depth < 6 && typeof current === "object" && current !== null; depth++) {
    const code = (current as { code?: unknown }).code
    if (typeof code === "string") codes.push(code)
    const errors = (current as { errors?: unknown }).errors
    if (Array.isArray(errors)) for (const e of errors) codes.push(...codesOf(e))
    current = (current as { cause?: unknown }).cause
  }
  return codes
}

const CONNECT = ["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "EHOSTUNREACH", "ENETUNREACH", "UND_ERR_CONNECT_TIMEOUT"]
const TIMEOUT = ["UND_ERR_HEADERS_TIMEOUT", "UND_ERR_BODY_TIMEOUT"]
const RESET = ["ECONNRESET", "EPIPE", "UND_ERR_SOCKET", "UND_ERR_CLOSED", "ECONNABORTED"]

const messageOf = (cause: unknown): string => {
  const parts: Array<string> = []
  let current: unknown = cause
  for (let depth = 0; depth < 4 && current instanceof Error; depth++) {
    if (current.message !== "" && !parts.includes(current.message)) parts.push(current.message)
    current = current.cause
  }
  return parts.join(": ")
}

/** Classifies a failed request (undici / socket error) as connect, reset or other; its text names no header. */
export const fromCause = (endpoint: string, cause: unknown, timeoutMillis: number): TransportError => {
  const codes = codesOf(cause)
  if (codes.some((c) => TIMEOUT.includes(c))) {
    return new TransportError({ endpoint, reason: "Timeout", detail: `no complete answer in ${timeoutMillis} ms` })
  }
  const kind: TransportFailure = codes.some((c) => CONNECT.includes(c))
    ? "Connect"
    : codes.some((c) => RESET.includes(c))
      ? "Reset"
      : codes.includes("UND_ERR_ABORTED") || (cause instanceof Error && cause.name === "AbortError")
        ? "Aborted"
        : "Other"
  const message = messageOf(cause)
  return new TransportError({
    endpoint,
    reason: kind,
    detail: `${codes.length > 0 ? codes[0] : "error"}${message === "" ? "" : `: ${message}`}`
  })
}
