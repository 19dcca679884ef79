/**
 * The source's own listener (`listen`, separate from the daemon's loopback admin server):
 * - `POST /v1/items`: one item, an array of items, or `{ "items": [...] }` (at most
 *   `maxItemsPerRequest`); 202 once the valid ones are durably recorded as received, with a result per
 *   item; an invalid item is refused alone, naming its fields (400 only when none is valid);
 * - `POST /v1/check?deadlineMillis=N`: one item; 200 with the decision once known, or the failure mode's
 *   when the deadline (the source's, or less when the request asks) passes first;
 * - `GET /openapi.json`: the OpenAPI 3.1 document of the two routes (no authentication: no secret in it).
 *
 * Every refusal is the API's error envelope (Envelope.ts). A plain `node:http` server: the signature
 * is over the raw bytes, which are read (up to `maxBodyBytes`) before anything is parsed.
 *
 * @since 0.1.0
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { ConnectorError, type PushHost } from "@warden/connector"
import { Clock, Duration, Effect, Exit, type Scope } from "effect"
import * as Authentication from "./Authentication.ts"
import * as Envelope from "./Envelope.ts"
import { type Config, hostPort } from "./HttpConfig.ts"
import * as ItemInput from "./ItemInput.ts"
import * as OpenApi from "./OpenApi.ts"
import * as RateLimit from "./RateLimit.ts"

/** A running listener. */
export interface Listening {
  /** `http://host:port`, the port the system gave when `listen` asked for 0. */
  readonly url: string
}

const json = (res: ServerResponse, answer: Envelope.Answer) => {
  const body = JSON.stringify(answer.body)
  res.writeHead(answer.status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(body),
    ...answer.headers
  })
  res.end(body)
}

/** The body, or `undefined` once it passed `max` bytes (the rest is not read). */
const readBody = (req: IncomingMessage, max: number): Promise<Buffer | undefined> =>
  new Promise((resolve, reject) => {
    const declared = Number(req.headers["content-length"])
    if (Number.isFinite(declared) && declared > max) return resolve(undefined)
    const chunks: Array<Buffer> = []
    let size = 0
    req.on("data", (chunk: Buffer) => {
      size += chunk.length
      if (size > max) {
        req.removeAllListeners("data")
        resolve(undefined)
        return
      }
      chunks.push(chunk)
    })
    req.on("end", () => resolve(Buffer.concat(chunks, size)))
    req.on("error", reject)
  })

const parseJson = (body: Buffer): { readonly ok: true; readonly value: unknown } | { readonly ok: false } => {
  try {
    return { ok: true, value: JSON.parse(body.toString("utf8")) }
  } catch {
    return { ok: false }
  }
}

const isRecord = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

