/**
 * The schema of the daemon's configuration file (`warden.yaml`) and the decoded `WardenConfig`.
 *
 * Every section but `sources` is optional; every key with a default is filled in once decoded.
 * Durations come out as `Duration`, secrets as `Redacted<string>`, `HOST:PORT` as `{ host, port }`.
 * Secret references (`${env:NAME}`, `${file:path}`) are resolved before this schema runs (`SecretRef`).
 */
import { ConfigField } from "@warden/connector"
import { ChannelId, PATHS, ResellerFields } from "@warden/core"
import { ApiConfig, RetryPolicy } from "@warden/transport"
import { Duration, Schema } from "effect"
import {
  durationAtLeast,
  durationsOrdered,
  durationWithDefault,
  HostPortString,
  hostPortWithDefault,
  HttpUrl,
  IntBetween,
  PositiveNumber,
  Secret,
  withDefault
} from "../domain/internal/Schemas.ts"
import { Rule, VerdictWhen } from "../domain/Rule.ts"

// ---------------------------------------------------------------------------------------------- api

/**
 * A secret of the file itself, marked as the connectors' and sinks' are (`ConfigField.secret`): the
 * mark is what `config check` reads to warn when one is written inline.
 */
const ConfigSecret = ConfigField.secret(Secret)

/** A region of the API. */
export const Region = Schema.Literals(["global", "us-east", "us-west"])
/** @see {@link Region} */
export type Region = typeof Region.Type

/** A client-side rate on one endpoint. */
export const Rate = Schema.Struct({
  requestsPerSecond: Schema.Finite.check(Schema.isBetween({ minimum: 0.01, maximum: 1_000_000 })),
  burst: Schema.optionalKey(IntBetween(1, 1_000_000))
})
/** @see {@link Rate} */
export type Rate = typeof Rate.Type

/** The endpoint names of `@warden/core`'s `PATHS`, the keys of `api.quotas`. */
export const ENDPOINT_NAMES = Object.keys(PATHS) as ReadonlyArray<keyof typeof PATHS>

/**
 * Client-side quotas: a rate per endpoint and a `default` for the others, all optional (the limiter
 * learns each quota from the value a 429 names). `adaptive` is accepted so older files load, and ignored.
 */
export const Quotas = Schema.Struct({
  default: Schema.optionalKey(Rate),
  adaptive: Schema.optionalKey(
    Schema.Struct({
      decrease: Schema.optionalKey(Schema.Finite.check(Schema.isBetween({ minimum: 0, maximum: 1 }))),
      recoverySeconds: Schema.optionalKey(Schema.Finite.check(Schema.isBetween({ minimum: 1, maximum: 86_400 }))),
      floor: Schema.optionalKey(Schema.Finite.check(Schema.isBetween({ minimum: 0, maximum: 1 })))
    })
  ),
  analyzeText: Schema.optionalKey(Rate),
  analyzeImage: Schema.optionalKey(Rate),
  analyzeUsername: Schema.optionalKey(Rate),
  feedbackText: Schema.optionalKey(Rate),
  feedbackImage: Schema.optionalKey(Rate),
  legacyAnalyze: Schema.optionalKey(Rate)
})
/** @see {@link Quotas} */
export type Quotas = typeof Quotas.Type

/** Retry of transient failures; the defaults are the transport's own (`RetryPolicy.defaults`), the CLI's too. */
export const Retry = Schema.Struct({
  maxAttempts: IntBetween(1, 100).pipe(withDefault(RetryPolicy.defaults.maxAttempts)),
  baseDelay: durationWithDefault(RetryPolicy.defaults.baseDelay, "10 millis"),
  maxDelay: durationWithDefault(RetryPolicy.defaults.maxDelay, "10 millis"),
  maxElapsed: durationWithDefault(RetryPolicy.defaults.maxElapsed, "100 millis")
}).check(durationsOrdered("baseDelay", "maxDelay"), durationsOrdered("maxDelay", "maxElapsed"))
/** @see {@link Retry} */
export type Retry = typeof Retry.Type

