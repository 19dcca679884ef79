/**
 * Appends each verdict as one JSON line to a file, and fsyncs once per batch before the batch counts
 * as delivered: a verdict acknowledged to the outbox is on disk.
 */
import { mkdirSync } from "node:fs"
import { open } from "node:fs/promises"
import { dirname } from "node:path"
import { Effect } from "effect"
import type { Sink } from "./Sink.ts"

/** The jsonl sink, holding its file open for the scope's lifetime. */
export const make = (options: { readonly name: string; readonly path: string }) =>
  Effect.gen(function* () {
    mkdirSync(dirname(options.path), { recursive: true })
    const handle = yield* Effect.acquireRelease(
      Effect.promise(() => open(options.path, "a")),
      (h) => Effect.promise(() => h.close())
    )
    const sink: Sink = {
      name: options.name,
      type: "jsonl",
      batchSize: 512,
      maxAttempts: 10,
      deliver: (records) =>
        Effect.tryPromise(async () => {
          await handle.appendFile(records.map((r) => `${r.json}\n`).join(""))
          await handle.sync()
        }).pipe(
          Effect.match({
            onSuccess: () => records.map(() => undefined),
            onFailure: (error) => records.map(() => `cannot write ${options.path}: ${String(error.cause ?? error)}`)
          })
        )
    }
    return sink
  })
