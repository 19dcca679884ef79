/**
 * `@warden/connector-http`: the push source of Warden, an HTTP listener (`POST /v1/items`,
 * `POST /v1/check`, `GET /openapi.json`).
 *
 * @since 0.1.0
 */

/** Bearer tokens and Standard Webhooks signatures. */
export * as Authentication from "./Authentication.ts"

/** The error envelopes (the API's own). */
export * as Envelope from "./Envelope.ts"

/** The config schema. */
export * as HttpConfig from "./HttpConfig.ts"

/** The connector. */
export * as HttpConnector from "./HttpConnector.ts"

/** The posted item and its per-field problems. */
export * as ItemInput from "./ItemInput.ts"

/** The listener. */
export * as Listener from "./Listener.ts"

/** The OpenAPI document of the routes. */
export * as OpenApi from "./OpenApi.ts"

/** Per-client rate limits. */
export * as RateLimit from "./RateLimit.ts"

/** The connector definition, under the name the registry looks for. */
export { connector } from "./HttpConnector.ts"