/** Which region calls go to: `pinned` to `api.region`, or `failover` through `failover` after it. */
export const Regions = Schema.Struct({
  policy: Schema.Literals(["pinned", "failover"]).pipe(withDefault("pinned")),
  failover: Schema.Array(Region).pipe(withDefault([])),
  recoverAfter: durationWithDefault("60 seconds", "1 second")
})
/** @see {@link Regions} */
export type Regions = typeof Regions.Type

/** The `api` section: everything `@warden/transport`'s `ApiConfig` knows. */
export const ApiSection = Schema.Struct({
  apiKey: ConfigSecret,
  keyKind: Schema.Literals(["standard", "reseller"]).pipe(withDefault("standard")),
  region: Region.pipe(withDefault("global")),
  baseUrl: Schema.optionalKey(HttpUrl),
  baseUrlUsEast: Schema.optionalKey(HttpUrl),
  baseUrlUsWest: Schema.optionalKey(HttpUrl),
  legacyBaseUrl: Schema.optionalKey(HttpUrl),
  legacyApiKey: Schema.optionalKey(ConfigSecret),
  timeout: durationWithDefault(ApiConfig.DEFAULT_TIMEOUT, "100 millis"),
  retry: Retry.pipe(withDefault({})),
  quotas: Quotas.pipe(withDefault({})),
  regions: Regions.pipe(withDefault({})),
  userAgentSuffix: Schema.optionalKey(Schema.String)
})
/** @see {@link ApiSection} */
export type ApiSection = typeof ApiSection.Type

// -------------------------------------------------------------------------------------------- state

/** The `state` section as written: exactly one of `sqlite` (a file path) or `postgres` (a URL, secret). */
export const StateSection = Schema.Struct({
  dir: Schema.optionalKey(Schema.String.check(Schema.isNonEmpty())),
  sqlite: Schema.optionalKey(Schema.String.check(Schema.isNonEmpty())),
  postgres: Schema.optionalKey(ConfigSecret)
}).check(
  Schema.makeFilter(
    (s) => !(s.sqlite !== undefined && s.postgres !== undefined) || "set exactly one of sqlite, postgres",
    {
      toJsonSchema: () => ({ not: { required: ["sqlite", "postgres"] } })
    }
  )
)

/** Where the daemon keeps its state, decoded. `filename` is absolute (relative paths are against the config file's directory). */
export type StateStore =
  | { readonly _tag: "Sqlite"; readonly filename: string }
  | { readonly _tag: "Postgres"; readonly url: import("effect").Redacted.Redacted<string> }

/** The default SQLite file, relative to the config file's directory. */
export const DEFAULT_SQLITE = ".warden/state.db"

/**
 * The data directory when neither `state.dir` nor `WARDEN_STATE_DIR` names one (relative to the
 * config file's directory): the SQLite file and a generated admin token live there, so the config
 * itself can sit on a read-only mount.
 */
export const DEFAULT_STATE_DIR = ".warden"

// ------------------------------------------------------------------------------------------- sources

export { Rule, RuleAction, RuleWhen } from "../domain/Rule.ts"

/** What to do with an item whose analysis keeps failing: `hold` it, `allow` it, or `reject` it (with `action`) after `after`. */
export const FailureMode = Schema.Struct({
  mode: Schema.Literals(["hold", "allow", "reject"]).pipe(withDefault("hold")),
  after: durationWithDefault("5 minutes", 0),
  action: Schema.optionalKey(Schema.String.check(Schema.isNonEmpty()))
}).check(
  Schema.makeFilter(
    (f) => f.mode !== "reject" || f.action !== undefined || { path: ["action"], issue: "required when mode is reject" }
  )
)
/** @see {@link FailureMode} */
export type FailureMode = typeof FailureMode.Type

/** The id of a source: lower-case letters, digits and `-`. */
export const SourceId = Schema.String.check(
  Schema.isPattern(/^[a-z0-9][a-z0-9-]*$/u, { message: "must match [a-z0-9-]+ (lower-case letters, digits, '-')" }),
  Schema.isMaxLength(64)
)

