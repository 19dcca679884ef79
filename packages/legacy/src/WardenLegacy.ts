/**
 * The Promise client of the legacy batch endpoint, for services that do not use Effect:
 *
 * ```ts
 * const legacy = new WardenLegacy() // WARDEN_API_KEY (or WARDEN_LEGACY_API_KEY), WARDEN_LEGACY_BASE_URL
 * const { data, errors } = await legacy.analyze(channelUuid, messages, { signal })
 * await legacy.close()
 * ```
 *
 * Its own package's client (`@warden/v1` does not depend on `@warden/legacy`); same options, errors
 * and runtime model as `Warden`: one runtime per client, built in the background once made.
 */
import { endpointLabel } from "@warden/core/endpoints"
import * as PromiseClient from "@warden/transport/promise"
import type { LegacyMessageOnWire } from "@warden/core/client"
import * as Context from "effect/Context"
import { type BatchResult, type BatchResultWithRequests, LegacyBatch, type Options } from "./LegacyBatch.ts"

/** Options of `new WardenLegacy(...)`: the legacy base URL defaults to `WARDEN_LEGACY_BASE_URL`. */
export interface WardenLegacyOptions extends PromiseClient.ClientOptions, Options {}

/** Options of one call: `signal`, `timeout` (ms, the whole batch), `maxRetries` (per chunk), `requestId`. */
export type RequestOptions = PromiseClient.RequestOptions

const LABEL = endpointLabel("legacyAnalyze")

/** The legacy batch client for Promise code. Server-side only, like `Warden`. */
export class WardenLegacy {
  readonly #runtime: PromiseClient.Runtime<LegacyBatch>

  /** Checks the options at once (`WardenConfigError` naming the option and its variable). */
  constructor(options: WardenLegacyOptions = {}) {
    this.#runtime = new PromiseClient.Runtime(
      LegacyBatch.layerOptions({ chunkSize: options.chunkSize, concurrency: options.concurrency }),
      options,
      PromiseClient.resolve(options, "legacy")
    )
  }

  /**
   * Analyses any number of messages of one channel: checked locally, sent in calls of at most 100,
   * merged into one `{ data, errors }` whose positions index `messages`.
   */
  analyze(
    channelUuid: string,
    messages: ReadonlyArray<LegacyMessageOnWire>,
    options?: RequestOptions
  ): Promise<BatchResult> {
    return this.#runtime.run(LABEL, (s) => Context.get(s, LegacyBatch).analyze(channelUuid, messages), options, "many")
  }

  /** `analyze`, also returning each call's exact body, positions, request id and attempts. */
  analyzeWithRequests(
    channelUuid: string,
    messages: ReadonlyArray<LegacyMessageOnWire>,
    options?: RequestOptions
  ): Promise<BatchResultWithRequests> {
    return this.#runtime.run(
      LABEL,
      (s) => Context.get(s, LegacyBatch).analyzeWithRequests(channelUuid, messages),
      options,
      "many"
    )
  }

  /** Closes the connection pool; later calls reject with `WardenError` code `CLIENT_CLOSED`. */
  close(): Promise<void> {
    return this.#runtime.close()
  }

  /** `await using legacy = new WardenLegacy()` closes it at the end of the block. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close()
  }
}
