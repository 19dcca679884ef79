/**
 * A `module:` sink plugin for the process tests: appends each record's JSON as a line to `file`, a
 * field marked `ConfigField.path` (so relative to the config file's directory), creating its directory.
 */
import { appendFileSync, mkdirSync } from "node:fs"
import { dirname } from "node:path"
import { ConfigField, DeliveryResult, Sink } from "@warden/sink"
import { Effect, Schema } from "effect"

export const sink = Sink.make({
  type: "testfile",
  configSchema: Schema.Struct({
    file: ConfigField.path(Schema.String, { description: "The file records are appended to" })
  }),
  delivery: "at-least-once",
  make: (config) =>
    Effect.succeed({
      deliver: (records) =>
        Effect.sync(() => {
          mkdirSync(dirname(config.file), { recursive: true })
          appendFileSync(config.file, records.map((r) => `${r.json}\n`).join(""))
          return DeliveryResult.all(records.length, DeliveryResult.delivered)
        })
    })
})

export default sink
