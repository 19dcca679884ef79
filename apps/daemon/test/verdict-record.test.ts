/**
 * Records a receiver can use (issue 38, issue 37's "sink records carry the author"): each verdict
 * record carries where the item is (permalink, post, author with its key, the platform's ids, times
 * as ISO strings) and never the content text unless that sink's entry says `content: true`. Every
 * built-in sink (stdout json, jsonl, webhook to a loopback receiver, sql), fed by the engine's own
 * record step and the sink worker, writes records that the published JSON Schema
 * (schema/verdict-record.schema.json, checked current here) accepts, validated with Ajv. A record
 * queued by an older daemon (no locator) still decodes.
 */
import { mkdtempSync, readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Ajv2020 } from "ajv/dist/2020.js"
import { Effect, Layer, Redacted, Result } from "effect"
import { SqlClient } from "effect/sql"
import { afterEach, vi } from "vitest"
import type { Outcome } from "../src/domain/Outcome.ts"
import type { Work } from "../src/engine/Dedupe.ts"
import * as Recording from "../src/engine/Record.ts"
import * as JsonlSink from "../src/sinks/JsonlSink.ts"
import * as QueuedRecord from "../src/sinks/QueuedRecord.ts"
import * as RecordJsonSchema from "../src/sinks/RecordJsonSchema.ts"
import * as SinkWorker from "../src/sinks/SinkWorker.ts"
import * as SqlSink from "../src/sinks/SqlSink.ts"
import * as StdoutSink from "../src/sinks/StdoutSink.ts"
import * as WebhookSink from "../src/sinks/WebhookSink.ts"
import { ItemStore } from "../src/state/ItemStore.ts"
import * as SqliteClient from "../src/state/SqliteClient.ts"
import * as StateStore from "../src/state/StateStore.ts"
import { hateful } from "./support/ItemRecords.ts"
import { bodyOf, serve } from "./support/LoopbackServer.ts"
import { sourceSettings } from "./support/TestPlatform.ts"
import { eventually } from "./support/TestTime.ts"

const schema = JSON.parse(readFileSync(RecordJsonSchema.FILE, "utf8"))
const validate = new Ajv2020({ allErrors: true, strict: true, validateFormats: false }).compile(schema)

const failed: Outcome = {
  status: "failed",
  endpoint: "/analyze/v1/text",
  request: "{}",
  error: { code: "INVALID_ARGUMENT", message: "text: too long" }
}

/** A Discord message in a forum thread, as the Discord connector emits it (MessageMapper). */
const discordMessage: Work = {
  event: {
    kind: "upsert",
    reference: "discord:100/200/300",
    content: { type: "text", text: "the discord words" },
    publishedAt: "2026-11-28T10:00:00.123+01:00",
    permalink: "https://discord.com/channels/100/200/300",
    author: { identifier: "4242", username: "ada" },
    post: { title: "A thread", reference: "discord:100/200/200", permalink: "https://discord.com/channels/100/200" },
    platformIds: { guild: "100", channel: "200", message: "300" }
  },
  version: 1,
  contentHash: "h1"
}
/** A YouTube comment (CommentPoller). */
const youtubeComment: Work = {
  event: {
    kind: "upsert",
    reference: "youtube:Ugx1",
    content: { type: "text", text: "the youtube words" },
    publishedAt: "2026-11-27T09:08:07Z",
    permalink: "https://www.youtube.com/watch?v=vid1&lc=Ugx1",
    author: {
      identifier: "UCabc",
      username: "@bob",
      permalink: "http://www.youtube.com/channel/UCabc"
    },
    post: { title: "A video", reference: "vid1", permalink: "https://www.youtube.com/watch?v=vid1" },
    platformIds: { video: "vid1", comment: "Ugx1" }
  },
  version: 2,
  contentHash: "h2"
}
/** An RSS comment with an RFC 822 date and no author identifier. */
const rssComment: Work = {
  event: {
    kind: "upsert",
    reference: "rss:feed/abc",
    content: { type: "text", text: "the rss words" },
    publishedAt: "Sat, 28 Nov 2026 08:00:00 GMT",
    author: { username: "Carol" },
    post: { title: "An article", publishedAt: "not a date" }
  },
  version: 1,
  contentHash: "h3"
}

