/** A real HTTP server on loopback for a test, and a front that passes requests on to another server. */
import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { Effect } from "effect"

/** A server on a free loopback port: its base URL, and `close` (open connections cut). */
export const listen = async (handler: RequestListener): Promise<{ url: string; close: () => Promise<void> }> => {
  const server = createServer(handler)
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return { url: urlOf(server), close: () => closeServer(server) }
}

/** Serves `handler` on a free loopback port until the scope closes (open connections cut); answers its base URL. */
export const serve = (handler: RequestListener) =>
  Effect.map(
    Effect.acquireRelease(
      Effect.promise(() => listen(handler)),
      (server) => Effect.promise(server.close)
    ),
    (server) => server.url
  )

/** A request's body, read whole. */
export const bodyOf = async (req: IncomingMessage): Promise<Buffer<ArrayBuffer>> => {
  const chunks: Array<Buffer> = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks)
}

/**
 * Passes `req` (its `body` already read) on to the server at `target` with its headers, `headers`
 * overriding them, and sends the answer back: a front to the sandbox that can refuse or alter a call.
 */
export const forward = async (
  target: string,
  req: IncomingMessage,
  body: Buffer<ArrayBuffer>,
  res: ServerResponse,
  headers: Record<string, string> = {}
): Promise<void> => {
  const passed = Object.fromEntries(
    Object.entries(req.headers).filter(([k]) => k !== "host" && k !== "content-length" && k !== "connection")
  ) as Record<string, string>
  const answer = await fetch(`${target}${req.url}`, {
    method: req.method ?? "POST",
    headers: { ...passed, ...headers },
    body
  })
  res.writeHead(answer.status, { "content-type": answer.headers.get("content-type") ?? "application/json" })
  res.end(Buffer.from(await answer.arrayBuffer()))
}

const urlOf = (server: Server): string => `http://127.0.0.1:${(server.address() as AddressInfo).port}`

const closeServer = (server: Server) =>
  new Promise<void>((resolve) => {
    server.closeAllConnections()
    server.close(() => resolve())
  })
