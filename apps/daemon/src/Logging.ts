/**
 * The logs of every `warden` command, on stderr (stdout stays free for the stdout sink's verdicts and
 * a command's output). One format per choice, the same in every command:
 * - `json`: one JSON object a line (`message`, `level`, `timestamp`, `annotations`, `spans`);
 * - `logfmt`: `key=value` pairs, as Prometheus, Loki and Heroku read them;
 * - `pretty`: `HH:MM:SS.mmm LEVEL message key=value`, the level coloured unless `NO_COLOR` is set
 *   (`FORCE_COLOR` forces colour off a terminal; `util.styleText` decides);
 * - `auto`: `pretty` on a terminal, `json` otherwise.
 * The level and format come from, in this order: `--log-level` (effect/cli's global flag), the
 * environment (`WARDEN_LOG_LEVEL`, `WARDEN_LOG_FORMAT`), the config file's `log` section, `info`/`auto`.
 * Log lines carry `source` and `reference` annotations; never content text or secrets (content only
 * with `log.content`).
 *
 * A log line is one line: a failure's cause is its errors' names and messages, never a stack trace
 * (an outage would print hundreds of frames) unless `WARDEN_DEBUG` is set. Text in a line can come
 * from a stranger (a feed server's reason phrase, a body quoted by a parse error): every control and
 * hidden character is escaped (`TerminalText`) in every format, so nothing reaches the terminal as a
 * control sequence.
 */
import { styleText } from "node:util"
import { Cause, Effect, Formatter, Layer, Logger, type LogLevel, Option, References } from "effect"
import { GlobalFlag } from "effect/cli"
import { inert } from "./domain/TerminalText.ts"

/** Log format: `auto` is `pretty` on a terminal and `json` otherwise. */
export type Format = "auto" | "json" | "logfmt" | "pretty"

/** The formats, for config schemas and flags. */
export const FORMATS = ["auto", "json", "logfmt", "pretty"] as const satisfies ReadonlyArray<Format>

/** A level as written in the file or the environment (`warn` and `warning` are the same). */
export type Level = keyof typeof LEVELS

const LEVELS = {
  trace: "Trace",
  debug: "Debug",
  info: "Info",
  warn: "Warn",
  warning: "Warn",
  error: "Error",
  fatal: "Fatal",
  none: "None"
} as const satisfies Record<string, LogLevel.LogLevel>

const isLevel = (s: string | undefined): s is Level => s !== undefined && Object.hasOwn(LEVELS, s.toLowerCase())
const isFormat = (s: string | undefined): s is Format =>
  s !== undefined && (FORMATS as ReadonlyArray<string>).includes(s)

const COLOURS: Partial<Record<LogLevel.LogLevel, Parameters<typeof styleText>[0]>> = {
  Trace: "gray",
  Debug: "blue",
  Info: "green",
  Warn: "yellow",
  Error: "red",
  Fatal: ["bgRed", "white"]
}

const pad = (n: number, width = 2) => String(n).padStart(width, "0")

