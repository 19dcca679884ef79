/**
 * Appends each verdict as one JSON line to a file, and fsyncs once per batch before the batch counts
 * as delivered: a verdict acknowledged to the outbox is on disk.
 *
 * The file only ever holds whole lines. A batch is one append; when it fails part-way (a full disk, a
 * quota, an I/O error: the kernel takes what fits, then refuses the rest) or its fsync fails, the file
 * is cut back to its size before the batch, and the whole batch fails: its retry writes it whole, once.
 * Before, the cut record stayed, the next line was appended to it (one malformed line, so a record lost
 * to a line reader) and the batch's complete lines were written again (9 to 15 duplicates, issue 35).
 * A partial last line left by a crash mid-write is cut at start: its record is still in the outbox,
 * and goes again.
 */
import { type FileHandle, open } from "node:fs/promises"
import { ConfigField, DeliveryResult, Sink as Plugin, SinkError } from "@warden/sink"
import { Effect, Schema } from "effect"
import * as Directories from "../state/Directories.ts"
import { codeOf, describeErrno } from "../state/Errno.ts"
import * as PluginSink from "./PluginSink.ts"

/** A jsonl sink's settings. */
export interface Options {
  readonly name: string
  readonly path: string
  /** The config path of `path` (`sinks.0.path`), which its failures name. */
  readonly setting?: string | undefined
  /** Opens the file for reading and appending (default `open(path, "a+")`): a test gives a handle that fails. */
  readonly open?: ((path: string) => Promise<FileHandle>) | undefined
}

const NEWLINE = 0x0a

/**
 * Where the file's last whole line ends: its size when it ends with a newline (or is empty), else just
 * after the last newline (0 when it has none). Reads back from the end, 64 KiB at a time.
 */
const lastLineEnd = async (handle: FileHandle): Promise<number> => {
  const { size } = await handle.stat()
  const chunk = Buffer.alloc(Math.min(size, 64 * 1024))
  let end = size
  while (end > 0) {
    const start = Math.max(0, end - chunk.length)
    const { bytesRead } = await handle.read(chunk, 0, end - start, start)
    const at = chunk.subarray(0, bytesRead).lastIndexOf(NEWLINE)
    if (at >= 0) return start + at + 1
    end = start
  }
  return 0
}

/** The jsonl sink's config (besides `type`, `name` and `content`). */
export const Config = Schema.Struct({
  path: ConfigField.path(Schema.String.check(Schema.isNonEmpty()), {
    description: "The file verdicts are appended to"
  })
})

/** The jsonl sink, holding its file open for the scope's lifetime. Fails when the file cannot be opened. */
export const openFile = (options: Options) =>
  Effect.gen(function* () {
    yield* Directories.ensureParentOf(options.path)
    const handle = yield* Effect.acquireRelease(
      Effect.tryPromise({
        try: () => (options.open ?? ((path: string) => open(path, "a+")))(options.path),
        catch: (e) => e as NodeJS.ErrnoException
      }),
      (h) => Effect.promise(() => h.close())
    )
    // A regular file can be cut back; a device or a pipe (`/dev/stdout`) is written as it is.
    const regular = yield* Effect.tryPromise({
      try: async () => (await handle.stat()).isFile(),
      catch: (e) => e as NodeJS.ErrnoException
    })
    const cut = yield* Effect.tryPromise({
      try: async () => {
        if (!regular) return 0
        const { size } = await handle.stat()
        const end = await lastLineEnd(handle)
        if (end < size) await handle.truncate(end)
        return size - end
      },
      catch: (e) => e as NodeJS.ErrnoException
    })
    if (cut > 0) {
      yield* Effect.logWarning(
        `${options.path}: cut a partial last line (${cut} bytes) an interrupted write left; its verdict is delivered again`
      ).pipe(Effect.annotateLogs({ sink: options.name }))
    }
    /** Set when a failed batch could not be cut back: the size to cut to before anything else is written. */
    let cutTo: number | undefined
    const append = async (text: string) => {
      if (!regular) {
        await handle.appendFile(text)
        return
      }
      if (cutTo !== undefined) {
        await handle.truncate(cutTo)
        cutTo = undefined
      }
      const before = (await handle.stat()).size
      try {
        await handle.appendFile(text)
        await handle.sync()
      } catch (error) {
        cutTo = before
        await handle.truncate(before).then(
          () => {
            cutTo = undefined
          },
          () => undefined
        )
        throw error
      }
    }
    const failure = (error: unknown): string => {
      const code = codeOf(error)
      const what = `cannot write ${options.path}: ${describeErrno(code, error instanceof Error ? error.message : String(error))}${code === undefined ? "" : ` (${code})`}`
      return options.setting === undefined ? what : `${options.setting}: ${what}`
    }
    const deliverer: Plugin.Deliverer = {
      // The batch lands whole or not at all: one result for all its records.
      deliver: (records) =>
        Effect.tryPromise(() => append(records.map((r) => `${r.json}\n`).join(""))).pipe(
          Effect.match({
            onSuccess: () => DeliveryResult.all(records.length, DeliveryResult.delivered),
            onFailure: (error) =>
              DeliveryResult.all(records.length, DeliveryResult.retryable(failure(error.cause ?? error)))
          })
        )
    }
    return deliverer
  })

/** The jsonl sink, declared with the sink SDK: a file that cannot be opened fails the start, naming `path`. */
export const sink = Plugin.make({
  type: "jsonl",
  configSchema: Config,
  delivery: "at-least-once",
  batchSize: 512,
  make: (config, host) =>
    openFile({ name: host.name, path: config.path, setting: host.setting("path") }).pipe(
      Effect.mapError(
        (error) =>
          new SinkError({
            sink: "jsonl",
            setting: host.setting("path"),
            message: `cannot open ${config.path}: ${error instanceof Error ? error.message : String(error)}`,
            cause: error
          })
      )
    )
})

/** The jsonl sink as the worker drives it (tests'). */
export const make = (options: Options) =>
  Effect.map(openFile(options), (deliverer) => PluginSink.of(sink, deliverer, { name: options.name }))
