/**
 * A fake moderation platform and a connector for it, declaring every action kind. The platform is a
 * real HTTP server: it serves events to poll and records every action it is asked to do, so what the
 * daemon did survives a daemon crash. Used in-process (the `connector` object) and as a `module:`
 * plugin by the process tests (`test/support/test-platform-plugin.ts`).
 */
import { writeFileSync } from "node:fs"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { Action, ConfigField, Connector, ConnectorError, type SourceEvent } from "@warden/connector"
import { Duration, Effect, Option, Schema, Stream } from "effect"
import type { SourceSpec } from "../../src/engine/Pipeline.ts"
import type { SourceSettings } from "../../src/domain/SourceSettings.ts"

/** The channel id of the tests' sources. */
export const CHANNEL = "0b5d4c1e-8a4f-4f5e-9c43-1d2e3f4a5b6c"

/** An event the platform serves, with its sequence number. */
export type PlatformEvent =
  | { readonly kind: "upsert"; readonly reference: string; readonly text: string; readonly author?: string }
  | { readonly kind: "reversal"; readonly reference: string; readonly action: string }
  | { readonly kind: "report"; readonly reference: string; readonly note: string }

/** An action the platform executed. */
export interface ExecutedAction {
  readonly kind: string
  readonly reference: string
  readonly params?: unknown
  readonly reason?: string
}

const readJson = (req: IncomingMessage): Promise<any> =>
  new Promise((resolve) => {
    let text = ""
    req.on("data", (c) => {
      text += c
    })
    req.on("end", () => resolve(text === "" ? {} : JSON.parse(text)))
  })

/** Starts the fake platform. */
export const startPlatform = async () => {
  const events: Array<PlatformEvent & { seq: number }> = []
  const executed: Array<ExecutedAction> = []
  const attempts: Array<ExecutedAction> = []
  const failNext = new Map<string, number>()
  let gateOpen = true
  const held: Array<{ res: ServerResponse; action: ExecutedAction }> = []

  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://platform")
    if (req.method === "GET" && url.pathname === "/events") {
      const after = Number(url.searchParams.get("after") ?? "0")
      const page = events.filter((e) => e.seq > after).slice(0, 50)
      res.writeHead(200, { "content-type": "application/json" })
      return res.end(JSON.stringify(page))
    }
    if (req.method === "POST" && url.pathname === "/actions") {
      const action = (await readJson(req)) as ExecutedAction
      attempts.push(action)
      const failures = failNext.get(action.kind) ?? 0
      if (failures > 0) {
        failNext.set(action.kind, failures - 1)
        res.writeHead(503, { "content-type": "application/json" })
        return res.end(JSON.stringify({ error: "platform busy" }))
      }
      if (!gateOpen) {
        // Held: done only if this connection is still there when the gate opens.
        const entry = { res, action }
        held.push(entry)
        res.on("close", () => {
          const i = held.indexOf(entry)
          if (i !== -1 && !res.writableEnded) held.splice(i, 1)
        })
        return
      }
      executed.push(action)
      res.writeHead(200, { "content-type": "application/json" })
      return res.end(JSON.stringify({ status: "done" }))
    }
    res.writeHead(404)
    res.end()
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    publish: (event: PlatformEvent) => events.push({ ...event, seq: events.length + 1 }),
    executed,
    attempts,
    failNext: (kind: string, times: number) => failNext.set(kind, times),
    closeGate: () => {
      gateOpen = false
    },
    openGate: () => {
      gateOpen = true
      for (const { res, action } of held.splice(0)) {
        if (res.destroyed || res.socket === null || res.socket.destroyed) continue
        executed.push(action)
        res.writeHead(200, { "content-type": "application/json" })
        res.end(JSON.stringify({ status: "done" }))
      }
    },
    heldCount: () => held.length,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
}

/** The test connector's config. */
export const TestPlatformConfig = Schema.Struct({
  url: Schema.String,
  pollMillis: Schema.Int.pipe(Schema.withDecodingDefaultKey(Effect.succeed(100))),
  /** Say so when a poll finds nothing new (a `progress` event with the cursor), as RSS and YouTube do. */
  progress: Schema.Boolean.pipe(Schema.withDecodingDefaultKey(Effect.succeed(false))),
  /** A file written (the cursor it starts from) when the events start: where a `ConfigField.path` lands. */
  startedFile: Schema.optionalKey(ConfigField.path(Schema.String))
})

