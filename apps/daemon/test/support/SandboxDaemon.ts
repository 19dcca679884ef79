/**
 * The usual in-process setup of the admin and policy tests: the sandbox as the API, fake platforms as
 * sources, a daemon on a fresh SQLite file with no sinks unless given.
 */
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Sandbox } from "@warden/sandbox"
import type { QuotaPolicy } from "@warden/transport"
import { Layer } from "effect"
import type { SourceSpec } from "../../src/engine/Pipeline.ts"
import type { Sink } from "../../src/sinks/Sink.ts"
import { SinkList } from "../../src/sinks/SinkList.ts"
import type { ConfiguredModerator } from "../../src/admin/Moderators.ts"
import type * as Daemon from "../../src/Daemon.ts"
import type { StateLocation } from "../../src/Daemon.ts"
import { startDaemonInProcess } from "./InProcess.ts"
import { startPlatform } from "./TestPlatform.ts"

/** Starts the sandbox, `platforms` fake platforms and a daemon with the sources `sources` builds from their URLs. */
export const startSandboxDaemon = async (options: {
  readonly platforms?: number
  readonly sources: (platformUrls: ReadonlyArray<string>) => ReadonlyArray<SourceSpec>
  readonly sinks?: ReadonlyArray<Sink>
  /** Client-side quotas (`api.quotas`); default: none. */
  readonly quotas?: QuotaPolicy.Options
  /** Named moderators (`moderators` of the config file). */
  readonly moderators?: ReadonlyArray<ConfiguredModerator>
  /** The strike policy and appeal window (`authors`). */
  readonly authors?: Daemon.DaemonSpec["authors"]
  /** The state (default: a fresh SQLite file). */
  readonly state?: StateLocation
}) => {
  const sandbox = await Sandbox.startPromise()
  const platforms = await Promise.all(Array.from({ length: options.platforms ?? 1 }, () => startPlatform()))
  const sinks = options.sinks ?? []
  const stateFile = join(mkdtempSync(join(tmpdir(), "warden-test-")), "state.db")
  const daemon = await startDaemonInProcess(
    {
      state: options.state ?? { _tag: "sqlite", filename: stateFile },
      api: { apiKey: "sandbox-standard-key", baseUrls: { global: sandbox.url }, quotas: options.quotas },
      sources: options.sources(platforms.map((p) => p.url)),
      sinks: Layer.succeed(SinkList, sinks),
      sinkNames: sinks.map((s) => s.name),
      ...(options.authors === undefined ? {} : { authors: options.authors })
    },
    { moderators: options.moderators ?? [] }
  )
  return {
    sandbox,
    platforms,
    daemon,
    stateFile,
    close: async () => {
      await daemon.close()
      for (const p of platforms) await p.close()
      await sandbox.close()
    }
  }
}