const logfmtValue = (value: unknown): string => {
  const text = typeof value === "string" ? value : JSON.stringify(value)
  return /[\s="]/u.test(text) || text === "" ? JSON.stringify(text) : text
}

/** Whether `WARDEN_DEBUG` asks for stack traces: set, and neither empty nor `0`. */
export const isDebug = (env: Readonly<Record<string, string | undefined>> = process.env): boolean => {
  const value = env.WARDEN_DEBUG?.trim()
  return value !== undefined && value !== "" && value !== "0"
}

/** `Name: message` of an error (and of its `cause`, chained), without its stack. */
const errorLine = (error: Error, seen: Set<unknown> = new Set()): string => {
  seen.add(error)
  const own =
    error.message === "" ? error.name : error.name === "Error" ? error.message : `${error.name}: ${error.message}`
  const cause = error.cause
  return cause instanceof Error && !seen.has(cause) ? `${own} (cause: ${errorLine(cause, seen)})` : own
}

/**
 * A cause on one line: each failure's and defect's name (its tag) and message, `; `-separated, and
 * `interrupted` for an interruption alone. No stack frames: `WARDEN_DEBUG` adds them ({@link causeText}).
 */
export const causeLine = (cause: Cause.Cause<unknown>): string =>
  Cause.hasInterruptsOnly(cause)
    ? "interrupted"
    : [...new Set(Cause.prettyErrors(cause).map((e) => errorLine(e)))].join("; ")

/** A log line's cause: {@link causeLine}, or the whole pretty cause with its stack when `debug`. */
export const causeText = (cause: Cause.Cause<unknown>, debug: boolean): string | undefined =>
  cause.reasons.length === 0 ? undefined : debug ? Cause.pretty(cause) : causeLine(cause)

/** Effect's structured record of a log line, its cause as {@link causeText} renders it. */
const structured = (options: Logger.Options<unknown>, debug: boolean) => ({
  ...Logger.formatStructured.log({ ...options, cause: Cause.empty }),
  cause: causeText(options.cause, debug)
})

/** One JSON object a line (Effect's fields), escaped for a terminal (still JSON, meaning the same). */
const json = (debug: boolean) => Logger.make((options) => inert(Formatter.formatJson(structured(options, debug))))

/** `key=value` pairs (Effect's), the cause last, escaped for a terminal. */
const logfmt = (debug: boolean) =>
  Logger.make((options) => {
    const line = Logger.formatLogFmt.log({ ...options, cause: Cause.empty })
    const cause = causeText(options.cause, debug)
    return inert(cause === undefined ? line : `${line} cause=${JSON.stringify(cause)}`)
  })

/** Human-readable lines; colour through `util.styleText`, which honours `NO_COLOR`, `FORCE_COLOR` and the terminal. */
const pretty = (debug: boolean) =>
  Logger.make((options) => {
    const s = structured(options, false)
    const d = options.date
    const time = `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}.${pad(d.getMilliseconds(), 3)}`
    const colour = COLOURS[options.logLevel]
    const level = options.logLevel.toUpperCase().padEnd(5)
    const styled = colour === undefined ? level : styleText(colour, level, { stream: process.stderr })
    const message = inert(typeof s.message === "string" ? s.message : JSON.stringify(s.message))
    const pairs = Object.entries(s.annotations).map(([k, v]) => inert(`${k}=${logfmtValue(v)}`))
    const dim = (t: string) => styleText("dim", t, { stream: process.stderr })
    const cause =
      s.cause === undefined
        ? ""
        : debug
          ? `\n${inert(Cause.pretty(options.cause), { lines: true })}`
          : ` cause=${inert(logfmtValue(s.cause))}`
    return `${dim(time)} ${styled} ${message}${pairs.length > 0 ? ` ${dim(pairs.join(" "))}` : ""}${cause}`
  })

/** What {@link resolve} chooses from. */
export interface Choice {
  /** The file's `log.level` and `log.format`, when a command read a file. */
  readonly file?: { readonly level?: Level | undefined; readonly format?: Format | undefined } | undefined
  /** The environment (default `process.env`). */
  readonly env?: Readonly<Record<string, string | undefined>> | undefined
  /** `--log-level`, when given. */
  readonly flag?: LogLevel.LogLevel | undefined
}

/** The level and format in force: the flag, then the environment, then the file, then `info`/`auto`. */
export const resolve = (choice: Choice): { readonly level: LogLevel.LogLevel; readonly format: Format } => {
  const env = choice.env ?? process.env
  const envLevel = env.WARDEN_LOG_LEVEL?.trim()
  const envFormat = env.WARDEN_LOG_FORMAT?.trim()
  const level =
    choice.flag ??
    (isLevel(envLevel) ? LEVELS[envLevel.toLowerCase() as Level] : undefined) ??
    (choice.file?.level !== undefined ? LEVELS[choice.file.level] : "Info")
  const format = isFormat(envFormat) ? envFormat : (choice.file?.format ?? "auto")
  return { level, format }
}

/** The logger of a format, writing to stderr; stack traces only with `debug` (default: `WARDEN_DEBUG`). */
export const logger = (format: Format, debug: boolean = isDebug()) => {
  const chosen = format === "auto" ? (process.stderr.isTTY === true ? "pretty" : "json") : format
  return Logger.withConsoleError(chosen === "json" ? json(debug) : chosen === "logfmt" ? logfmt(debug) : pretty(debug))
}

/** The logger layer for a format and minimum level (replaces Effect's default logger). */
export const layer = (format: Format, level: LogLevel.LogLevel = "Info") =>
  Layer.mergeAll(Logger.layer([logger(format)]), Layer.succeed(References.MinimumLogLevel, level))

/**
 * The logger layer of a command: `--log-level` (read from effect/cli) and the environment win over
 * the file's `log` section.
 */
export const layerFor = (file?: Choice["file"]) =>
  Layer.unwrap(
    Effect.gen(function* () {
      const flag = yield* Effect.serviceOption(GlobalFlag.LogLevel).pipe(Effect.map(Option.flatten))
      const { level, format } = resolve({ file, flag: Option.getOrUndefined(flag) })
      return layer(format, level)
    })
  )

/** The logger layer of every command before it reads a file: the environment's choice. */
export const layerFromEnv = Layer.unwrap(
  Effect.sync(() => {
    const { level, format } = resolve({})
    return layer(format, level)
  })
)
