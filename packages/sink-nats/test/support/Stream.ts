/**
 * A real nats-server with a fresh stream for one test, and what the stream holds: the `Nats-Msg-Id` of
 * every message stored, in order.
 */
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
    // Read again while the server comes back after a restart.
    const ids = Effect.tryPromise(() => NatsServer.messages(server.url, stream, token)).pipe(
      Effect.map((stored) => stored.map((m) => m.msgId)),
      Effect.retry({ times: 20, schedule: Schedule.spaced("250 millis") }),
      Effect.orDie
    )
    return { server, stream, ids }
  })
