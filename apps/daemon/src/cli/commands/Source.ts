/**
 * `warden source preview`: the events a source would hand to the daemon, as JSON lines, without
 * analysing anything — what a user runs before `warden run` to see what would be analysed.
 *
 *   warden source preview --type rss --url https://example.com/feed.xml --limit 5
 *   warden source preview --type discord --config discord.yaml      # the connector's config
 *   warden source preview --config warden.yaml --source my-feed     # a source of a daemon config
 *
 * Secret references (`${env:NAME}`, `${file:path}`) in the file are resolved as `warden run` does.
 */
import { readFileSync } from "node:fs"
import { dirname, resolve } from "node:path"
import { ConfigDuration, ConfigField, type Connector, ConnectorRegistry, Preview, SourceEvent } from "@warden/connector"
import { Console, Effect, Option, Schema } from "effect"
import { Command, Flag } from "effect/cli"
import { parse } from "yaml"
import * as Connectors from "../../config/Connectors.ts"
import { fromIssue } from "../../config/internal/Problems.ts"
import { SecretRef } from "../../config/index.ts"
import { refuser } from "../Refusal.ts"
import { checkpoint } from "./SourceCheckpoint.ts"
import { inert } from "../../domain/TerminalText.ts"

const refuse = refuser("source preview")

/** Reads a YAML/JSON file (secret references left as written: see {@link resolveSecrets}). */
const readConfigFile = (file: string) =>
  Effect.gen(function* () {
    const text = yield* Effect.try({
      try: () => readFileSync(file, "utf8"),
      catch: (e) => String((e as Error).message)
    }).pipe(Effect.catch((message) => refuse(`cannot read ${file}: ${message}`, 78)))
    const document = yield* Effect.try({ try: () => parse(text) as unknown, catch: (e) => String(e) }).pipe(
      Effect.catch((message) => refuse(`${file} is not valid YAML: ${message}`, 78))
    )
    return document
  })

/**
 * Resolves the secret references of the part of `file` the preview uses (`at`: its path): a
 * warden.yaml's API key or database URL is none of a preview's business and must not be demanded.
 */
const resolveSecrets = (file: string, value: unknown, at: string) =>
  Effect.gen(function* () {
    const resolved = SecretRef.resolveAll(value, { env: process.env, baseDirectory: dirname(resolve(file)) })
    if (resolved.problems.length > 0) {
      const prefix = at === "" ? "" : `${at}.`
      return yield* refuse(resolved.problems.map((p) => `${prefix}${p.path}: ${p.message}`).join("\n"), 78)
    }
    return resolved.value
  })

/** The connectors documented in this repository's docs/connectors/. */
const FIRST_PARTY = new Set(["rss", "discord", "youtube", "nats"])

