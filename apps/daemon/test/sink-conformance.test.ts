/**
 * The four built-in sinks (stdout, jsonl, webhook, sql), declared with the sink SDK, pass its
 * conformance kit: each against its real receiver (standard output, a file, an HTTP server on
 * loopback, a SQLite file), kill -9 of a delivering child process included where the sink can run in
 * one (stdout's receiver is the child's own stdout, the kit's channel: not there).
 */
import { mkdtempSync, readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll } from "@effect/vitest"
import { type Sink, SinkRecord } from "@warden/sink"
import { describeConformance, HttpReceiver } from "@warden/sink/testing"
import { Effect, Layer, ManagedRuntime, Schema } from "effect"
import { SqlClient } from "effect/sql"
import * as JsonlSink from "../src/sinks/JsonlSink.ts"
import * as SqlSink from "../src/sinks/SqlSink.ts"
import * as StdoutSink from "../src/sinks/StdoutSink.ts"
import * as WebhookSink from "../src/sinks/WebhookSink.ts"
import * as SqliteClient from "../src/state/SqliteClient.ts"
import { verdictRecord } from "./support/ItemRecords.ts"

/** A verdict record as the record step writes it, for the sinks that decode it (sql, stdout pretty). */
const record = (key: { source: string; reference: string; version: number }) =>
  JSON.stringify({ ...verdictRecord(key.reference), ...key })

const Key = Schema.Struct({ source: Schema.String, reference: Schema.String, version: Schema.Number })
const idOfLine = (line: string) => {
  try {
    return SinkRecord.deliveryId(Schema.decodeUnknownSync(Schema.fromJsonString(Key))(line))
  } catch {
    return undefined
  }
}

const dir = mkdtempSync(join(tmpdir(), "warden-sink-conformance-"))
const common = (sink: Sink.Sink) => ({ sink, record, timeout: "10 seconds" as const })

// stdout: what the sink writes to this process's standard output, read back by wrapping `write`.
const written: Array<string> = []
const write = process.stdout.write.bind(process.stdout)
process.stdout.write = ((chunk: string | Uint8Array, ...rest: Array<never>) => {
  const text = typeof chunk === "string" ? chunk : Buffer.from(chunk).toString()
  for (const line of text.split("\n")) {
    const id = idOfLine(line)
    if (id !== undefined) written.push(id)
  }
  return write(id(chunk), ...rest)
}) as typeof process.stdout.write
const id = <A>(a: A) => a
afterAll(() => {
  process.stdout.write = write
})

describeConformance("stdout", {
  ...common(StdoutSink.sink),
  setup: Effect.succeed({ config: { format: "json" }, downstream: { received: Effect.sync(() => [...written]) } })
})

// jsonl: the file's lines.
let files = 0
describeConformance("jsonl", {
  ...common(JsonlSink.sink),
  setup: Effect.sync(() => {
    const path = join(dir, `out-${++files}.jsonl`)
    return {
      config: { path },
      downstream: {
        received: Effect.sync(() =>
          readFileSync(path, "utf8")
            .split("\n")
            .flatMap((line) => idOfLine(line) ?? [])
        )
      }
    }
  }),
  child: { module: new URL("../src/sinks/JsonlSink.ts", import.meta.url).href }
})

// webhook: an HTTP server on loopback keeping each request's `x-warden-delivery` (repeats kept: the
// webhook is at-least-once, its receiver drops them by `webhook-id`).
describeConformance("webhook", {
  ...common(WebhookSink.sink),
  setup: Effect.map(HttpReceiver.make({ idHeader: "x-warden-delivery", dedupe: false }), (receiver) => ({
    config: { url: `${receiver.url}hook`, timeout: "2 seconds" },
    downstream: receiver,
    refuse: { permanent: HttpReceiver.refuse("permanent"), retryable: HttpReceiver.refuse("retryable") }
  })),
  child: { module: new URL("../src/sinks/WebhookSink.ts", import.meta.url).href }
})

// sql: the state database as a SQLite file, shared by the checks (each writes its own references).
const filename = join(dir, "state.db")
const runtime = ManagedRuntime.make(SqliteClient.layer({ filename }).pipe(Layer.orDie))
const sql = await runtime.runPromise(Effect.service(SqlClient.SqlClient))
afterAll(() => runtime.dispose())
describeConformance("sql", {
  ...common(SqlSink.sink),
  host: { name: "sql", sql },
  setup: Effect.succeed({
    config: {},
    downstream: {
      received: Effect.map(
        sql<{
          source: string
          reference: string
          version: number
        }>`SELECT source, reference, version FROM warden_verdicts`,
        (rows) => rows.map((r) => SinkRecord.deliveryId({ ...r, version: Number(r.version) }))
      )
    },
    // A text that is not a verdict record: the sink cannot fill its columns, for good.
    refuse: { permanent: (r: SinkRecord.SinkRecord) => ({ ...r, json: '{"not":"a record"}' }) }
  }),
  child: {
    module: new URL("../src/sinks/SqlSink.ts", import.meta.url).href,
    host: { module: new URL("./support/SqlSinkHost.ts", import.meta.url).href, args: { filename } }
  }
})
