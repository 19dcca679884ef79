/**
 * V8's worker pool sized to the machine (V8Pool.ts): which starts of `warden` start again with
 * `--v8-pool-size`, and that a real `warden run` on this machine does so as one process (its PID, its
 * V8 worker threads counted in /proc).
 */
import { mkdtempSync, readdirSync, readFileSync } from "node:fs"
import { availableParallelism, tmpdir } from "node:os"
import { join } from "node:path"
import { Sandbox } from "@warden/sandbox"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as V8Pool from "../src/V8Pool.ts"
import { idleFeedSource, startDaemon, waitFor, writeConfig } from "./support/DaemonProcess.ts"

let sandbox: Awaited<ReturnType<typeof Sandbox.startPromise>>
beforeAll(async () => {
  sandbox = await Sandbox.startPromise({})
})
afterAll(() => sandbox.close())

const started = (over: Partial<V8Pool.Started> = {}): V8Pool.Started => ({
  execArgv: ["--conditions=@warden/source"],
  argv: ["/usr/bin/node", "/opt/warden/bin.js", "run", "--config", "warden.yaml"],
  nodeOptions: undefined,
  cores: 2,
  ...over
})

describe("V8Pool", () => {
  it("one worker per core beside the main thread, from 1 to Node's own 4", () => {
    expect([1, 2, 3, 4, 5, 8, 64].map(V8Pool.forCores)).toEqual([1, 1, 2, 3, 4, 4, 4])
  })

  it("`warden run` on a small machine starts again with the pool size first, keeping Node's options and the arguments", () => {
    expect(V8Pool.restartArguments(started())).toEqual([
      "--v8-pool-size=1",
      "--conditions=@warden/source",
      "/opt/warden/bin.js",
      "run",
      "--config",
      "warden.yaml"
    ])
    expect(V8Pool.restartArguments(started({ cores: 4 }))?.[0]).toBe("--v8-pool-size=3")
  })

  it("finds `run` after the global options", () => {
    const argv = ["node", "bin.js", "--log-level", "warn", "run", "--config", "w.yaml"]
    expect(V8Pool.restartArguments(started({ argv }))).toEqual([
      "--v8-pool-size=1",
      "--conditions=@warden/source",
      ...argv.slice(1)
    ])
    expect(V8Pool.restartArguments(started({ argv: ["node", "bin.js", "--log-level=warn", "run"] }))).toBeDefined()
    // `run` as a global option's value is not the command
    expect(V8Pool.restartArguments(started({ argv: ["node", "bin.js", "--completions", "run"] }))).toBeUndefined()
  })

  it("goes on as started for another command, a size the operator gave, or a machine of 5 cores or more", () => {
    expect(V8Pool.restartArguments(started({ argv: ["node", "bin.js", "config", "check"] }))).toBeUndefined()
    expect(V8Pool.restartArguments(started({ execArgv: ["--v8-pool-size=2"] }))).toBeUndefined()
    expect(
      V8Pool.restartArguments(started({ nodeOptions: "--max-old-space-size=512 --v8-pool-size=3" }))
    ).toBeUndefined()
    expect(V8Pool.restartArguments(started({ cores: 5 }))).toBeUndefined()
    // already started again: the flag is among Node's options, so it never loops
    const again = V8Pool.restartArguments(started())!
    expect(V8Pool.restartArguments(started({ execArgv: again.slice(0, 2) }))).toBeUndefined()
  })

  // /proc is Linux's; on 5 cores or more the same test asserts that nothing changed.
  it.runIf(process.platform === "linux")(
    "a real `warden --log-level info run` here is one process with the pool sized to this machine: its command line, its V8 workers counted, exit 0 on SIGTERM",
    async () => {
      const dir = mkdtempSync(join(tmpdir(), "warden-v8pool-"))
      const file = writeConfig(dir, {
        // biome-ignore lint/suspicious/noTemplateCurlyInString: a secret reference of the config file
        api: { apiKey: "${env:KEY}", baseUrl: sandbox.url },
        state: { dir },
        sources: [idleFeedSource],
        admin: { listen: "127.0.0.1:0" },
        log: { format: "json" }
      })
      const daemon = startDaemon(file, { KEY: "sandbox-standard-key", NODE_OPTIONS: "" }, ["--log-level", "info"])
      const size = V8Pool.forCores(availableParallelism())
      try {
        await waitFor(() => daemon.stderr().includes("warden running"), 60_000, "the daemon to start")
        const pid = daemon.child.pid!
        const args = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0")
        // Started again with the flag where the size is not Node's own 4; as started otherwise.
        const flag = size < 4 ? [`--v8-pool-size=${size}`] : []
        expect(args.slice(1, 2 + flag.length)).toEqual([...flag, "--conditions=@warden/source"])
        expect(args.slice(3 + flag.length)).toEqual(["--log-level", "info", "run", "--config", file, ""])
        const workers = readdirSync(`/proc/${pid}/task`).filter(
          (t) => readFileSync(`/proc/${pid}/task/${t}/comm`, "utf8").trim() === "V8Worker"
        )
        expect(workers.length).toBe(size)
      } finally {
        daemon.child.kill("SIGTERM")
      }
      expect(await daemon.exited).toEqual({ code: 0, signal: null })
    },
    90_000
  )
})
