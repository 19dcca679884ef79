/**
 * Runs a connector briefly and returns its first events: `warden source preview` uses it to show a
 * user what a source config yields before running the daemon.
 *
 * @since 0.1.0
 */
import { Duration, Effect, Option, Stream } from "effect"
import type { Checkpoint } from "./Checkpoint.ts"
import { type Connector, makeSource } from "./Connector.ts"
import { ConnectorError } from "./ConnectorError.ts"
import type { SourceEvent } from "./SourceEvent.ts"

/** Options of {@link preview}. */
export interface PreviewOptions {
  /** Resume from this checkpoint instead of the start. */
  readonly from?: Checkpoint | undefined
  /** Stop waiting after this long and return what arrived (default 15 seconds). */
  readonly timeout?: Duration.Input | undefined
}

/**
 * Decodes `config` (the user's YAML as a plain value), starts the source and returns its first `limit`
 * events. A poll-based source (one with `pollOnce`) is read for one round and the preview ends there;
 * any other source (a gateway) until `limit` events or the timeout; `progress` events (a poll that found
 * nothing) are not returned. An upstream failure (an `error`
 * event: a 404, a page that is not a feed, a bad certificate) fails the preview with that error rather
 * than retrying until the timeout; the source is shut down before returning.
 */
export const preview = <Config>(
  connector: Connector<Config>,
  config: unknown,
  limit: number,
  options: PreviewOptions = {}
): Effect.Effect<ReadonlyArray<SourceEvent>, ConnectorError> =>
  Effect.scoped(
    Effect.gen(function* () {
      const source = yield* makeSource(connector, config)
      const from = options.from === undefined ? Option.none() : Option.some(options.from)
      const stream = source.pollOnce !== undefined ? source.pollOnce(from) : source.events(from)
      return yield* stream.pipe(
        Stream.mapEffect((event) =>
          event.kind === "error"
            ? Effect.fail(
                new ConnectorError({
                  source: event.source,
                  reason: event.reason,
                  retryable: true,
                  message: event.message
                })
              )
            : Effect.succeed(event)
        ),
        // A poll that found nothing says so with a `progress` event: nothing to show.
        Stream.filter((event) => event.kind !== "progress"),
        Stream.take(Math.max(0, limit)),
        Stream.interruptWhen(Effect.sleep(Duration.fromInputUnsafe(options.timeout ?? "15 seconds"))),
        Stream.runCollect
      )
    })
  )
