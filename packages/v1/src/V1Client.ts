/**
 * Both v1 clients on one transport, in one layer: what a service or the daemon usually wants.
 */
import { Transport } from "@warden/transport"
import { Layer } from "effect"
import { AnalyzeV1 } from "./AnalyzeV1.ts"
import { FeedbackV1, type Options } from "./FeedbackV1.ts"

/** `AnalyzeV1` and `FeedbackV1` on a given `Transport` (share one transport with `@warden/legacy`). */
export const layer = (options: Options = {}) => Layer.mergeAll(AnalyzeV1.layer, FeedbackV1.layerOptions(options))

/** Both clients on a transport configured from the environment (`WARDEN_API_KEY`, `WARDEN_BASE_URL`, ...). */
export const layerConfig = (
  overrides: Parameters<typeof Transport.Transport.layerConfig>[0] = {},
  options: Options = {}
) => layer(options).pipe(Layer.provideMerge(Transport.Transport.layerConfig(overrides)))

/** Both clients on a transport configured in code. */
export const layerOptions = (input: Parameters<typeof Transport.Transport.layerOptions>[0], options: Options = {}) =>
  layer(options).pipe(Layer.provideMerge(Transport.Transport.layerOptions(input)))
