/**
 * A real nats-server with a fresh stream for one test, and what the stream holds: the `Nats-Msg-Id` of
 * every message stored, in order, read back through a connection opened with the stream (so reading
 * opens nothing while a check watches the sink's handles).
 */
import { jetstreamManager } from "@nats-io/jetstream"
import { connect } from "@nats-io/transport-node"
import { NatsServer } from "@warden/connector-nats/testing"
import { Effect, Schedule, type Scope } from "effect"

let streams = 0

/** A stream `VERDICTS_<n>` taking `conformance.>` and `<stream>.>` on a fresh server. */
export const make = (
  args: ReadonlyArray<string> = []
): Effect.Effect<
  {
    readonly server: NatsServer.NatsServer
    readonly stream: string
    /** The delivery ids of the messages stored, repeats included. */
    readonly ids: Effect.Effect<ReadonlyArray<string>>
  },
  never,
  Scope.Scope
> =>
  Effect.gen(function* () {
    const server = yield* NatsServer.scoped(args)
    const stream = `VERDICTS_${++streams}`
    const token = args.includes("--auth") ? args[args.indexOf("--auth") + 1] : undefined
    yield* Effect.promise(() =>
      NatsServer.createStream(server.url, { name: stream, subjects: ["conformance.>", `${stream}.>`] }, token)
    )
    const nc = yield* Effect.acquireRelease(
      Effect.promise(() =>
        connect({ servers: server.url, maxReconnectAttempts: -1, reconnectTimeWait: 100, ...(token ? { token } : {}) })
      ),
      (nc) => Effect.promise(() => nc.close())
    )
    // Read again while the connection comes back after a restart of the server.
    const ids = Effect.tryPromise(async () => {
      const manager = await jetstreamManager(nc)
      const { state } = await manager.streams.info(stream)
      const out: Array<string> = []
      for (let seq = state.first_seq; seq <= state.last_seq && state.messages > 0; seq++) {
        const message = await manager.streams.getMessage(stream, { seq })
        out.push(message?.header.get("Nats-Msg-Id") ?? "")
      }
      return out
    }).pipe(Effect.retry({ times: 20, schedule: Schedule.spaced("250 millis") }), Effect.orDie)
    return { server, stream, ids }
  })
