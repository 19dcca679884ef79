/**
 * The services of a Promise client on the transport: loaded by `PromiseClient.Runtime` when a client
 * is made (it builds its runtime in the background), so that importing a Promise client does not load
 * the transport and the schemas it decodes with.
 */
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as References from "effect/References"
import { ApiConfig, type Shape } from "../ApiConfig.ts"
import type { HttpDispatcher } from "../HttpDispatcher.ts"
import { type ClientLogger, type ClientLogLevel, LOG_LEVELS } from "../PromiseClient.ts"
import { Transport } from "../Transport.ts"

const format = (message: unknown): string =>
  Array.isArray(message) ? message.map((m) => (typeof m === "string" ? m : String(m))).join(" ") : String(message)

const loggerLayer = (logger: ClientLogger, level: ClientLogLevel) =>
  Layer.mergeAll(
    Logger.layer([
      Logger.make(({ logLevel, message }) => {
        const text = format(message)
        if (logLevel === "Error" || logLevel === "Fatal") logger.error(text)
        else if (logLevel === "Warn") logger.warn(text)
        else if (logLevel === "Info") logger.info(text)
        else logger.debug(text)
      })
    ]),
    Layer.succeed(References.MinimumLogLevel, LOG_LEVELS[level])
  )

/** `services` on a transport with these settings, on `dispatcher`, logging to `logger`. */
export const clientLayer = <R>(
  services: Layer.Layer<R, never, Transport>,
  config: Shape,
  dispatcher: Layer.Layer<HttpDispatcher>,
  logger: ClientLogger,
  level: ClientLogLevel
) =>
  services.pipe(
    Layer.provideMerge(Transport.layer),
    Layer.provideMerge(Layer.succeed(ApiConfig, config)),
    Layer.provide(dispatcher),
    Layer.provideMerge(loggerLayer(logger, level))
  )