/**
 * Per-source analysis settings: the spec's reseller-only request fields, decoded with core's schema.
 * Each request of the source carries the fields its endpoint takes; a standard key may not set them.
 */
export const SourceAnalysis = ResellerFields.annotate({
  description:
    "Reseller-only request fields sent with every request of this source (api.keyKind must be reseller): industry, defaultLanguage (text, image, username), customerContext (image, username; 512-1024 characters recommended), classificationsEnabled, ocrEnabled (image)"
})
/** @see {@link SourceAnalysis} */
export type SourceAnalysis = typeof SourceAnalysis.Type

/** A source as written: the connector (`type` or `module`) and its raw `config` (decoded later with the connector's own schema). */
export const SourceEntry = Schema.Struct({
  id: SourceId,
  type: Schema.optionalKey(
    Schema.String.check(Schema.isPattern(/^[a-z0-9][a-z0-9-]*$/u, { message: "must be a connector type such as rss" }))
  ),
  module: Schema.optionalKey(Schema.String.check(Schema.isNonEmpty())),
  channelId: ChannelId,
  mode: Schema.Literals(["v1", "legacy"]).pipe(withDefault("v1")),
  analyse: Schema.Array(Schema.Literals(["text", "image", "username"]))
    .check(Schema.isMinLength(1))
    .pipe(withDefault(["text"])),
  config: Schema.Record(Schema.String, Schema.Unknown).pipe(withDefault({})),
  dryRun: Schema.Boolean.pipe(withDefault(false)),
  oversize: Schema.Literals(["split", "truncate", "reject"]).pipe(withDefault("split")),
  rules: Schema.Array(Rule).pipe(withDefault([])),
  failureMode: FailureMode.pipe(withDefault({})),
  autoFeedback: Schema.Boolean.pipe(withDefault(false)),
  analysis: Schema.optionalKey(SourceAnalysis),
  retention: Schema.optionalKey(
    durationAtLeast("1 minute").annotate({
      description:
        "Erase stored content (texts, requests, responses) older than this, in the background (default: keep); references, hashes, verdict types and outcomes stay"
    })
  )
}).check(
  Schema.makeFilter(
    (s) =>
      (s.type === undefined) !== (s.module === undefined) || {
        path: ["type"],
        issue: "set exactly one of type (an installed connector) or module (a plugin file)"
      },
    { toJsonSchema: () => ({ oneOf: [{ required: ["type"] }, { required: ["module"] }] }) }
  )
)

/** A source, decoded: `config` is the connector's decoded config. */
export type Source = Omit<typeof SourceEntry.Type, "config" | "rules"> & {
  readonly config: unknown
  readonly rules: ReadonlyArray<Rule>
}

// --------------------------------------------------------------------------------------------- sinks

/**
 * The settings every sink entry has, whatever its type (one place, so a sink declared by a plugin
 * reuses them): `name` (default: the type), `content` (whether its records carry the content
 * text; `log.content` governs the logs only) and `retry.window` (how long a failed delivery is
 * retried before it goes to the dead letters).
 */
export const SinkBase = Schema.Struct({
  name: Schema.optionalKey(
    Schema.String.check(
      Schema.isPattern(/^[A-Za-z0-9][A-Za-z0-9_.-]*$/u, { message: "must be letters, digits, '-', '_' or '.'" })
    )
  ),
  content: Schema.Boolean.pipe(withDefault(false)).annotate({
    description:
      "Whether this sink's verdict records carry the content text (default false: the locator and the verdict only)"
  }),
  retry: Schema.Struct({
    window: durationWithDefault("24 hours", "1 second")
  }).pipe(withDefault({}))
})

/** The keys of a sink entry that are the daemon's; the others are the sink's own, decoded by its schema. */
export const SINK_KEYS: ReadonlyArray<string> = ["type", "module", ...Object.keys(SinkBase.fields)]

/**
 * A sink as written: `type` (built in: stdout, jsonl, webhook, sql; any other the installed package
 * `@warden/sink-<type>`) or `module` (a plugin file), the settings every sink has, and the sink's own
 * keys, decoded by the sink's config schema once it is found (SinkChecks).
 */
