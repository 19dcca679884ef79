/** One log format per choice, the same in every command; the level's precedence; NO_COLOR and FORCE_COLOR. */
import { execFile } from "node:child_process"
import { promisify } from "node:util"
import { describe, expect, it } from "vitest"
import * as Logging from "../src/Logging.ts"
import * as StdoutSink from "../src/sinks/StdoutSink.ts"

const exec = promisify(execFile)
const logging = new URL("../src/Logging.ts", import.meta.url).href

/**
 * Logs one info line with an annotation in a child process whose stderr is a pipe; returns stderr.
 * `log`: the logging effect's source (`Effect`, `Data` in scope), by default one info line.
 */
const logWith = async (
  format: Logging.Format,
  env: Record<string, string> = {},
  log = `Effect.logInfo("hello there")`
) => {
  const script = `
    const { Data, Effect } = await import("effect")
    const Logging = await import(${JSON.stringify(logging)})
    await Effect.runPromise(${log}.pipe(Effect.annotateLogs({ source: "feed" }), Effect.provide(Logging.layer(${JSON.stringify(format)}))))
  `
  const { PATH, HOME } = process.env
  const r = await exec(process.execPath, ["--conditions=@warden/source", "--input-type=module", "-e", script], {
    env: { PATH: PATH ?? "", HOME: HOME ?? "", ...env },
    cwd: new URL("..", import.meta.url).pathname
  })
  return r.stderr
}

const stdoutSink = new URL("../src/sinks/StdoutSink.ts", import.meta.url).href

/**
 * Prints one verdict (with `text`, when given) with the stdout sink in a child process whose stdout is
 * a pipe; returns stdout.
 */
const printVerdict = async (env: Record<string, string> = {}, format: "pretty" | "json" = "pretty", text?: string) => {
  const script = `
    const { Effect } = await import("effect")
    const StdoutSink = await import(${JSON.stringify(stdoutSink)})
    const r = { source: "s", reference: "r/1", version: 1, status: "analysed", contentType: "text", mode: "v1", verdict: { classifications: ["INSULT"], recommendedAction: "REMOVE" }, segments: 1, analysedAt: "2026-01-01T00:00:00.000Z", dryRun: false, ...(${JSON.stringify(text ?? null)} === null ? {} : { text: ${JSON.stringify(text ?? null)} }) }
    await Effect.runPromise(StdoutSink.make({ name: "stdout", format: ${JSON.stringify(format)} }).deliver([{ source: "s", reference: "r/1", version: 1, json: JSON.stringify(r) }]))
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

  // An outage's error as the RSS connector reports it: a tagged failure whose cause is an Error (with frames).
  const failure = `Effect.logError("source failed").pipe(Effect.andThen(Effect.fail(new (class extends Data.TaggedError("FeedError") {})({ message: "upstream answered 502", cause: new Error("socket hang up") }))), Effect.catchCause((cause) => Effect.logError("source failed", cause)))`

  it("a cause is one line, its errors' names and messages, no stack frames, in every format", async () => {
    for (const format of ["pretty", "json", "logfmt"] as const) {
      const out = await logWith(format, { NO_COLOR: "1" }, failure)
      const lines = out.trim().split("\n")
      expect(lines, format).toHaveLength(2)
      expect(out, format).not.toMatch(/^\s+at /mu)
      expect(out, format).not.toContain("logging.test")
      expect(lines[1], format).toContain("FeedError: upstream answered 502 (cause: socket hang up)")
    }
    const json = JSON.parse((await logWith("json", {}, failure)).trim().split("\n")[1]!)
    expect(json.cause).toBe("FeedError: upstream answered 502 (cause: socket hang up)")
  })

  it("WARDEN_DEBUG=1 keeps the stack trace", async () => {
    const pretty = await logWith("pretty", { NO_COLOR: "1", WARDEN_DEBUG: "1" }, failure)
    expect(pretty).toMatch(/^\s+at /mu)
    const json = JSON.parse((await logWith("json", { WARDEN_DEBUG: "1" }, failure)).trim().split("\n")[1]!)
    expect(json.cause).toMatch(/\n\s+at /u)
    expect(Logging.isDebug({ WARDEN_DEBUG: "0" })).toBe(false)
    expect(Logging.isDebug({ WARDEN_DEBUG: "" })).toBe(false)
  })

  // What a hostile feed server's reason phrase can carry: a window title (OSC ... BEL), a screen clear, a C1 CSI.
  const hostile = JSON.stringify("Bad\u001b]0;pwned\u0007\u001b[2J\u009b2J\u202egateway")
  const hostileLog = `Effect.logWarning(${hostile}).pipe(Effect.annotateLogs({ reason: ${hostile} }), Effect.andThen(Effect.fail(new Error(${hostile}))), Effect.catchCause((cause) => Effect.logError("x", cause)))`
  // biome-ignore lint/suspicious/noControlCharactersInRegex: what must not reach the terminal
  const active = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202e]/u

  it("control and hidden characters are escaped in every format: nothing reaches the terminal", async () => {
    for (const format of ["pretty", "json", "logfmt"] as const) {
      const out = await logWith(format, { NO_COLOR: "1" }, hostileLog)
      expect(out, format).not.toMatch(active)
      expect(out, format).toContain("\\u001b]0;pwned\\u0007")
      expect(out, format).toContain("\\u009b2J")
    }
    // JSON lines stay JSON, meaning the same.
    const [warning] = (await logWith("json", {}, hostileLog)).trim().split("\n")
    expect(JSON.parse(warning!).message).toBe(JSON.parse(hostile))
    // Our own colours still reach it.
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the ANSI escape is what is tested
    expect(await logWith("pretty", { FORCE_COLOR: "1" }, hostileLog)).toMatch(/\u001b\[/u)
  })

  it("the pretty stdout sink escapes the recorded text, reference and error", () => {
    const line = StdoutSink.prettyLine(
      {
        source: "s",
        reference: "r/\u001b]0;t\u0007",
        version: 1,
        status: "failed",
        contentType: "text",
        mode: "v1",
        error: { code: "X", message: "Bad\u009b2J\u001b[2J" },
        segments: 0,
        analysedAt: "2026-01-01T00:00:00.000Z",
        dryRun: false
      } as never,
      false
    )
    expect(line).not.toMatch(active)
    expect(line).toContain("r/\\u001b]0;t\\u0007")
    const analysed = StdoutSink.prettyLine(
      {
        source: "s",
        reference: "r/1",
        version: 1,
        status: "analysed",
        contentType: "text",
        mode: "v1",
        text: "admin\u202enimda \u0085\u009b",
        verdict: { classifications: ["INSULT"], recommendedAction: "REMOVE" },
        segments: 1,
        analysedAt: "2026-01-01T00:00:00.000Z",
        dryRun: false
      } as never,
      false
    )
    expect(analysed).not.toMatch(active)
    expect(analysed).toContain("admin\\u202enimda \\u0085\\u009b")
  })

  it("the json stdout sink writes the same JSON value with C1 and hidden characters escaped", async () => {
    const text = "Bad\u009b2J \u0085 admin\u202enimda"
    const out = await printVerdict({}, "json", text)
    expect(out).not.toMatch(active)
    expect(JSON.parse(out.trim()).text).toBe(text)
  })
})
