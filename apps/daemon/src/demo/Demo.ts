/**
 * `warden demo` (= `pnpm start`): the whole product on one machine with no setup — the in-process
 * sandbox, a local server with the bundled demo comments, the RSS connector polling it, the pipeline
 * on a fresh SQLite file, the stdout sink, and the admin API — until Ctrl-C.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { randomBytes } from "node:crypto"
import { connector as rss } from "@warden/connector-rss"
import { Sandbox } from "@warden/sandbox"
import { Console, Effect, Layer, Redacted, Schema } from "effect"
import { AdminServer } from "../admin/AdminServer.ts"
import * as Daemon from "../Daemon.ts"
import type { Sink } from "../sinks/Sink.ts"
import { SinkList } from "../sinks/SinkList.ts"
import * as StdoutSink from "../sinks/StdoutSink.ts"
import * as DemoComments from "./DemoComments.ts"
import * as DemoFeedServer from "./DemoFeedServer.ts"

/** The analysis channel of the demo source. */
export const DEMO_CHANNEL = "7f1c7a2e-3d4b-4c5d-8e9f-0a1b2c3d4e5f"

/** Options of the demo (the CLI exposes a few). */
export interface DemoOptions {
  readonly adminPort: number
  readonly format: StdoutSink.Format
  /** Where the demo keeps its state; a fresh temporary directory by default, removed on exit. */
  readonly stateDir?: string | undefined
}

/** The sink, counting what it delivered (for the line the demo prints when it stops). */
const counted = (sink: Sink, counts: { verdicts: number }): Sink => ({
  ...sink,
  deliver: (records) =>
    Effect.tap(sink.deliver(records), (results) =>
      Effect.sync(() => {
        counts.verdicts += results.filter((result) => result === undefined).length
      })
    )
})

/** Runs the demo until interrupted. */
export const run = (options: DemoOptions) =>
  Effect.gen(function* () {
    const stateDir =
      options.stateDir ??
      (yield* Effect.acquireRelease(
        Effect.sync(() => mkdtempSync(join(tmpdir(), "warden-demo-"))),
        (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
      ))
    // Added first, so it runs last: after the daemon's final drain has printed what it could.
    const printed = { verdicts: 0 }
    yield* Effect.addFinalizer(() =>
      Console.error(
        `\nwarden demo stopped: ${printed.verdicts} verdicts printed; the demo's state was ${options.stateDir === undefined ? "removed" : `kept in ${options.stateDir}`}.`
      )
    )
    const sandbox = yield* Sandbox.start({ port: 0 })
    const feed = yield* DemoFeedServer.start({
      comments: DemoComments.comments,
      initial: 12,
      step: 6,
      everyMillis: 2000
    })
    const token = Redacted.make(randomBytes(18).toString("base64url"), { label: "admin token" })
    const spec: Daemon.DaemonSpec = {
      state: { _tag: "sqlite", filename: join(stateDir, "state.db") },
      api: { apiKey: "sandbox-standard-key", baseUrls: { global: sandbox.url }, legacyBaseUrl: sandbox.url },
      sources: [
        {
          settings: {
            id: "demo",
            connector: "rss",
            channelId: DEMO_CHANNEL,
            mode: "v1",
            analyse: new Set(["text"]),
            oversize: "split",
            dryRun: false
          },
          connector: rss,
          config: Schema.decodeUnknownSync(rss.configSchema)({
            feeds: [{ url: feed.url, id: "gazette", content: "comments" }],
            pollInterval: "1 second",
            retry: { initial: "1 second", max: "10 seconds" }
          })
        }
      ],
      sinks: Layer.succeed(SinkList, [counted(StdoutSink.make({ name: "stdout", format: options.format }), printed)]),
      sinkNames: ["stdout"],
      admin: { host: "127.0.0.1", port: options.adminPort, token },
      // The demo's comments are our own, on loopback: showing them is the point.
      contentSinks: ["stdout"]
    }
    yield* Effect.gen(function* () {
      const admin = yield* AdminServer
      yield* Console.error(
        [
          "warden demo: the sandbox API, a demo comments feed and the pipeline, all on this machine.",
          `  sandbox API   ${sandbox.url}`,
          `  demo feed     ${feed.url}`,
          `  console       ${Redacted.value(admin.consoleUrl)}`,
          `  admin API     ${admin.url}  (Authorization: Bearer ${Redacted.value(token)})`,
          `  try           curl -H 'Authorization: Bearer ${Redacted.value(token)}' ${admin.url}/api/decisions?limit=5`,
          "Verdicts follow. Ctrl-C stops.",
          ""
        ].join("\n")
      )
      return yield* Effect.never
    }).pipe(Effect.provide(Daemon.layer(spec)))
  }).pipe(Effect.scoped)