export const SinkEntry = Schema.StructWithRest(
  Schema.Struct({
    type: Schema.optionalKey(Schema.String.check(Schema.isPattern(/^[a-z0-9][a-z0-9-]*$/u))),
    module: Schema.optionalKey(Schema.String.check(Schema.isNonEmpty())),
    ...SinkBase.fields
  }),
  [Schema.Record(Schema.String, Schema.Unknown)]
).check(
  Schema.makeFilter(
    (s) =>
      (s.type === undefined) !== (s.module === undefined) || {
        path: ["type"],
        issue: "set exactly one of type (a built-in sink or an installed one) or module (a plugin file)"
      },
    { toJsonSchema: () => ({ oneOf: [{ required: ["type"] }, { required: ["module"] }] }) }
  )
)

/**
 * A sink, decoded: `type` is its sink's (also for a `module:` one), `name` defaults to it, `config`
 * holds its own keys decoded by its schema.
 */
export interface Sink {
  readonly type: string
  readonly module?: string | undefined
  readonly name: string
  readonly content: boolean
  readonly retry: { readonly window: Duration.Duration }
  readonly config: unknown
}

/** The file a sink writes (a jsonl sink's `path`), for the checks and messages that name it. */
export const sinkPath = (sink: Sink): string | undefined => {
  const config = sink.config
  return sink.type === "jsonl" && typeof config === "object" && config !== null && "path" in config
    ? typeof config.path === "string"
      ? config.path
      : undefined
    : undefined
}

// ------------------------------------------------------------------------------------ admin/log/cluster

/** The admin HTTP server. */
export const AdminSection = Schema.Struct({
  listen: hostPortWithDefault("127.0.0.1:8787"),
  token: Schema.optionalKey(ConfigSecret),
  public: Schema.Array(Schema.Literals(["healthz", "readyz", "metrics"])).pipe(withDefault([]))
})
/** @see {@link AdminSection} */
export type AdminSection = typeof AdminSection.Type

/** Logging. */
export const LogSection = Schema.Struct({
  content: Schema.Boolean.pipe(withDefault(false)),
  format: Schema.Literals(["auto", "json", "logfmt", "pretty"]).pipe(withDefault("auto")),
  level: Schema.Literals(["trace", "debug", "info", "warn", "warning", "error"]).pipe(withDefault("info"))
})
/** @see {@link LogSection} */
export type LogSection = typeof LogSection.Type

/** Where a PostgreSQL daemon listens for the other runners when `cluster.runnerAddress` is not set. */
export const defaultRunnerAddress = { host: "127.0.0.1", port: 34431 } as const

/**
 * Multi-runner settings (effect/cluster's `ShardingConfig`); all optional. With `state.postgres` the
 * daemon listens for the other runners on `runnerAddress` and tells them to reach it at `advertise`
 * (default: `runnerAddress`, for containers and NAT where the two differ).
 */
export const ClusterSection = Schema.Struct({
  runnerAddress: Schema.optionalKey(HostPortString),
  advertise: Schema.optionalKey(HostPortString),
  shardLockExpiration: Schema.optionalKey(durationAtLeast("1 second")),
  shardLockRefreshInterval: Schema.optionalKey(durationAtLeast("100 millis")),
  refreshAssignmentsInterval: Schema.optionalKey(durationAtLeast("100 millis")),
  runnerHealthCheckInterval: Schema.optionalKey(durationAtLeast("100 millis")),
  entityMessagePollInterval: Schema.optionalKey(durationAtLeast("10 millis"))
}).check(
  Schema.makeFilter(
    (c) =>
      c.shardLockExpiration === undefined ||
      c.shardLockRefreshInterval === undefined ||
      Duration.isLessThan(c.shardLockRefreshInterval, c.shardLockExpiration) || {
        path: ["shardLockRefreshInterval"],
        issue: "must be shorter than shardLockExpiration (the lock would expire between two refreshes)"
      }
  )
)
/** @see {@link ClusterSection} */
export type ClusterSection = typeof ClusterSection.Type

