/**
 * `@warden/connector-youtube`: the YouTube comments connector of Warden.
 *
 * @since 0.1.0
 */

/** One poll: threads, replies, dedupe, edits, video titles. */
export * as CommentPoller from "./CommentPoller.ts"

/** Moderation actions with batching, and reversal detection. */
export * as Moderation from "./Moderation.ts"

/** OAuth access tokens from a refresh token. */
export * as OAuth from "./OAuth.ts"

/** The daily quota budget (midnight Pacific) and its gauge. */
export * as QuotaBudget from "./QuotaBudget.ts"

/** Schemas of the YouTube Data API answers. */
export * as YouTubeApi from "./YouTubeApi.ts"

/** The checkpoint schema. */
export * as YouTubeCheckpoint from "./YouTubeCheckpoint.ts"

/** The Data API client: auth, quota counting, decoding, errors. */
export * as YouTubeClient from "./YouTubeClient.ts"

/** The config schema. */
export * as YouTubeConfig from "./YouTubeConfig.ts"

/** The connector, its source and layers. */
export * as YouTubeConnector from "./YouTubeConnector.ts"

/** The connector definition, under the name the registry looks for. */
export { connector, layer, layerConfig, make } from "./YouTubeConnector.ts"
