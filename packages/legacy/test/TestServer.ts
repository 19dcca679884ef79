/**
 * A real HTTP server on 127.0.0.1:0 for transport tests: each request is recorded (headers and exact
 * body) and answered by a script of behaviours (a status and body, a hang, a dropped socket).
 */
import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http"
import type { AddressInfo, Socket } from "node:net"
import { Effect } from "effect"

export interface Recorded {
  readonly method: string
  readonly url: string
  readonly headers: IncomingHttpHeaders
  readonly body: string
  readonly at: number
}

export type Behaviour =
  | { readonly status: number; readonly body: unknown }
  | { readonly hang: true }
  | { readonly drop: true }

export const ok = (body: unknown = { textAnalysis: { type: "NEUTRAL" } }): Behaviour => ({ status: 200, body })
export const envelope = (status: number, code: string, details: unknown): Behaviour => ({
  status,
  body: { error: { code, details } }
})
export const transient = envelope(503, "TRANSIENT_ERROR", { transientError: { reason: "overloaded" } })

/** Starts a server; `script(n)` decides the answer to the n-th request (0-based). Closed with the scope. */
export const startServer = (script: (n: number, request: Recorded) => Behaviour) =>
  Effect.acquireRelease(
    Effect.callback<{ url: string; requests: Array<Recorded> }>((resume) => {
      const requests: Array<Recorded> = []
      const sockets = new Set<Socket>()
      const server = createServer((req, res: ServerResponse) => {
        const chunks: Array<Buffer> = []
        req.on("data", (c: Buffer) => chunks.push(c))
        req.on("end", () => {
          const recorded: Recorded = {
            method: req.method ?? "",
            url: req.url ?? "",
            headers: req.headers,
            body: Buffer.concat(chunks).toString("utf8"),
            at: Date.now()
          }
          const n = requests.length
          requests.push(recorded)
          const behaviour = script(n, recorded)
          if ("hang" in behaviour) return
          if ("drop" in behaviour) {
            req.socket.destroy()
            return
          }
          const text = typeof behaviour.body === "string" ? behaviour.body : JSON.stringify(behaviour.body)
          res.writeHead(behaviour.status, { "content-type": "application/json" })
          res.end(text)
        })
      })
      server.on("connection", (s) => {
        sockets.add(s)
        s.on("close", () => sockets.delete(s))
      })
      server.listen(0, "127.0.0.1", () => {
        const { port } = server.address() as AddressInfo
        resume(Effect.succeed(Object.assign({ url: `http://127.0.0.1:${port}`, requests }, { server, sockets })))
      })
    }),
    (s) =>
      Effect.callback<void>((resume) => {
        const { server, sockets } = s as unknown as { server: ReturnType<typeof createServer>; sockets: Set<Socket> }
        for (const socket of sockets) socket.destroy()
        server.close(() => resume(Effect.void))
      })
  )