// ------------------------------------------------------------------------------------ moderators/authors

/** What a moderator may do: `viewer` reads; `moderator` also decides reviews, sends feedback, files appeals; `admin` also acts on platforms, erases, replays, tests policies, manages moderators. */
export const Role = Schema.Literals(["viewer", "moderator", "admin"])
/** @see {@link Role} */
export type Role = typeof Role.Type

/** A moderator's name: letters, digits, `-`, `_`, `.` (what the audit records). */
export const ModeratorName = Schema.String.check(
  Schema.isPattern(/^[A-Za-z0-9][A-Za-z0-9_.-]*$/u, { message: "must be letters, digits, '-', '_' or '.'" }),
  Schema.isMaxLength(64)
)

/** A named moderator with their own token (the shared `admin.token` stays for automation). */
export const ModeratorEntry = Schema.Struct({
  name: ModeratorName,
  role: Role,
  token: ConfigField.secret(
    Schema.RedactedFromValue(
      Schema.String.check(
        Schema.isMinLength(16, { message: "must be at least 16 characters (a guessable token is a door)" })
      )
    ),
    {
      description: "The moderator's own token (console sign-in link and Authorization: Bearer), at least 16 characters"
    }
  )
})
/** @see {@link ModeratorEntry} */
export type ModeratorEntry = typeof ModeratorEntry.Type

/** One entry of `authors.strikes.verdicts`: the verdicts that count as a strike, and its weight. */
export const StrikeVerdict = Schema.Struct({
  when: VerdictWhen,
  weight: PositiveNumber.pipe(withDefault(1))
})

/** The strike policy (`authors.strikes`). */
export const StrikesSection = Schema.Struct({
  halfLife: durationWithDefault("7 days", "1 minute"),
  verdicts: Schema.Array(StrikeVerdict).pipe(withDefault([])),
  rejection: Schema.Finite.check(Schema.isGreaterThanOrEqualTo(0)).pipe(withDefault(1))
})
/** @see {@link StrikesSection} */
export type StrikesSection = typeof StrikesSection.Type

/** The `authors` section: strikes and appeals. */
export const AuthorsSection = Schema.Struct({
  strikes: StrikesSection.pipe(withDefault({})),
  appealWindow: durationWithDefault("30 days", 0)
})
/** @see {@link AuthorsSection} */
export type AuthorsSection = typeof AuthorsSection.Type

// ------------------------------------------------------------------------------------------------ file

/** The whole file as written (before connector configs are decoded and defaults are resolved). */
export const WardenConfigFile = Schema.Struct({
  api: ApiSection,
  state: StateSection.pipe(withDefault({})),
  sources: Schema.Array(SourceEntry).pipe(withDefault([])),
  sinks: Schema.Array(SinkEntry).pipe(withDefault([{ type: "stdout" }])),
  admin: AdminSection.pipe(withDefault({})),
  log: LogSection.pipe(withDefault({})),
  dryRun: Schema.Boolean.pipe(withDefault(false)),
  cluster: ClusterSection.pipe(withDefault({})),
  moderators: Schema.Array(ModeratorEntry).pipe(withDefault([])),
  authors: AuthorsSection.pipe(withDefault({}))
})
/** The file as decoded by {@link WardenConfigFile}. */
export type WardenConfigFile = typeof WardenConfigFile.Type

/** The daemon's configuration, fully decoded and checked. */
export interface WardenConfig {
  /** Absolute path of the file it came from. */
  readonly path: string
  /** Absolute path of the data directory (`state.dir`, `WARDEN_STATE_DIR`, or `.warden` beside the file). */
  readonly dataDir: string
  readonly api: ApiSection
  readonly state: StateStore
  readonly sources: ReadonlyArray<Source>
  readonly sinks: ReadonlyArray<Sink>
  readonly admin: AdminSection
  readonly log: LogSection
  readonly dryRun: boolean
  readonly cluster: ClusterSection
  readonly moderators: ReadonlyArray<ModeratorEntry>
  readonly authors: AuthorsSection
}