/** Starts the listener for the scope's lifetime; its requests run on `host`. */
export const serve = (
  source: string,
  config: Config,
  host: PushHost.PushHostShape
): Effect.Effect<Listening, ConnectorError.ConnectorError, Scope.Scope> =>
  Effect.gen(function* () {
    const context = yield* Effect.context<never>()
    // The request handler is Node's callback: it reads the fiber's Clock (a TestClock in tests).
    const clock = yield* Clock.Clock
    const run = <A, E>(effect: Effect.Effect<A, E>) => Effect.runPromiseExitWith(context)(effect)
    const clients = Authentication.prepare(config.clients)
    const buckets = new Map(
      config.clients.flatMap((c) => (c.rate === undefined ? [] : [[c.name, RateLimit.bucket(c.name, c.rate)] as const]))
    )
    const deadlineMillis = Duration.toMillis(config.check.deadline)
    const openApi = JSON.stringify(OpenApi.document(config))

    const items = async (body: unknown): Promise<Envelope.Answer> => {
      const list = Array.isArray(body) ? body : isRecord(body) && Array.isArray(body.items) ? body.items : [body]
      const batched = list !== body || (isRecord(body) && Array.isArray(body.items))
      if (list.length === 0) return Envelope.badRequest([{ field: "items", message: "at least one item is required" }])
      if (list.length > config.maxItemsPerRequest)
        return Envelope.badRequest([
          { field: "items", message: `at most ${config.maxItemsPerRequest} items per request (got ${list.length})` }
        ])
      const decoded = list.map((input, i) => ItemInput.decode(input, batched ? `items[${i}].` : ""))
      const valid = decoded.flatMap((d) => (d._tag === "Item" ? [d.item] : []))
      if (valid.length === 0)
        return Envelope.badRequest(decoded.flatMap((d) => (d._tag === "Invalid" ? d.violations : [])))
      const exit = await run(host.receive(valid))
      if (Exit.isFailure(exit)) return Envelope.transient("the items could not be recorded; nothing was accepted")
      return {
        status: 202,
        body: {
          accepted: valid.length,
          rejected: decoded.length - valid.length,
          items: decoded.map((d, index) =>
            d._tag === "Item"
              ? { index, reference: d.item.reference, status: "accepted" }
              : {
                  index,
                  ...(d.reference === undefined ? {} : { reference: d.reference }),
                  status: "rejected",
                  error: Envelope.badRequest(d.violations).body
                }
          )
        }
      }
    }

    const check = async (body: unknown, query: URLSearchParams): Promise<Envelope.Answer> => {
      const asked = query.get("deadlineMillis")
      if (asked !== null && !/^[1-9]\d{0,8}$/u.test(asked))
        return Envelope.badRequest([
          { field: "deadlineMillis", message: "must be a positive whole number of milliseconds" }
        ])
      const decoded = ItemInput.decode(body, "")
      if (decoded._tag === "Invalid") return Envelope.badRequest(decoded.violations)
      const deadline = asked === null ? deadlineMillis : Math.min(deadlineMillis, Number(asked))
      const exit = await run(host.check(decoded.item, deadline))
      if (Exit.isFailure(exit)) return Envelope.transient("the item could not be recorded; ask again")
      return { status: 200, body: exit.value }
    }

    const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
      const url = new URL(req.url ?? "/", "http://listener")
      const route = `${req.method} ${url.pathname}`
      if (route === "GET /openapi.json") {
        res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(openApi) })
        res.end(openApi)
        return
      }
      if (route !== "POST /v1/items" && route !== "POST /v1/check")
        return json(res, Envelope.notFound(`${req.method} ${url.pathname}`))
      const body = await readBody(req, config.maxBodyBytes)
      if (body === undefined) {
        res.setHeader("connection", "close")
        return json(
          res,
          Envelope.badRequest([{ field: "", message: `the body is over maxBodyBytes (${config.maxBodyBytes})` }], 413)
        )
      }
      const who = Authentication.authenticate(
        clients,
        req.headers,
        body,
        Math.floor(clock.currentTimeMillisUnsafe() / 1000)
      )
      if ("refused" in who) return json(res, Envelope.unauthenticated(who.refused))
      const bucket = buckets.get(who.client)
      const wait = bucket === undefined ? 0 : bucket.take(clock.currentTimeMillisUnsafe())
      if (bucket !== undefined && wait > 0) return json(res, Envelope.quota(bucket.quotaName, bucket.quotaValue, wait))
      const type = req.headers["content-type"] ?? ""
      if (!/^application\/json\b/iu.test(type))
        return json(res, Envelope.badRequest([{ field: "Content-Type", message: "must be application/json" }]))
      const parsed = parseJson(body)
      if (!parsed.ok) return json(res, Envelope.badRequest([{ field: "", message: "the body is not JSON" }]))
      return json(
        res,
        route === "POST /v1/items" ? await items(parsed.value) : await check(parsed.value, url.searchParams)
      )
    }

    const server = createServer((req, res) => {
      handle(req, res).catch((error: unknown) => {
        if (!res.headersSent) json(res, Envelope.transient("unexpected failure"))
        else res.destroy()
        run(Effect.logError("push listener: a request failed", error))
      })
    })
    // Keep-alive connections of load balancers outlive Node's 5 s default: a reused socket closed
    // by the server under a request is a failed request on the client's side.
    server.keepAliveTimeout = 65_000
    const { host: hostname, port } = hostPort(config.listen)
    const address = yield* Effect.acquireRelease(
      Effect.callback<AddressInfo, ConnectorError.ConnectorError>((resume) => {
        server.once("error", (error) =>
          resume(
            Effect.fail(
              new ConnectorError.ConnectorError({
                source,
                reason: "InvalidConfig",
                retryable: true,
                message: `cannot listen on ${config.listen}: ${error.message}`
              })
            )
          )
        )
        server.listen(port, hostname, () => {
          const address = server.address()
          // a TCP listener's address is an AddressInfo (a string only for a pipe or a socket path)
          resume(
            typeof address === "object" && address !== null
              ? Effect.succeed(address)
              : Effect.die(new Error(`the listener has no TCP address: ${String(address)}`))
          )
        })
      }),
      () =>
        Effect.callback<void>((resume) => {
          server.close(() => resume(Effect.void))
          server.closeAllConnections()
        })
    )
    const shown = address.family === "IPv6" ? `[${address.address}]` : address.address
    yield* Effect.logInfo(`push source listening on http://${shown}:${address.port}`)
    return { url: `http://${shown}:${address.port}` }
  })