const discord = sourceSettings("guild", "discord", { platform: "discord" })
const youtube = sourceSettings("channel", "youtube", { platform: "youtube" })
const rss = sourceSettings("feed", "rss")

afterEach(() => {
  vi.restoreAllMocks()
})

describe("the published JSON Schema of the verdict record", () => {
  it("is the one the Effect Schema generates (pnpm --filter @warden/daemon schema:record)", () => {
    assert.deepStrictEqual(JSON.parse(readFileSync(RecordJsonSchema.FILE, "utf8")), RecordJsonSchema.make())
  })

  it("is shipped in the package", () => {
    const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"))
    assert.include(pkg.files, "schema")
    assert.strictEqual(pkg.exports["./verdict-record.schema.json"], "./schema/verdict-record.schema.json")
  })
})

describe("a verdict record's locator", () => {
  const options = { sinks: ["hook", "file"], contentSinks: ["file"] }
  const recordOf = (entry: ReturnType<typeof Recording.entryOf>, sink: string) =>
    JSON.parse(entry.content?.sinks.includes(sink) ? entry.content.payload : entry.payload)

  it("carries the permalink, post, author (identifier, username, key), platform ids and ISO times", () => {
    const entry = Recording.entryOf(options, discord, discordMessage, hateful, Date.UTC(2026, 10, 28, 12))
    const record = recordOf(entry, "hook")
    assert.deepStrictEqual(
      {
        platform: record.platform,
        permalink: record.permalink,
        publishedAt: record.publishedAt,
        post: record.post,
        author: record.author,
        platformIds: record.platformIds,
        analysedAt: record.analysedAt
      },
      {
        platform: "discord",
        permalink: "https://discord.com/channels/100/200/300",
        publishedAt: "2026-11-28T09:00:00.123Z",
        post: {
          title: "A thread",
          reference: "discord:100/200/200",
          permalink: "https://discord.com/channels/100/200"
        },
        author: { identifier: "4242", username: "ada", key: "discord:4242" },
        platformIds: { guild: "100", channel: "200", message: "300" },
        analysedAt: "2026-11-28T12:00:00.000Z"
      }
    )
    const yt = recordOf(Recording.entryOf(options, youtube, youtubeComment, hateful, 0), "hook")
    assert.deepStrictEqual(yt.platformIds, { video: "vid1", comment: "Ugx1" })
    assert.deepStrictEqual(yt.author, {
      identifier: "UCabc",
      username: "@bob",
      key: "youtube:UCabc",
      permalink: "http://www.youtube.com/channel/UCabc"
    })
  })

  it("an RFC 822 date becomes an ISO time; one that is not a date is left out, as is an author without identifier's key", () => {
    const record = recordOf(Recording.entryOf(options, rss, rssComment, hateful, 0), "hook")
    assert.strictEqual(record.publishedAt, "2026-11-28T08:00:00.000Z")
    assert.deepStrictEqual(record.post, { title: "An article" })
    assert.deepStrictEqual(record.author, { username: "Carol" })
  })

  it("holds the content text only in the records of a sink whose entry says content: true", () => {
    const entry = Recording.entryOf(options, discord, discordMessage, hateful, 0)
    assert.notInclude(entry.payload, "the discord words")
    assert.strictEqual(recordOf(entry, "hook").text, undefined)
    assert.strictEqual(recordOf(entry, "file").text, "the discord words")
    // No content sink: no copy of the text is made at all.
    const none = Recording.entryOf({ sinks: ["hook", "file"] }, discord, discordMessage, hateful, 0)
    assert.strictEqual(none.content, undefined)
    // A rule that sends the item to the other sink only: no content copy either.
    assert.strictEqual(
      Recording.entryOf({ sinks: ["hook"], contentSinks: ["file"] }, discord, discordMessage, hateful, 0).content,
      undefined
    )
  })

  it("a record an older daemon queued (no locator, its text from log.content) still decodes", () => {
    const old = `{"source":"s","reference":"rss:f/1","version":1,"status":"analysed","contentType":"text","mode":"v1","verdict":{"type":"NEUTRAL","classifications":[]},"permalink":"https://example.com/1","text":"hello","segments":1,"analysedAt":"2026-01-01T00:00:00.000Z","dryRun":false}`
    const decoded = QueuedRecord.decode({ source: "s", reference: "rss:f/1", version: 1, json: old })
    assert.isTrue(Result.isSuccess(decoded))
    assert.isTrue(validate(JSON.parse(old)), JSON.stringify(validate.errors))
  })

  it("the schema refuses what a receiver could not use: a time that is not ISO, a version that is not an integer", () => {
    const entry = Recording.entryOf(options, discord, discordMessage, hateful, 0)
    const record = JSON.parse(entry.payload)
    assert.isTrue(validate(record), JSON.stringify(validate.errors))
    assert.isFalse(validate({ ...record, analysedAt: "Sat, 28 Nov 2026 08:00:00 GMT" }))
    assert.isFalse(validate({ ...record, version: 1.5 }))
    assert.isFalse(validate({ ...record, author: { identifier: "4242" } }))
  })
})

