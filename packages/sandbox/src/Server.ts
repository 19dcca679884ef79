/**
 * The HTTP side of the sandbox on `node:http`: reads each request, routes it to the control API or
 * to the `Engine`, applies the fault profile, and writes the answer (or drops the connection). Every
 * answer is JSON: unknown routes, wrong methods, malformed HTTP and internal errors get the envelope.
 *
 * Why not `HttpApiBuilder`: the sandbox must never be the bottleneck of a benchmark, must destroy
 * sockets and cut bodies on purpose, and must keep the raw body; the routes and schemas still come
 * from the contract (`Contract.ts`). See docs/BENCHMARKS.md for the figures.
 */
import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from "node:http"
import type { AddressInfo, Socket } from "node:net"
import { routes } from "./Contract.ts"
import * as ControlApi from "./ControlApi.ts"
import { Engine } from "./Engine.ts"
import * as Envelope from "./Envelope.ts"
import { type LoggedRequest, redactHeaders } from "./RequestLog.ts"
import type { SandboxOptions } from "./SandboxConfig.ts"

const HEADERS = { "content-type": "application/json" } as const
const DEFAULT_MAX_BODY = 16 * 1024 * 1024

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

class BodyTooLarge extends Error {}

const readBody = (req: IncomingMessage, max: number): Promise<string> =>
  new Promise((resolve, reject) => {
    const chunks: Array<Buffer> = []
    let size = 0
    req.on("data", (chunk: Buffer) => {
      size += chunk.length
      if (size > max) {
        reject(new BodyTooLarge())
        req.removeAllListeners("data")
        req.resume()
        return
      }
      chunks.push(chunk)
    })
    req.on("end", () =>
      resolve(chunks.length === 1 ? chunks[0]!.toString("utf8") : Buffer.concat(chunks).toString("utf8"))
    )
    req.on("error", reject)
  })

const send = (res: ServerResponse, answer: Envelope.Answer): void => {
  res.writeHead(answer.status, { ...HEADERS, "content-length": Buffer.byteLength(answer.body) })
  res.end(answer.body)
}

/** A sandbox server: its engine (state) and the HTTP listener. */
export class SandboxServer {
  readonly engine: Engine
  private readonly server: HttpServer
  private readonly maxBody: number
  private readonly options: SandboxOptions
  constructor(options: SandboxOptions = {}) {
    this.options = options
    this.engine = new Engine(options)
    this.maxBody = options.maxBodyBytes ?? DEFAULT_MAX_BODY
    this.server = createServer({ keepAliveTimeout: 65_000 }, (req, res) => {
      this.onRequest(req, res).catch((e) => {
        process.stderr.write(`@warden/sandbox: internal error: ${(e as Error)?.stack ?? String(e)}\n`)
        if (!res.headersSent) send(res, Envelope.transient("internal sandbox error"))
      })
    })
    this.server.on("clientError", (_err, socket: Socket) => {
      if (!socket.writable) return socket.destroy()
      const body = Envelope.badBody("the request is not valid HTTP").body
      socket.end(
        `HTTP/1.1 400 Bad Request\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`
      )
    })
  }

  /** Starts listening; resolves with the base URL (`http://127.0.0.1:PORT`). */
  listen(): Promise<string> {
    return new Promise((resolve, reject) => {
      this.server.once("error", reject)
      this.server.listen(this.options.port ?? 0, this.options.host ?? "127.0.0.1", () => {
        this.server.off("error", reject)
        resolve(this.url)
      })
    })
  }

  /** The base URL; every endpoint (v1 and legacy) is under it. */
  get url(): string {
    const address = this.server.address() as AddressInfo | null
    if (address === null) throw new Error("@warden/sandbox: not listening")
    const host = address.family === "IPv6" ? `[${address.address}]` : address.address
    return `http://${host}:${address.port}`
  }

  /** The port listened on. */
  get port(): number {
    return (this.server.address() as AddressInfo).port
  }

  /** Stops listening and closes every connection. */
  close(): Promise<void> {
    return new Promise((resolve) => {
      this.server.close(() => resolve())
      this.server.closeAllConnections()
    })
  }

  private async onRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const started = performance.now()
    const method = req.method ?? "GET"
    const target = req.url ?? "/"
    const q = target.indexOf("?")
    const path = q === -1 ? target : target.slice(0, q)

    let rawBody: string
    let tooLarge = false
    try {
      rawBody = await readBody(req, this.maxBody)
    } catch (e) {
      if (!(e instanceof BodyTooLarge)) throw e
      rawBody = ""
      tooLarge = true
    }

    if (path === ControlApi.PREFIX || path.startsWith(`${ControlApi.PREFIX}/`)) {
      const query = new URLSearchParams(q === -1 ? "" : target.slice(q + 1))
      return send(res, ControlApi.handle(this.engine, method, path, query, rawBody, req.socket.remoteAddress))
    }

    const route = routes.get(path)
    const log = this.engine.log
    const entry: LoggedRequest | undefined = log.start({
      time: new Date().toISOString(),
      method,
      path: target,
      endpoint: route?.name ?? null,
      headers: redactHeaders(req.headers),
      body: rawBody.length > log.bodyLimit ? rawBody.slice(0, log.bodyLimit) : rawBody,
      bodyTruncated: rawBody.length > log.bodyLimit,
      status: 0,
      durationMs: 0,
      fault: null
    })
    const statsKey = route?.name ?? "unknown"
    const finish = (status: number, fault: string | null) => {
      log.count(statsKey, status)
      if (entry !== undefined) {
        entry.status = status
        entry.durationMs = performance.now() - started
        entry.fault = fault
      }
    }

    if (route === undefined || method !== route.method) {
      const answer = Envelope.notFound(`${method} ${path}`)
      finish(answer.status, null)
      return send(res, answer)
    }
    if (tooLarge) {
      const answer = Envelope.badBody(`the body is larger than ${this.maxBody} bytes`)
      finish(answer.status, null)
      return send(res, answer)
    }

    const fault = this.engine.faults.decide(route.name)
    if (fault.drop) {
      finish(0, "drop")
      req.socket.destroy()
      return
    }
    if (fault.stallMs > 0) await sleep(fault.stallMs)
    if (fault.transient) {
      const answer = Envelope.transient("fault profile: the sandbox answers 503 on purpose")
      finish(answer.status, "transient")
      return send(res, answer)
    }

    const outcome = this.engine.handle(route, req.headers, rawBody)
    if (outcome.stallMs > 0) await sleep(outcome.stallMs)
    if (outcome.drop) {
      finish(0, "marker:DROP")
      req.socket.destroy()
      return
    }
    const malformed = fault.malformed || outcome.malformed
    const faultName =
      outcome.marker !== null
        ? `marker:${outcome.marker}`
        : fault.malformed
          ? "malformed"
          : fault.stallMs > 0
            ? "stall"
            : null
    finish(outcome.answer.status, faultName)
    if (malformed) {
      const body = outcome.answer.body.slice(0, Math.max(1, Math.floor(outcome.answer.body.length / 2)))
      return send(res, { status: outcome.answer.status, body })
    }
    send(res, outcome.answer)
  }
}
