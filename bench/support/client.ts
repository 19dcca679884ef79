/**
 * What the client benchmarks share: the copy of `effect` the client packages resolve (the repository
 * root has none), the one request they send, and the Warden client sending it under load.
 */
import { createRequire } from "node:module"
import { pathToFileURL } from "node:url"
import { AnalyzeV1, V1Client } from "../../packages/v1/src/index.ts"
import { CHANNEL, KEY } from "./common.ts"

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

/**
 * The Warden v1 client on the API at `url`, and `load(until, concurrency)`: `concurrency` workers
 * sending `REQUEST` with `AnalyzeV1.text` until `until` (a `Date.now()` time), counting the answers
 * with a text analysis (`done`) and every other outcome (`errors`).
 */
export const v1Load = (url: string) => {
  const runtime = ManagedRuntime.make(
    V1Client.layerOptions({ apiKey: KEY, baseUrls: { global: url }, timeout: "10 seconds" })
  )
  const load = (until: number, concurrency: number) =>
    runtime.runPromise(
      Effect.gen(function* () {
        const analyze = yield* AnalyzeV1.AnalyzeV1
        let done = 0
        let errors = 0
        const worker = Effect.gen(function* () {
          while (Date.now() < until) {
            const result = yield* Effect.result(analyze.text(REQUEST))
            if (result._tag === "Success" && result.success.textAnalysis) done++
            else errors++
          }
        })
        yield* Effect.all(
          Array.from({ length: concurrency }, () => worker),
          { concurrency: "unbounded" }
        )
        return { done, errors }
      })
    )
  return { load, dispose: () => runtime.dispose() }
}
