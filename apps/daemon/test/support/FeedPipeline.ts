/**
 * The pieces of an in-process daemon spec the pipeline tests share: an `rss` source on a test feed, a
 * jsonl sink, and the records that sink wrote.
 */
import { existsSync, readFileSync } from "node:fs"
import { connector as rss } from "@warden/connector-rss"
import { Effect, Layer, Schema } from "effect"
import type { SourceSpec } from "../../src/engine/Pipeline.ts"
import type { SourceSettings } from "../../src/domain/SourceSettings.ts"
import * as JsonlSink from "../../src/sinks/JsonlSink.ts"
import { SinkList } from "../../src/sinks/SinkList.ts"
import { sourceSettings } from "./TestPlatform.ts"

/** An `rss` source (id `feed`, v1, text) whose `config` the connector's schema decodes; `settings` override the defaults. */
export const rssSource = (config: unknown, settings: Partial<SourceSettings> = {}): SourceSpec => ({
  settings: sourceSettings("feed", "rss", settings),
  connector: rss,
  config: Schema.decodeUnknownSync(rss.configSchema)(config)
})

/** One jsonl sink named `jsonl` writing to `path`: the `sinks` and `sinkNames` of a daemon spec. */
export const jsonlSink = (path: string) => ({
  sinks: Layer.effect(
    SinkList,
    Effect.map(JsonlSink.make({ name: "jsonl", path }), (s) => [s])
  ),
  sinkNames: ["jsonl"]
})

/** The records in a jsonl file, complete lines only (the last one may still be being written); [] before the file exists. */
export const jsonlRecords = <A = any>(path: string): Array<A> =>
  existsSync(path)
    ? readFileSync(path, "utf8")
        .split("\n")
        .slice(0, -1)
        .filter((l) => l.trim() !== "")
        .map((l) => JSON.parse(l) as A)
    : []
