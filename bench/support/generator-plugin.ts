/**
 * A `module:` connector plugin for the memory benchmark, written into the run's directory: it emits
 * `count` text items as fast as the daemon takes them (a backlog far larger than the API can drain).
 * It imports the daemon's own copy of `effect` by absolute URL, so it loads from any directory.
 */
import { writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { join } from "node:path"
import { pathToFileURL } from "node:url"
import { root } from "./common.ts"

/** Writes the plugin into `dir` and returns its path (for `sources[].module`). */
export const writeGeneratorPlugin = (dir: string): string => {
  const require = createRequire(join(root, "apps/daemon/package.json"))
  const effect = pathToFileURL(require.resolve("effect")).href
  const file = join(dir, "generator.mjs")
  writeFileSync(
    file,
    `import { Effect, Option, Schema, Stream } from ${JSON.stringify(effect)}
const WORDS = "the a of and to in is you that it he was for on are as with his they at be this have from or one had by word".split(" ")
const text = (i) => {
  const words = []
  for (let k = 0; k < 12 + (i % 13); k++) words.push(WORDS[(i * 31 + k * 7) % WORDS.length])
  return words.join(" ") + " #" + i
}
export const connector = {
  type: "generator",
  configSchema: Schema.Struct({ count: Schema.Int }),
  capabilities: { actions: [], duplicates: "never", contentTypes: ["text"] },
  make: (config) =>
    Effect.succeed({
      events: (from) => {
        const start = Option.isSome(from) ? Number(from.value) + 1 : 1
        return Stream.range(start, config.count).pipe(
          Stream.map((i) => ({ kind: "upsert", reference: "gen:" + i, checkpoint: i, content: { type: "text", text: text(i) } }))
        )
      }
    })
}
export default connector
`
  )
  return file
}
