/** One log format per choice, the same in every command; the level's precedence; NO_COLOR and FORCE_COLOR. */
import { execFile } from "node:child_process"
import { promisify } from "node:util"
import { describe, expect, it } from "vitest"
import * as Logging from "../src/Logging.ts"

const exec = promisify(execFile)
const logging = new URL("../src/Logging.ts", import.meta.url).href

/** Logs one info line with an annotation in a child process whose stderr is a pipe; returns stderr. */
const logWith = async (format: Logging.Format, env: Record<string, string> = {}) => {
  const script = `
    const { Effect } = await import("effect")
    const Logging = await import(${JSON.stringify(logging)})
    await Effect.runPromise(Effect.logInfo("hello there").pipe(Effect.annotateLogs({ source: "feed" }), Effect.provide(Logging.layer(${JSON.stringify(format)}))))
  `
  const { PATH, HOME } = process.env
  const r = await exec(process.execPath, ["--conditions=@warden/source", "--input-type=module", "-e", script], {
    env: { PATH: PATH ?? "", HOME: HOME ?? "", ...env },
    cwd: new URL("..", import.meta.url).pathname
  })
  return r.stderr
}

const stdoutSink = new URL("../src/sinks/StdoutSink.ts", import.meta.url).href

/** Prints one verdict with the pretty stdout sink in a child process whose stdout is a pipe; returns stdout. */
const printVerdict = async (env: Record<string, string> = {}) => {
  const script = `
    const { Effect } = await import("effect")
    const StdoutSink = await import(${JSON.stringify(stdoutSink)})
    const r = { source: "s", reference: "r/1", version: 1, status: "analysed", contentType: "text", mode: "v1", verdict: { classifications: ["INSULT"], recommendedAction: "REMOVE" }, segments: 1, analysedAt: "2026-01-01T00:00:00.000Z", dryRun: false }
    await Effect.runPromise(StdoutSink.make({ name: "stdout", format: "pretty" }).deliver([{ source: "s", reference: "r/1", version: 1, json: JSON.stringify(r) }]))
  `
  const { PATH, HOME } = process.env
  const r = await exec(process.execPath, ["--conditions=@warden/source", "--input-type=module", "-e", script], {
    env: { PATH: PATH ?? "", HOME: HOME ?? "", ...env },
    cwd: new URL("..", import.meta.url).pathname
  })
  return r.stdout
}

describe("Logging", () => {
  it("the level comes from --log-level, then WARDEN_LOG_LEVEL, then the file; warn and warning are the same", () => {
    expect(Logging.resolve({ env: {}, file: {} }).level).toBe("Info")
    expect(Logging.resolve({ env: {}, file: { level: "warn" } }).level).toBe("Warn")
    expect(Logging.resolve({ env: {}, file: { level: "warning" } }).level).toBe("Warn")
    expect(Logging.resolve({ env: { WARDEN_LOG_LEVEL: "debug" }, file: { level: "error" } }).level).toBe("Debug")
    expect(Logging.resolve({ env: { WARDEN_LOG_LEVEL: "debug" }, file: { level: "error" }, flag: "Fatal" }).level).toBe(
      "Fatal"
    )
    expect(Logging.resolve({ env: { WARDEN_LOG_FORMAT: "logfmt" }, file: { format: "json" } }).format).toBe("logfmt")
  })

  it("json is one JSON object a line; logfmt is key=value; pretty is time, level, message, annotations", async () => {
    const json = JSON.parse((await logWith("json")).trim())
    expect(json).toMatchObject({ message: "hello there", level: "INFO", annotations: { source: "feed" } })
    const logfmt = (await logWith("logfmt")).trim()
    expect(logfmt).toContain("level=INFO")
    expect(logfmt).toContain('message="hello there"')
    expect(logfmt).toContain("source=feed")
    const pretty = (await logWith("pretty", { NO_COLOR: "1" })).trim()
    expect(pretty).toMatch(/^\d\d:\d\d:\d\d\.\d{3} INFO {2}hello there source=feed$/u)
  })

  it("pretty lines are coloured with FORCE_COLOR even off a terminal, and never with NO_COLOR", async () => {
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the ANSI escape is what is tested
    const ansi = /\u001b\[/u
    expect(await logWith("pretty", { FORCE_COLOR: "1" })).toMatch(ansi)
    expect(await logWith("pretty", { NO_COLOR: "1" })).not.toMatch(ansi)
    expect(await logWith("pretty")).not.toMatch(ansi)
  })

  it("the pretty stdout sink colours the same way: FORCE_COLOR into a pipe, never with NO_COLOR", async () => {
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the ANSI escape is what is tested
    const ansi = /\u001b\[/u
    expect(await printVerdict({ FORCE_COLOR: "1" })).toMatch(ansi)
    const plain = await printVerdict({ NO_COLOR: "1" })
    expect(plain).not.toMatch(ansi)
    expect(plain).toContain("REMOVE")
  })
})
