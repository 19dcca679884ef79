/**
 * File paths in plugin configs (fields marked `ConfigField.path`) are relative to the config file's
 * directory, not to where `warden run` is started: a real daemon process with its config in one
 * directory and its working directory another writes a `module:` sink's file, a connector's file and
 * the jsonl sink's file under the config's directory, and nothing in its working directory; `config
 * print` and `source preview --config` see the same files.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { ConfigField } from "@warden/connector"
import { Sandbox } from "@warden/sandbox"
import { Ajv2020 } from "ajv/dist/2020.js"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startDaemon, waitFor, writeConfig } from "./support/DaemonProcess.ts"
import { pluginSourceConfig, startPlatform } from "./support/TestPlatform.ts"
import { warden } from "./support/WardenCli.ts"

const fileSink = new URL("./support/test-file-sink.ts", import.meta.url).pathname

/** The lines of `file` (none when it is not there yet). */
const lines = (file: string) => (existsSync(file) ? readFileSync(file, "utf8").split("\n").filter(Boolean) : [])

/** Every `description` in a JSON document. */
const descriptions = (json: unknown): Array<string> =>
  typeof json !== "object" || json === null
    ? []
    : Object.entries(json).flatMap(([k, v]) => (k === "description" && typeof v === "string" ? [v] : descriptions(v)))

describe("plugin file paths", () => {
  let sandbox: Awaited<ReturnType<typeof Sandbox.startPromise>>
  let platform: Awaited<ReturnType<typeof startPlatform>>
  beforeAll(async () => {
    sandbox = await Sandbox.startPromise()
    platform = await startPlatform()
  })
  afterAll(async () => {
    await platform.close()
    await sandbox.close()
  })

  /** A config in a directory of its own, with relative paths in a module sink, the connector and jsonl. */
  const setUp = (prefix: string) => {
    const root = mkdtempSync(join(tmpdir(), prefix))
    const configDir = join(root, "config")
    const cwd = join(root, "elsewhere")
    mkdirSync(configDir)
    mkdirSync(cwd)
    const config = writeConfig(configDir, {
      api: { apiKey: "sandbox-standard-key", baseUrl: sandbox.url },
      state: { sqlite: join(root, "state.db") },
      sources: [
        {
          ...pluginSourceConfig(platform.url),
          config: { url: platform.url, pollMillis: 50, startedFile: "platform.started" }
        }
      ],
      sinks: [
        { module: fileSink, name: "files", file: "out/records.txt" },
        { type: "jsonl", name: "lines", path: "out/verdicts.jsonl" }
      ],
      admin: { listen: "127.0.0.1:0" }
    })
    return { configDir, cwd, config }
  }

  it("are resolved against the config file's directory, not the daemon's working directory", async () => {
    const { configDir, cwd, config } = setUp("warden-paths-run-")
    platform.publish({ kind: "upsert", reference: "p/1", text: "hello there" })
    const daemon = startDaemon(config, {}, [], { cwd })
    const records = join(configDir, "out/records.txt")
    const jsonl = join(configDir, "out/verdicts.jsonl")
    await waitFor(
      () => lines(records).length > 0 && lines(jsonl).length > 0,
      45_000,
      () => `both sinks' files under the config's directory\n${daemon.stderr().slice(-2000)}`
    )
    expect((await daemon.stop("SIGTERM")).code).toBe(0)
    expect(JSON.parse(lines(records)[0]!).reference).toBe("p/1")
    expect(JSON.parse(lines(jsonl)[0]!).reference).toBe("p/1")
    expect(readFileSync(join(configDir, "platform.started"), "utf8")).toBe("0")
    expect(readdirSync(cwd)).toEqual([])
  }, 90_000)

  it("`config print` shows them absolute, under the config file's directory", async () => {
    const { configDir, cwd, config } = setUp("warden-paths-print-")
    const printed = await warden(["config", "print", config], { cwd })
    expect(printed.stderr).toBe("")
    expect(printed.stdout).toContain(`file: ${join(configDir, "out/records.txt")}`)
    expect(printed.stdout).toContain(`path: ${join(configDir, "out/verdicts.jsonl")}`)
    expect(printed.stdout).toContain(`startedFile: ${join(configDir, "platform.started")}`)
    expect(printed.code).toBe(0)
  }, 60_000)

  it("`source preview --config` resolves the connector's paths as `warden run` does", async () => {
    const { configDir, cwd, config } = setUp("warden-paths-preview-")
    platform.publish({ kind: "upsert", reference: "p/2", text: "hello again" })
    const r = await warden(["source", "preview", "--config", config, "--source", "platform", "--limit", "1"], { cwd })
    expect(r.stderr).toBe("")
    expect(r.code).toBe(0)
    expect(readFileSync(join(configDir, "platform.started"), "utf8")).toBe("0")
    expect(readdirSync(cwd)).toEqual([])
  }, 60_000)

  it("`config schema` says a path field is relative to the config file's directory, with no unknown keyword (Ajv strictSchema)", async () => {
    const { cwd, config } = setUp("warden-paths-schema-")
    const r = await warden(["config", "schema", "--config", config], { cwd })
    expect(r.stderr).toBe("")
    expect(r.code).toBe(0)
    const schema = JSON.parse(r.stdout)
    const said = descriptions(schema)
    expect(said).toContain(`The file records are appended to. ${ConfigField.PATH_NOTE}`)
    expect(said).toContain(`The file verdicts are appended to. ${ConfigField.PATH_NOTE}`)
    expect(said).toContain(ConfigField.PATH_NOTE) // the connector's startedFile, no description of its own
    // No vendor keyword: Ajv refuses an unknown one under strictSchema.
    new Ajv2020({ strictSchema: true, validateFormats: false }).compile(schema)
  }, 60_000)
})
