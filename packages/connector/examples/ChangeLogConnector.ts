/**
 * A connector over a change log, the shape of most comment platforms' APIs: `GET <url>/changes?after=<seq>`
 * answers `[{ "seq": 7, "op": "create" | "edit" | "delete", "id": 3, "text": "..." }]` in `seq` order, and
 * `POST <url>/hide/<id>` hides a comment (`404` when it is gone). Creates and edits are upserts, deletes
 * are deletes; the checkpoint is the last `seq` (small, only forward). Written with the SDK's helpers:
 * `Http` (no socket left open), `Checkpoint.decode` (a foreign checkpoint is `InvalidCheckpoint`) and
 * `Backoff` (the config's `retry` and the wait of each error event). Run through the conformance kit
 * by `test/example.test.ts`.
 */
import { Action, Backoff, Checkpoint, Connector, type ConnectorError, Http, SourceEvent } from "@warden/connector"
import { Duration, Effect, Option, Schema, Stream } from "effect"

const Config = Schema.Struct({
  url: Schema.String.check(Schema.isPattern(/^https?:\/\//u)).annotate({
    description: "Base URL of the platform's API"
  }),
  pollInterval: Schema.DurationFromString.pipe(Schema.withDecodingDefaultKey(Effect.succeed("1 second"))).annotate({
    description: "Wait between polls of the change log (default 1 second)"
  }),
  retry: Backoff.Settings({ initial: "100 millis", max: "30 seconds" })
})

const Change = Schema.Struct({
  seq: Schema.Int,
  op: Schema.Literals(["create", "edit", "delete"]),
  id: Schema.Int,
  text: Schema.optionalKey(Schema.String)
})
const Changes = Schema.Array(Change)

/** The checkpoint: the last change handled. */
const Position = Schema.Struct({ seq: Schema.Int })

const reference = (id: number) => `changelog:${id}`

const toEvent = (change: typeof Change.Type): SourceEvent.SourceEvent =>
  change.op === "delete"
    ? { kind: "delete", reference: reference(change.id), checkpoint: { seq: change.seq } }
    : SourceEvent.upsertText({
        reference: reference(change.id),
        checkpoint: { seq: change.seq },
        text: change.text ?? ""
      })

/** The connector definition, exported as `connector` for the registry. */
export const connector = Connector.make({
  type: "changelog",
  configSchema: Config,
  capabilities: { actions: ["hide"], duplicates: "never", contentTypes: ["text"] },
  make: (config) =>
    Effect.succeed({
      events: (from) =>
        Stream.unwrap(
          Effect.gen(function* () {
            const start = yield* Checkpoint.decode(Position, "changelog")(from)
            const after = Option.match(start, { onNone: () => 0, onSome: (p) => p.seq })
            return Stream.paginate({ after, failures: 0 }, (state) =>
              Http.getJson("changelog", Changes, {
                url: `${config.url}/changes?after=${state.after}`,
                timeout: "10 seconds"
              }).pipe(
                Effect.map(
                  (changes) =>
                    [changes.map(toEvent), { after: changes.at(-1)?.seq ?? state.after, failures: 0 }] as const
                ),
                Effect.catch((error: ConnectorError.ConnectorError) => {
                  const failures = state.failures + 1
                  const event: SourceEvent.SourceEvent = {
                    kind: "error",
                    source: "changelog",
                    reason: error.reason,
                    message: error.message,
                    attempt: failures,
                    retryInMillis: Backoff.delayMillis(config.retry, failures)
                  }
                  return Effect.succeed([[event], { ...state, failures }] as const)
                }),
                Effect.tap(([events, next]) =>
                  Effect.sleep(
                    next.failures > 0
                      ? Duration.millis((events[0] as SourceEvent.ErrorEvent).retryInMillis)
                      : config.pollInterval
                  )
                ),
                Effect.map(([events, next]) => [events, Option.some(next)] as const)
              )
            )
          })
        ),
      act: (action) => {
        const id = action.reference.replace(/^changelog:/u, "")
        const refuse = (reason: string, retryable: boolean, message: string) =>
          new Action.ActionError({ kind: action.kind, reference: action.reference, reason, retryable, message })
        if (action.kind !== "hide") return Effect.fail(refuse("Unsupported", false, `${action.kind} is not supported`))
        return Http.request("changelog", { url: `${config.url}/hide/${encodeURIComponent(id)}`, method: "POST" }).pipe(
          Effect.mapError((e) => refuse("Unavailable", e.retryable, e.message)),
          Effect.flatMap((res): Effect.Effect<Action.ActionResult, Action.ActionError> => {
            // 409: hidden already (a retry after a lost answer); 404: the comment is gone.
            if (res.status === 200) return Effect.succeed({ status: "done" })
            if (res.status === 409) return Effect.succeed({ status: "alreadyDone" })
            if (res.status === 404) return Effect.succeed({ status: "notFound" })
            return Effect.fail(refuse("Unavailable", true, `the platform answered ${res.status}`))
          })
        )
      }
    })
})