const toSourceEvent = (e: PlatformEvent & { seq: number }): SourceEvent.ItemEvent =>
  e.kind === "upsert"
    ? {
        kind: "upsert",
        reference: e.reference,
        checkpoint: e.seq,
        content: { type: "text", text: e.text },
        // `author`: the author's id, with a username derived from it
        ...(e.author === undefined ? {} : { author: { identifier: e.author, username: `${e.author}-name` } })
      }
    : e.kind === "reversal"
      ? { kind: "reversal", reference: e.reference, checkpoint: e.seq, action: e.action }
      : { kind: "report", reference: e.reference, checkpoint: e.seq, note: e.note }

/** A connector for the fake platform that can do every known action. */
export const connector = Connector.make({
  type: "testplatform",
  configSchema: TestPlatformConfig,
  capabilities: { actions: [...Action.knownActionKinds], duplicates: "never", contentTypes: ["text"] },
  make: (config) =>
    Effect.succeed({
      events: (from: Option.Option<unknown>) => {
        let cursor = Option.isSome(from) ? Number(from.value) : 0
        if (config.startedFile !== undefined) writeFileSync(config.startedFile, String(cursor))
        const poll = Effect.tryPromise({
          try: () => fetch(`${config.url}/events?after=${cursor}`).then((r) => r.json()),
          catch: (e) =>
            new ConnectorError.ConnectorError({
              source: "testplatform",
              reason: "Unavailable",
              retryable: true,
              message: String(e)
            })
        }).pipe(
          Effect.map((page: Array<PlatformEvent & { seq: number }>): Array<SourceEvent.SourceEvent> => {
            if (page.length > 0) cursor = page.at(-1)!.seq
            else if (config.progress) return [{ kind: "progress", checkpoint: cursor }]
            return page.map(toSourceEvent)
          }),
          Effect.retry({ times: 50 })
        )
        return Stream.fromEffect(poll).pipe(
          Stream.flatMap((events) => Stream.fromIterable(events)),
          Stream.concat(Stream.fromEffect(Effect.sleep(Duration.millis(config.pollMillis))).pipe(Stream.drain)),
          Stream.forever
        ) as Stream.Stream<SourceEvent.SourceEvent, ConnectorError.ConnectorError>
      },
      act: (action: Action.Action) =>
        Effect.tryPromise({
          try: async () => {
            const res = await fetch(`${config.url}/actions`, {
              method: "POST",
              headers: { "content-type": "application/json" },
              body: JSON.stringify(action)
            })
            await res.body?.cancel()
            return res.status
          },
          catch: (e) => e
        }).pipe(
          Effect.mapError(
            (e) =>
              new Action.ActionError({
                kind: action.kind,
                reference: action.reference,
                reason: "Unavailable",
                retryable: true,
                message: `platform unreachable: ${String(e)}`
              })
          ),
          Effect.flatMap((status) =>
            status === 200
              ? Effect.succeed({ status: "done" as const })
              : Effect.fail(
                  new Action.ActionError({
                    kind: action.kind,
                    reference: action.reference,
                    reason: "Unavailable",
                    retryable: true,
                    message: `platform answered ${status}`
                  })
                )
          )
        )
    })
})

/** The settings of a test source `id` on `connector` (v1, text, the tests' channel), with `settings` overriding them. */
export const sourceSettings = (
  id: string,
  connector: string,
  settings: Partial<SourceSettings> = {}
): SourceSettings => ({
  id,
  connector,
  channelId: CHANNEL,
  mode: "v1",
  analyse: new Set(["text"]),
  oversize: "split",
  dryRun: false,
  ...settings
})

/** A daemon source on the test platform at `url` (v1, text), with `settings` overriding the defaults. */
export const platformSource = (url: string, settings: Partial<SourceSettings> = {}): SourceSpec => ({
  settings: sourceSettings("plat", "testplatform", settings),
  connector,
  config: Schema.decodeUnknownSync(TestPlatformConfig)({ url, pollMillis: 50 })
})

/**
 * A `sources[]` entry of a warden.yaml for a daemon process: the test platform at `url` through its
 * `module:` plugin (id `platform`); `fields` add keys (rules, retention) or override them.
 */
export const pluginSourceConfig = (url: string, fields: Record<string, unknown> = {}) => ({
  id: "platform",
  module: new URL("./test-platform-plugin.ts", import.meta.url).pathname,
  channelId: CHANNEL,
  config: { url, pollMillis: 50 },
  ...fields
})

export default connector
