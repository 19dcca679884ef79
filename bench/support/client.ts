/**
 * What the client benchmarks share: the copy of `effect` the client packages resolve (the repository
 * root has none) and the one request they send.
 */
import { createRequire } from "node:module"
import { pathToFileURL } from "node:url"
import { CHANNEL } from "./common.ts"

const fromV1 = createRequire(new URL("../../packages/v1/package.json", import.meta.url))
/** `effect` as `@warden/v1` resolves it. */
export const { Effect, ManagedRuntime } = (await import(
  pathToFileURL(fromV1.resolve("effect")).href
)) as typeof import("../../packages/v1/node_modules/effect/dist/index.js")

/** The request body every client call sends (an insult, directed: a full verdict to decode). */
export const REQUEST = {
  channelId: CHANNEL,
  text: "you are such an idiot, I will find you",
  author: { username: "bob" }
} as const
