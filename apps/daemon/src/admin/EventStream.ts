/**
 * A live list as server-sent events, the one shape of the console's two streams (DecisionStream,
 * ReviewStream): `retry: 2000` first, then every `pollMillis` what `look` found (its events' text, ""
 * for nothing new), a keepalive comment every 15 looks so proxies keep the connection, ended when the
 * server starts stopping (Stopping.ts: the browser's EventSource reconnects by itself).
 */
import { Deferred, Effect, Option, Stream } from "effect"
import { HttpServerResponse } from "effect/http"
import { Stopping } from "./Stopping.ts"

/** Looks between two keepalive comments. */
const KEEPALIVE_EVERY = 15

/** `rows` as events named `name`, one per row, their data the row's JSON. */
export const events = (name: string, rows: ReadonlyArray<unknown>): string =>
  rows.map((row) => `event: ${name}\ndata: ${JSON.stringify(row)}\n\n`).join("")

/** The response streaming what `look` finds every `pollMillis`; a failed look ends it (as a defect). */
export const response = <E>(look: Effect.Effect<string, E>, pollMillis: number) =>
  Effect.gen(function* () {
    const stopping = yield* Effect.serviceOption(Stopping)
    let tick = 0
    const next = Effect.gen(function* () {
      yield* Effect.sleep(pollMillis)
      tick++
      const text = yield* look
      return tick % KEEPALIVE_EVERY === 0 ? `${text}: keepalive\n\n` : text
    }).pipe(Effect.orDie)
    const body = Stream.concat(Stream.succeed("retry: 2000\n\n"), Stream.fromEffectRepeat(next)).pipe(
      Option.isSome(stopping) ? Stream.interruptWhen(Deferred.await(stopping.value)) : (stream) => stream,
      Stream.filter((text) => text !== ""),
      Stream.encodeText
    )
    return HttpServerResponse.stream(body, {
      contentType: "text/event-stream; charset=utf-8",
      headers: { "cache-control": "no-cache", connection: "keep-alive" }
    })
  })