describe("every built-in sink's output", () => {
  it.live(
    "validates against the published schema: stdout json, jsonl, webhook (loopback receiver), sql; text only where content: true",
    () =>
      Effect.gen(function* () {
        const bodies: Array<string> = []
        const url = yield* serve((req, res) => {
          void bodyOf(req).then((body) => {
            bodies.push(body.toString("utf8"))
            res.writeHead(204)
            res.end()
          })
        })
        const printed: Array<string> = []
        vi.spyOn(process.stdout, "write").mockImplementation(((chunk: string, ...rest: Array<unknown>) => {
          printed.push(String(chunk))
          const done = rest.find((r) => typeof r === "function") as ((error?: Error) => void) | undefined
          done?.()
          return true
        }) as typeof process.stdout.write)
        const path = join(mkdtempSync(join(tmpdir(), "warden-record-")), "out.jsonl")
        const sinks = [
          StdoutSink.make({ name: "stdout", format: "json" }),
          yield* JsonlSink.make({ name: "jsonl", path }),
          WebhookSink.make({ name: "hook", url: `${url}/in`, secret: Redacted.make("s3cret") }),
          yield* SqlSink.make({ name: "sql" })
        ]
        const options = { sinks: sinks.map((s) => s.name), contentSinks: ["jsonl"] }
        const items = yield* ItemStore
        yield* items.recordItems([
          Recording.entryOf(options, discord, discordMessage, hateful, Date.UTC(2026, 10, 28)),
          Recording.entryOf(options, youtube, youtubeComment, failed, Date.UTC(2026, 10, 28)),
          Recording.entryOf(options, rss, rssComment, hateful, Date.UTC(2026, 10, 28))
        ])
        for (const sink of sinks) yield* Effect.forkScoped(SinkWorker.run(sink))
        const sql = yield* SqlClient.SqlClient
        yield* eventually(
          Effect.map(sql<{ n: number }>`SELECT COUNT(*) AS n FROM warden_outbox`, ([row]) => Number(row?.n) === 0),
          "every sink delivered"
        )
        const outputs = {
          stdout: printed
            .join("")
            .split("\n")
            .filter((l) => l !== ""),
          jsonl: readFileSync(path, "utf8")
            .split("\n")
            .filter((l) => l !== ""),
          hook: bodies,
          sql: (yield* sql<{ record: string }>`SELECT record FROM warden_verdicts ORDER BY reference`).map(
            (r) => r.record
          )
        }
        for (const [sink, lines] of Object.entries(outputs)) {
          assert.strictEqual(lines.length, 3, `${sink}: three records`)
          for (const line of lines) {
            const record = JSON.parse(line)
            assert.isTrue(validate(record), `${sink}: ${JSON.stringify(validate.errors)}`)
            assert.strictEqual(record.text !== undefined, sink === "jsonl", `${sink}: text only with content: true`)
          }
        }
        const byReference = new Map(outputs.hook.map((l) => [JSON.parse(l).reference, JSON.parse(l)]))
        assert.deepStrictEqual(byReference.get("discord:100/200/300")?.author, {
          identifier: "4242",
          username: "ada",
          key: "discord:4242"
        })
        assert.deepStrictEqual(byReference.get("youtube:Ugx1")?.error, {
          code: "INVALID_ARGUMENT",
          message: "text: too long"
        })
      }).pipe(
        Effect.scoped,
        Effect.provide(
          StateStore.layer.pipe(
            Layer.provideMerge(
              SqliteClient.layer({ filename: join(mkdtempSync(join(tmpdir(), "warden-record-")), "state.db") })
            ),
            Layer.orDie
          )
        )
      ),
    30_000
  )
})
