/** A NATS source running in the background of a test, against a real nats-server. */
import { Connector, type Source, SourceEvent } from "@warden/connector"
import { Effect, type Fiber, Option, type Scope, Stream } from "effect"
import { connector, NatsConnector } from "../../src/index.ts"
import { NatsServer } from "../../src/testing/index.ts"

/** Polls `check` every 20 ms until it holds, failing with `what` after `ms` (a hang guard, not a timing). */
export const waitUntil = (check: () => boolean | Promise<boolean>, what: () => string, ms = 15_000) =>
  Effect.gen(function* () {
    const deadline = Date.now() + ms
    while (!(yield* Effect.promise(async () => check()))) {
      if (Date.now() > deadline) return yield* Effect.die(new Error(`timed out waiting for ${what()}`))
      yield* Effect.sleep("20 millis")
    }
  })

/** A fresh stream `name` on `server` taking the subjects `<name>.>`; the source's config reads `<name>.items`. */
export const freshStream = (server: NatsServer.NatsServer, name: string, extra: Record<string, unknown> = {}) =>
  Effect.gen(function* () {
    yield* Effect.promise(() => NatsServer.createStream(server.url, { name, subjects: [`${name}.>`] }))
    const subject = `${name}.items`
    return {
      subject,
      durable: NatsConnector.defaultDurable(subject),
      config: {
        servers: [server.url],
        stream: name,
        subject,
        retry: { initial: "50 millis", max: "500 millis" },
        ...extra
      },
      publish: (bodies: ReadonlyArray<unknown>) =>
        Effect.promise(() => NatsServer.publish(server.url, subject, bodies)),
      info: () => NatsServer.consumerInfo(server.url, name, NatsConnector.defaultDurable(subject))
    }
  })

/** Starts a source from `config` (as a user writes it), collecting its events until the scope closes. */
export const run = (config: unknown): Effect.Effect<Running, never, Scope.Scope> =>
  Effect.gen(function* () {
    const source = yield* Connector.makeSource(connector, config).pipe(Effect.orDie)
    const events: Array<SourceEvent.SourceEvent> = []
    const fiber = yield* source.events(Option.none()).pipe(
      Stream.runForEach((event) => Effect.sync(() => events.push(event))),
      Effect.forkScoped
    )
    const upserts = () => events.filter((e): e is SourceEvent.Upsert => e.kind === "upsert")
    return {
      source,
      events,
      upserts,
      fiber,
      waitForUpserts: (count: number) =>
        waitUntil(
          () => upserts().length >= count || fiber.pollUnsafe() !== undefined,
          () => `${count} upserts (have ${upserts().length}: ${JSON.stringify(events.slice(-3))})`
        ).pipe(
          Effect.andThen(
            Effect.suspend(() =>
              fiber.pollUnsafe() === undefined ? Effect.void : Effect.die(new Error("the stream ended"))
            )
          )
        ),
      acknowledge: (event: SourceEvent.SourceEvent) =>
        SourceEvent.isItemEvent(event) ? source.acknowledge!(event.checkpoint) : Effect.void
    }
  })

/** A running source and what it emitted so far. */
export interface Running {
  readonly source: Source.Source
  readonly events: Array<SourceEvent.SourceEvent>
  readonly upserts: () => Array<SourceEvent.Upsert>
  readonly fiber: Fiber.Fiber<void, unknown>
  readonly waitForUpserts: (count: number) => Effect.Effect<void>
  readonly acknowledge: (event: SourceEvent.SourceEvent) => Effect.Effect<void>
}
