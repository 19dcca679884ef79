/**
 * A complete minimal connector, used by docs/connectors.md and run through the conformance kit by
 * `test/example.test.ts`. Upstream: an HTTP endpoint answering `GET <url>?after=<id>` with a JSON
 * array `[{ "id": 1, "text": "..." }]` of items with increasing ids.
 */
import * as Http from "node:http"
import { Connector, ConnectorError, SourceEvent } from "@warden/connector"
import { Duration, Effect, Option, Schema, Stream } from "effect"

/** The user's config, decoded from YAML: `{ url, pollInterval?: "1 second" }`. */
const Config = Schema.Struct({
  url: Schema.String.check(Schema.isPattern(/^https?:\/\//u)),
  pollInterval: Schema.DurationFromString.pipe(Schema.withDecodingDefaultKey(Effect.succeed("1 second")))
})

/** The upstream's answer, decoded at the boundary. */
const Items = Schema.Array(Schema.Struct({ id: Schema.Int, text: Schema.String }))

/** The checkpoint: the last id handled. */
const Position = Schema.Struct({ after: Schema.Int })

const get = (url: string) =>
  Effect.callback<string, ConnectorError.ConnectorError>((resume, signal) => {
    // `agent: false`: one connection per request, closed after it, so nothing lingers after shutdown.
    const req = Http.get(url, { agent: false, signal }, (res) => {
      let body = ""
      res.setEncoding("utf8")
      res.on("data", (chunk: string) => (body += chunk))
      res.on("end", () =>
        resume(
          res.statusCode === 200
            ? Effect.succeed(body)
            : Effect.fail(unavailable(`upstream answered ${res.statusCode}`))
        )
      )
    })
    req.on("error", (error) => resume(Effect.fail(unavailable(error.message))))
  })

const unavailable = (message: string) =>
  new ConnectorError.ConnectorError({ source: "json-poll", reason: "Unavailable", retryable: true, message })

/** The connector definition; export it as `connector` so the registry finds it. */
export const connector = Connector.make({
  type: "json-poll",
  configSchema: Config,
  capabilities: { actions: [], duplicates: "never", contentTypes: ["text"] },
  make: (config) =>
    Effect.succeed({
      events: (from) =>
        Stream.unwrap(
          Effect.gen(function* () {
            const start = Option.isSome(from)
              ? yield* Schema.decodeUnknownEffect(Position)(from.value).pipe(
                  Effect.mapError(
                    (e) =>
                      new ConnectorError.ConnectorError({
                        source: "json-poll",
                        reason: "InvalidCheckpoint",
                        retryable: false,
                        message: e.message
                      })
                  )
                )
              : { after: 0 }
            // State: last id + consecutive failures. One poll per step; errors become error events.
            return Stream.paginate({ after: start.after, failures: 0 }, (state) =>
              get(`${config.url}?after=${state.after}`).pipe(
                Effect.flatMap((body) =>
                  Schema.decodeUnknownEffect(Schema.fromJsonString(Items))(body).pipe(
                    Effect.mapError((e) => unavailable(`invalid answer: ${e.message}`))
                  )
                ),
                Effect.map((items) => {
                  const events: Array<SourceEvent.SourceEvent> = items.map((item) =>
                    SourceEvent.upsertText({
                      reference: `json-poll:${item.id}`,
                      checkpoint: { after: item.id },
                      text: item.text
                    })
                  )
                  const after = items.at(-1)?.id ?? state.after
                  return [events, { after, failures: 0 }] as const
                }),
                Effect.catch((error) => {
                  const failures = state.failures + 1
                  const retryInMillis = Math.min(30_000, 100 * 2 ** failures)
                  const event: SourceEvent.SourceEvent = {
                    kind: "error",
                    source: "json-poll",
                    reason: error.reason,
                    message: error.message,
                    attempt: failures,
                    retryInMillis
                  }
                  return Effect.succeed([[event] as Array<SourceEvent.SourceEvent>, { ...state, failures }] as const)
                }),
                // Wait before the next poll: the interval, or the backoff after a failure.
                Effect.tap(([, next]) =>
                  Effect.sleep(
                    next.failures > 0
                      ? Duration.millis(Math.min(30_000, 100 * 2 ** next.failures))
                      : config.pollInterval
                  )
                ),
                Effect.map(([events, next]) => [events, Option.some(next)] as const)
              )
            )
          })
        )
    })
})
