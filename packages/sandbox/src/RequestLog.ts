/**
 * Every request the sandbox received, in a bounded ring buffer: time, method, path, headers (API
 * keys redacted), body, and the status answered (`0` for a dropped connection). Also counts answers
 * per endpoint and status for `GET /_sandbox/stats`, unbounded.
 */

/** The value every credential header shows in the log. */
export const REDACTED = "<redacted>"

const SECRET_HEADERS = new Set(["authorization", "x-api-key", "proxy-authorization", "cookie"])

/** One request as logged. */
export interface LoggedRequest {
  /** Order of arrival, from 1. */
  readonly seq: number
  /** ISO time of arrival. */
  readonly time: string
  readonly method: string
  /** Path and query as received. */
  readonly path: string
  /** The endpoint name (`analyzeText`, ...) or `null` for a path outside the API. */
  readonly endpoint: string | null
  /** Headers, lower-case names; credentials show as `<redacted>` (the `ApiKey` scheme word is kept). */
  readonly headers: Readonly<Record<string, string>>
  /** The body as received (UTF-8), cut at `bodyLimit` characters. */
  readonly body: string
  readonly bodyTruncated: boolean
  /** The status answered; `0` when the connection was dropped on purpose. */
  status: number
  /** Time to answer, in ms. */
  durationMs: number
  /** The fault or marker applied, if any (`transient`, `drop`, `stall`, `malformed`, `marker:QUOTA`...). */
  fault: string | null
}

/** Counts of answers: total, and per endpoint (or path) and status. */
export interface Stats {
  readonly total: number
  readonly byEndpoint: Record<string, Record<string, number>>
}

/** Redacts credential headers, keeping the `ApiKey` scheme word so a wrong scheme stays visible. */
export const redactHeaders = (headers: Record<string, string | Array<string> | undefined>): Record<string, string> => {
  const out: Record<string, string> = {}
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue
    const text = Array.isArray(value) ? value.join(", ") : value
    if (!SECRET_HEADERS.has(name)) out[name] = text
    else if (name === "authorization") {
      const scheme = /^(\S+)\s+\S/.exec(text)?.[1]
      out[name] = scheme === undefined ? REDACTED : `${scheme} ${REDACTED}`
    } else out[name] = REDACTED
  }
  return out
}

/** The ring buffer and the counters. */
export class RequestLog {
  private entries: Array<LoggedRequest | undefined>
  private next = 0
  private seq = 0
  private total = 0
  private counts = new Map<string, Map<number, number>>()
  private size: number
  /** Bodies longer than this many characters are cut in the log. */
  readonly bodyLimit: number
  constructor(size = 1000, bodyLimit = 64 * 1024) {
    this.size = size
    this.bodyLimit = bodyLimit
    this.entries = new Array(Math.max(0, size))
  }
  /** Records a request on arrival; the returned entry is completed when it is answered. */
  start(entry: Omit<LoggedRequest, "seq">): LoggedRequest | undefined {
    this.seq += 1
    if (this.size === 0) return undefined
    const logged: LoggedRequest = { seq: this.seq, ...entry }
    this.entries[this.next] = logged
    this.next = (this.next + 1) % this.size
    return logged
  }
  /** Counts an answer. */
  count(key: string, status: number): void {
    this.total += 1
    let byStatus = this.counts.get(key)
    if (byStatus === undefined) {
      byStatus = new Map()
      this.counts.set(key, byStatus)
    }
    byStatus.set(status, (byStatus.get(status) ?? 0) + 1)
  }
  /** The requests kept, oldest first. */
  list(): ReadonlyArray<LoggedRequest> {
    const out: Array<LoggedRequest> = []
    for (let i = 0; i < this.size; i++) {
      const e = this.entries[(this.next + i) % this.size]
      if (e !== undefined) out.push(e)
    }
    return out
  }
  /** Answers per endpoint and status. */
  stats(): Stats {
    const byEndpoint: Record<string, Record<string, number>> = {}
    for (const [key, byStatus] of this.counts) {
      byEndpoint[key] = Object.fromEntries([...byStatus].map(([s, n]) => [String(s), n]))
    }
    return { total: this.total, byEndpoint }
  }
  /** Forgets every request and count; optionally resizes the buffer. */
  clear(size: number = this.size): void {
    this.size = size
    this.entries = new Array(Math.max(0, size))
    this.next = 0
    this.seq = 0
    this.total = 0
    this.counts = new Map()
  }
}
