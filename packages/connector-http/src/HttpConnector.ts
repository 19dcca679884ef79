/**
 * The `http` connector: a push source. Clients post items to its own listener (Listener.ts); the
 * daemon's push host (`@warden/connector`'s `PushHost`) records them before the answer, and is the
 * source's stream and acknowledgement. Without a host (the connector run outside the daemon) it cannot
 * keep what it accepts, so its stream fails at once (not retried).
 *
 * @since 0.1.0
 */
import { Connector, ConnectorError, PushHost } from "@warden/connector"
import { Effect, Option, Stream } from "effect"
import { Config } from "./HttpConfig.ts"
import * as Listener from "./Listener.ts"

/**
 * Actions a rule of an `http` source may name: they are not run on any platform (the client applies
 * its decision), they decide what `POST /v1/check` answers and are recorded, sent to the sinks and
 * shown in the console like any source's (docs/connectors/http.md).
 */
export const actions = ["hide", "reject", "delete", "holdForReview", "publish"] as const

/** The connector definition, under the name the registry looks for. */
export const connector = Connector.make({
  type: "http",
  configSchema: Config,
  capabilities: {
    actions: [...actions],
    duplicates: "possible",
    contentTypes: ["text", "image", "username"],
    push: true
  },
  make: (config) =>
    Effect.gen(function* () {
      const host = yield* Effect.serviceOption(PushHost.PushHost)
      return {
        // The listener opens with the stream (connectors connect in `events`, not in `make`: `warden
        // config check` makes the source to look at it) and closes with it.
        events: (from) =>
          Option.match(host, {
            onNone: () =>
              Stream.fail(
                new ConnectorError.ConnectorError({
                  source: "http",
                  reason: "InvalidConfig",
                  retryable: false,
                  message:
                    "the http source needs the daemon's push host to keep what it accepts (run it with warden run)"
                })
              ),
            onSome: (h) => Stream.unwrap(Effect.as(Listener.serve(h.source, config, h), h.events(from)))
          }),
        acknowledge: (checkpoint) =>
          Option.match(host, { onNone: () => Effect.void, onSome: (h) => h.acknowledge(checkpoint) }),
        // Nothing to do on a platform: the client reads the decision (a check's answer, a sink).
        act: (action) =>
          Effect.succeed({ status: "done" as const, detail: `${action.kind}: recorded for the client to apply` })
      }
    })
})