/** The `source preview` subcommand. */
const preview = Command.make(
  "preview",
  {
    type: Flag.String("type").pipe(Flag.withDescription("connector type (rss, discord, youtube, nats)"), Flag.optional),
    module: Flag.String("module").pipe(Flag.withDescription("a local connector plugin file"), Flag.optional),
    url: Flag.String("url").pipe(Flag.withDescription("rss: the feed URL"), Flag.optional),
    config: Flag.String("config").pipe(
      Flag.withDescription("the connector's config file, or a warden.yaml (then --source)"),
      Flag.optional
    ),
    source: Flag.String("source").pipe(Flag.withDescription("the source id in a warden.yaml"), Flag.optional),
    limit: Flag.Int("limit").pipe(Flag.withDescription("events to print (default 10)"), Flag.withDefault(10)),
    timeout: Flag.String("timeout").pipe(
      Flag.withDescription(
        "longest wait for events, e.g. '30s' (default 15s); a poll-based source (rss, youtube) ends after one poll"
      ),
      Flag.withDefault("15s")
    )
  },
  (flags) =>
    Effect.gen(function* () {
      let type = Option.getOrUndefined(flags.type)
      let module = Option.getOrUndefined(flags.module)
      let config: unknown
      if (Option.isSome(flags.config)) {
        const document = yield* readConfigFile(flags.config.value)
        const sources = (document as { sources?: Array<Record<string, unknown>> } | null)?.sources
        if (Array.isArray(sources)) {
          const wanted = Option.getOrUndefined(flags.source)
          const candidates = sources.filter(
            (s) => (wanted === undefined || s.id === wanted) && (type === undefined || s.type === type)
          )
          if (candidates.length !== 1) {
            return yield* refuse(
              candidates.length === 0
                ? `no source ${wanted ?? type ?? ""} in ${flags.config.value}`
                : `${flags.config.value} has ${candidates.length} sources: name one with --source (${candidates.map((s) => s.id).join(", ")})`,
              2
            )
          }
          const chosen = candidates[0]!
          type = typeof chosen.type === "string" ? chosen.type : undefined
          module = typeof chosen.module === "string" ? resolve(dirname(flags.config.value), chosen.module) : undefined
          config = yield* resolveSecrets(
            flags.config.value,
            chosen.config ?? {},
            `sources.${sources.indexOf(chosen)}.config`
          )
        } else {
          config = yield* resolveSecrets(flags.config.value, document, "")
        }
      } else if (Option.isSome(flags.url)) {
        config = { feeds: [flags.url.value], maxItemsPerPoll: Math.max(1, flags.limit) }
        type ??= "rss"
      } else if (type === undefined || type === "rss") {
        return yield* refuse("give --url URL (an RSS or Atom feed) or --config FILE", 2)
      }
      if ((type === undefined) === (module === undefined))
        return yield* refuse("give exactly one of --type or --module", 2)
      const ref = type !== undefined ? { type } : { module: resolve(module!) }
      const connector: Connector.Connector = yield* Connectors.resolve(process.cwd(), ref).pipe(
        Effect.catch((e) => refuse(e.message, 78))
      )
      if (config === undefined) {
        // What the connector's own schema says is missing from an empty config: its required keys.
        const decoded = Schema.decodeUnknownExit(connector.configSchema, { errors: "all" })({})
        const missing =
          decoded._tag === "Success"
            ? ""
            : decoded.cause.reasons
                .flatMap((r) => (r._tag === "Fail" && Schema.isSchemaError(r.error) ? fromIssue(r.error.issue) : []))
                .map((p) => (p.path === "" ? p.message : `${p.path}: ${p.message}`).replaceAll("\n", "; "))
                .join("; ")
        return yield* refuse(
          `--type ${connector.type} needs --config FILE, a YAML file of the connector's settings${missing === "" ? "" : `: ${missing}`}${FIRST_PARTY.has(connector.type) ? ` (see docs/connectors/${connector.type}.md)` : ""}`,
          2
        )
      }
      // Its file paths (fields marked `ConfigField.path`), relative to the config file's directory, as `warden run` has them.
      if (Option.isSome(flags.config))
        config = ConfigField.resolvePaths(connector.configSchema, config, dirname(resolve(flags.config.value)))
      const timeout = ConfigDuration.parse(flags.timeout)
      if (Option.isNone(timeout))
        return yield* refuse(`--timeout: ${ConfigDuration.expected}, not '${flags.timeout}'`, 2)
      // A connector may export its own preview (Discord reads the last N messages of each channel).
      const own =
        type === undefined
          ? undefined
          : (
              (yield* Effect.promise(() =>
                Connectors.importModule(ConnectorRegistry.packageName(type)).catch(() => undefined)
              )) as { preview?: unknown } | undefined
            )?.preview
      const run =
        typeof own === "function"
          ? (own as (c: unknown, n: number, o: Preview.PreviewOptions) => ReturnType<typeof Preview.preview>)(
              config,
              flags.limit,
              { timeout: timeout.value }
            )
          : Preview.preview(connector, config, flags.limit, { timeout: timeout.value })
      // An upstream that fails (404, not a feed, bad certificate) is one line and exit 1, not a retry.
      const events: ReadonlyArray<SourceEvent.SourceEvent> = yield* run.pipe(
        Effect.catch((e) => refuse(e.message, e.reason === "InvalidConfig" ? 78 : 1))
      )
      for (const event of events) {
        // JSON lines (still JSON once escaped): the event is the stranger's content, author and links.
        yield* Console.log(inert(JSON.stringify(event, (_, v) => (typeof v === "bigint" ? `${v}n` : v))))
        // What the daemon would dead-letter (and skip), flagged where the user sees it.
        const problems = SourceEvent.problems(event)
        if (problems.length > 0) {
          yield* Console.error(
            `invalid event, the daemon would dead-letter it: ${inert(SourceEvent.formatProblems(problems))}`
          )
        }
      }
      if (events.length === 0) yield* Console.error(`no events (within ${flags.timeout})`)
    })
).pipe(
  Command.withDescription("Print the events a source would hand to the daemon, as JSON lines"),
  Command.withExamples([
    {
      command: "warden source preview --url https://example.com/feed.xml --limit 5",
      description: "an RSS or Atom feed, one poll"
    },
    { command: "warden source preview --config warden.yaml --source news", description: "a source of a daemon config" },
    {
      command: "warden source preview --type discord --config discord.yaml --timeout 30s",
      description: "a connector's own config file"
    }
  ])
)

/** The `source` subcommand. */
export const source = Command.make("source").pipe(
  Command.withDescription("Work with sources"),
  Command.withSubcommands([preview, checkpoint])
)
