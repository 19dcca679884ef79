/**
 * A scripted stand-in for the API, for tests of code built on the transport (ours and users'): a real
 * HTTP server on 127.0.0.1:0 that records each request (headers and exact body) and answers it as a
 * script says (a status and body, a hang, a dropped socket). For the whole API, use `@warden/sandbox`.
 */
import { createServer, type IncomingHttpHeaders } from "node:http"
import type { AddressInfo, Socket } from "node:net"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"

/** A request as the server received it. */
export interface Recorded {
  readonly method: string
  readonly url: string
  readonly headers: IncomingHttpHeaders
  readonly body: string
  /** When it arrived: epoch milliseconds on the Clock of the fiber that started the server. */
  readonly at: number
}

/**
 * How to answer a request: a status and body (after `delayMillis`, if given), never (hang), or by
 * destroying the socket (drop).
 */
export type Behaviour =
  | { readonly status: number; readonly body: unknown; readonly delayMillis?: number }
  | { readonly hang: true }
  | { readonly drop: true }

/** A 200 with a body (by default a neutral text analysis). */
export const ok = (body: unknown = { textAnalysis: { type: "NEUTRAL" } }): Behaviour => ({ status: 200, body })

/** An error envelope of `code` with its details. */
export const envelope = (status: number, code: string, details: unknown): Behaviour => ({
  status,
  body: { error: { code, details } }
})

/** A 503 `TRANSIENT_ERROR`. */
export const transient = envelope(503, "TRANSIENT_ERROR", { transientError: { reason: "overloaded" } })

/** A running scripted server. */
export interface ScriptedServer {
  readonly url: string
  /** Every request received, in order. */
  readonly requests: Array<Recorded>
  /** Connections open right now (a client that aborted a call has closed its connection). */
  readonly openConnections: () => number
}

/** Starts a server; `script(n, request)` decides the answer to the n-th request (0-based). Closed with the scope. */
export const startServer = (
  script: (n: number, request: Recorded) => Behaviour
): Effect.Effect<ScriptedServer, never, Scope.Scope> =>
  // The server answers in Node's callbacks, outside any fiber: `at` is read on the Clock of the fiber
  // that started it (the TestClock's time in an `it.effect` test, as the limiter under test sees it).
  Clock.clockWith((clock) => serve(script, clock))

const serve = (script: (n: number, request: Recorded) => Behaviour, clock: Clock.Clock) => {
  const requests: Array<Recorded> = []
  const sockets = new Set<Socket>()
  const server = createServer((req, res) => {
    const chunks: Array<Buffer> = []
    req.on("data", (c: Buffer) => chunks.push(c))
    req.on("end", () => {
      const recorded: Recorded = {
        method: req.method ?? "",
        url: req.url ?? "",
        headers: req.headers,
        body: Buffer.concat(chunks).toString("utf8"),
        at: clock.currentTimeMillisUnsafe()
      }
      const behaviour = script(requests.length, recorded)
      requests.push(recorded)
      if ("hang" in behaviour) return
      if ("drop" in behaviour) {
        req.socket.destroy()
        return
      }
      const answer = () => {
        res.writeHead(behaviour.status, { "content-type": "application/json" })
        res.end(typeof behaviour.body === "string" ? behaviour.body : JSON.stringify(behaviour.body))
      }
      if (behaviour.delayMillis === undefined) answer()
      else setTimeout(answer, behaviour.delayMillis)
    })
  })
  server.on("connection", (s) => {
    sockets.add(s)
    s.on("close", () => sockets.delete(s))
  })
  return Effect.acquireRelease(
    Effect.callback<ScriptedServer>((resume) => {
      server.listen(0, "127.0.0.1", () => {
        const { port } = server.address() as AddressInfo
        resume(Effect.succeed({ url: `http://127.0.0.1:${port}`, requests, openConnections: () => sockets.size }))
      })
    }),
    () =>
      Effect.callback<void>((resume) => {
        for (const socket of sockets) socket.destroy()
        server.close(() => resume(Effect.void))
      })
  )
}
