/**
 * Reads, decodes and checks the daemon's config file: YAML -> secret references -> `WARDEN_*`
 * environment defaults for `api` -> Schema decode -> connectors (each source's `config` decoded with
 * its connector's schema, rule actions checked against its capabilities) -> cross-checks (unique ids
 * and names, rule sinks, region base URLs). Every problem is collected, none stops the others.
 */
import { readFile } from "node:fs/promises"
import { dirname, isAbsolute, resolve as resolvePath } from "node:path"
import { ConfigField, type Connector } from "@warden/connector"
import type { Sink as SinkPlugin } from "@warden/sink"
import * as JsonlSink from "../sinks/JsonlSink.ts"
import { ApiEnv, REGION_BASE_URL } from "@warden/transport"
import { Duration, Effect, Schema } from "effect"
import { type Document, isNode, LineCounter, parseDocument } from "yaml"
import { ConfigError, type ConfigProblem } from "./ConfigError.ts"
import * as AnalysisChecks from "./AnalysisChecks.ts"
import * as ClusterChecks from "./ClusterChecks.ts"
import * as Connectors from "./Connectors.ts"
import { fromIssue } from "./internal/Problems.ts"
import * as RuleChecks from "./RuleChecks.ts"
import * as SecretRef from "./SecretRef.ts"
import * as Sinks from "./Sinks.ts"
import * as SourceShape from "./SourceShape.ts"
import {
  AuthorsSection,
  DEFAULT_SQLITE,
  DEFAULT_STATE_DIR,
  Rule,
  type RuleAction,
  SINK_KEYS,
  type Sink,
  SinkEntry,
  type Source,
  SourceEntry,
  type StateStore,
  type WardenConfig,
  WardenConfigFile
} from "./WardenConfig.ts"

/** Options of {@link loadConfig}. */
export interface Options {
  /** Environment for `${env:...}` and the `WARDEN_*` defaults (default `process.env`). */
  readonly env?: Readonly<Record<string, string | undefined>> | undefined
  /** Connectors known without importing (tests); matched by `type` first. */
  readonly builtins?: ReadonlyArray<Connector.Connector> | undefined
  /**
   * The top-level sections the command uses (default: all). Secret references elsewhere are not
   * resolved (a command must not demand a secret it does not use), and without `api` neither the API
   * key nor the region base URLs are required. The rest of the file is still checked.
   */
  readonly sections?: ReadonlyArray<Section> | undefined
}

/** A top-level section of the file. */
export type Section = "api" | "state" | "sources" | "sinks" | "admin" | "log" | "cluster" | "moderators" | "authors"

/** A config that decoded, with what `warden config check` reports beside it. */
export interface Checked {
  readonly config: WardenConfig
  /** Things that work but deserve attention (inline secrets, no sources). */
  readonly warnings: ReadonlyArray<ConfigProblem>
  /** The connector of each source, by source id. */
  readonly connectors: ReadonlyMap<string, Connector.Connector>
  /** The sink (built in or a plugin) of each sink entry, by sink name. */
  readonly sinks: ReadonlyMap<string, SinkPlugin.Sink>
}

/** `api` keys filled from the environment (the transport's `ApiEnv`) when the file leaves them out. */
const API_ENV: ReadonlyArray<readonly [key: string, variable: string]> = [
  ["apiKey", ApiEnv.apiKey],
  ["keyKind", ApiEnv.keyKind],
  ["region", ApiEnv.region],
  ["baseUrl", ApiEnv.baseUrl],
  ["baseUrlUsEast", ApiEnv.baseUrlUsEast],
  ["baseUrlUsWest", ApiEnv.baseUrlUsWest],
  ["legacyBaseUrl", ApiEnv.legacyBaseUrl],
  ["legacyApiKey", ApiEnv.legacyApiKey],
  ["timeout", ApiEnv.timeout]
]
const RETRY_ENV: ReadonlyArray<readonly [key: string, variable: string]> = [
  ["maxAttempts", ApiEnv.retryMaxAttempts],
  ["baseDelay", ApiEnv.retryBaseDelay],
  ["maxDelay", ApiEnv.retryMaxDelay],
  ["maxElapsed", ApiEnv.retryMaxElapsed]
]

/**
 * The config keys a `WARDEN_*` variable fills when the file leaves them out, with the variables (the
 * reference docs list them; a drift test sets each and checks its key is filled).
 */
export const ENV_FALLBACKS: ReadonlyMap<string, string> = new Map([
  ...API_ENV.map(([key, variable]) => [`api.${key}`, variable] as const),
  ...RETRY_ENV.map(([key, variable]) => [`api.retry.${key}`, variable] as const),
  ["api.regions.failover", ApiEnv.failover],
  ["api.quotas.default", `${ApiEnv.rateLimitRps}, ${ApiEnv.rateLimitBurst}`]
])

const BASE_URL_KEY = { global: "baseUrl", "us-east": "baseUrlUsEast", "us-west": "baseUrlUsWest" } as const
const BASE_URL_ENV = REGION_BASE_URL

/** Paths of secrets: written inline they work, but `config check` warns. */
/** The value at `path` in a value as written (`undefined` when not there). */
const valueAt = (value: unknown, path: ReadonlyArray<string | number>): unknown =>
  path.reduce<unknown>(
    (v, k) => (Array.isArray(v) && typeof k === "number" ? v[k] : isRecord(v) ? v[String(k)] : undefined),
    value
  )

/** The warning on a secret whose value is in the file itself. */
// biome-ignore lint/suspicious/noTemplateCurlyInString: the reference syntax, shown to the user
const INLINE_SECRET = "secret written inline; prefer ${env:NAME} or ${file:path}"

const isSecretPath = (path: string): boolean =>
  /^(api\.apiKey|api\.legacyApiKey|state\.postgres|admin\.token|moderators\.\d+\.token)$/u.test(path)

const isRecord = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

const asNumber = (s: string): number | string => (/^-?\d+(\.\d+)?$/u.test(s.trim()) ? Number(s) : s)

/** Fills `api` keys the file leaves out from `WARDEN_*` variables; returns which path came from which variable. */
const fillApiFromEnv = (
  document: Record<string, unknown>,
  env: Readonly<Record<string, string | undefined>>
): Map<string, string> => {
  const filled = new Map<string, string>()
  const api: Record<string, unknown> = isRecord(document.api) ? { ...document.api } : {}
  if (document.api !== undefined && !isRecord(document.api)) return filled
  const set = (target: Record<string, unknown>, key: string, variable: string, path: string, value: unknown) => {
    if (target[key] !== undefined) return
    target[key] = value
    filled.set(path, variable)
  }
  for (const [key, variable] of API_ENV) {
    const v = env[variable]
    if (v !== undefined && v !== "") set(api, key, variable, `api.${key}`, v)
  }
  if (isRecord(api.retry) || api.retry === undefined) {
    const retry: Record<string, unknown> = { ...((api.retry as Record<string, unknown> | undefined) ?? {}) }
    for (const [key, variable] of RETRY_ENV) {
      const v = env[variable]
      if (v !== undefined && v !== "")
        set(retry, key, variable, `api.retry.${key}`, key === "maxAttempts" ? asNumber(v) : v)
    }
    if (Object.keys(retry).length > 0) api.retry = retry
  }
  const failover = env[ApiEnv.failover]
  if (failover !== undefined && failover.trim() !== "" && (isRecord(api.regions) || api.regions === undefined)) {
    const regions: Record<string, unknown> = { ...((api.regions as Record<string, unknown> | undefined) ?? {}) }
    if (regions.failover === undefined) {
      set(
        regions,
        "failover",
        ApiEnv.failover,
        "api.regions.failover",
        failover
          .split(",")
          .map((s) => s.trim())
          .filter((s) => s !== "")
      )
      if (regions.policy === undefined) regions.policy = "failover"
      api.regions = regions
    }
  }
  const rps = env[ApiEnv.rateLimitRps]
  if (rps !== undefined && rps !== "" && (isRecord(api.quotas) || api.quotas === undefined)) {
    const quotas: Record<string, unknown> = { ...((api.quotas as Record<string, unknown> | undefined) ?? {}) }
    const burst = env[ApiEnv.rateLimitBurst]
    set(quotas, "default", ApiEnv.rateLimitRps, "api.quotas.default", {
      requestsPerSecond: asNumber(rps),
      ...(burst !== undefined && burst !== "" ? { burst: asNumber(burst) } : {})
    })
    api.quotas = quotas
  }
  document.api = api
  return filled
}

/**
 * Decodes one key of a record on its own: its value, or `fallback` when it does not decode. Its
 * problems go to `problems` (at `prefix`): a check on a key (a bound, a relation) only runs once its
 * whole struct decodes, so decoding key by key is what shows every problem in one run.
 */
const keyOf =
  (
    entry: Record<string, unknown>,
    problems?: Array<ConfigProblem>,
    prefix: ReadonlyArray<PropertyKey> = [],
    whole?: ReadonlySet<string>
  ) =>
  <S extends Schema.Top & { readonly DecodingServices: never }, F extends S["Type"] | undefined>(
    name: string,
    schema: S,
    fallback: F
  ): S["Type"] | F => {
    const input = Object.hasOwn(entry, name) ? { [name]: entry[name] } : {}
    const r = decode(Schema.Struct({ [name]: schema }), input, prefix, "ignore", whole)
    if (!r.ok) problems?.push(...r.problems)
    return r.ok ? (r.value as Record<string, S["Type"]>)[name] : fallback
  }

/**
 * The keys of a source the connector checks need, each decoded on its own (problems are reported by
 * the whole-file decode): a typo in one key must not hide the connector's problems (its `config`, the
 * actions its rules ask for), so `config check` shows everything at once.
 */
const sourceChecks = (raw: unknown, index: number, problems: Array<ConfigProblem>, whole: ReadonlySet<string>) => {
  const entry = isRecord(raw) ? raw : {}
  const key = keyOf(entry, problems, ["sources", index], whole)
  // Keys the connector checks do not need, decoded for their problems only.
  for (const name of ["channelId", "dryRun", "oversize", "autoFeedback", "retention"] as const)
    key(name, SourceEntry.fields[name], undefined)
  const rawRules = Array.isArray(entry.rules) ? entry.rules : []
  // Rule by rule, key by key: a broken name leaves its actions and conditions checked.
  const rules = rawRules.map((rule, r) => {
    const k = keyOf(isRecord(rule) ? rule : {}, problems, ["sources", index, "rules", r], whole)
    return {
      name: k("name", Rule.fields.name, undefined),
      when: k("when", Rule.fields.when, undefined) ?? {},
      actions: (k("actions", Rule.fields.actions, undefined) ?? []) as ReadonlyArray<RuleAction>,
      sinks: k("sinks", Rule.fields.sinks, undefined)
    }
  })
  return {
    id: key("id", SourceEntry.fields.id, `#${index}`),
    type: key("type", SourceEntry.fields.type, undefined),
    module: key("module", SourceEntry.fields.module, undefined),
    analyse: key("analyse", SourceEntry.fields.analyse, undefined) ?? ["text"],
    mode: key("mode", SourceEntry.fields.mode, undefined) ?? "v1",
    analysis: key("analysis", SourceEntry.fields.analysis, undefined),
    rawAnalysis: entry.analysis,
    config: entry.config,
    rules,
    failureMode: key("failureMode", SourceEntry.fields.failureMode, undefined) ?? {
      mode: "hold" as const,
      after: Duration.minutes(5)
    }
  }
}

/**
 * Decodes with every problem reported, problems prefixed with `prefix`. A string that was one
 * reference alone (a path in `whole`, e.g. `maxAttempts: ${env:N}`) is read as the number or boolean
 * the schema expects there, then the input is decoded again: YAML has typed the value as a string,
 * the operator meant the variable's value.
 */
const decode = <S extends Schema.Top & { readonly DecodingServices: never }>(
  schema: S,
  input: unknown,
  prefix: ReadonlyArray<PropertyKey> = [],
  onExcessProperty: "error" | "ignore" = "error",
  whole: ReadonlySet<string> = new Set()
):
  | { readonly ok: true; readonly value: S["Type"] }
  | { readonly ok: false; readonly problems: Array<ConfigProblem> } => {
  const result = Schema.decodeUnknownExit(schema, { errors: "all", onExcessProperty })(input)
  if (result._tag === "Success") return { ok: true, value: result.value }
  const problems: Array<ConfigProblem> = []
  for (const reason of result.cause.reasons) {
    if (reason._tag === "Fail" && Schema.isSchemaError(reason.error))
      problems.push(...fromIssue(reason.error.issue, prefix))
    else problems.push({ path: prefix.map(String).join("."), message: String(reason) })
  }
  const coerced = whole.size > 0 ? coerceReferences(input, prefix, problems, whole) : undefined
  return coerced === undefined ? { ok: false, problems } : decode(schema, coerced, prefix, onExcessProperty)
}

/**
 * A copy of `input` with the whole-reference strings that failed as "expected number/boolean" turned
 * into that type; `undefined` when there is none to turn (or the string is no number or boolean).
 */
const coerceReferences = (
  input: unknown,
  prefix: ReadonlyArray<PropertyKey>,
  problems: ReadonlyArray<ConfigProblem>,
  whole: ReadonlySet<string>
): unknown => {
  const base = prefix.map(String).join(".")
  let copy: unknown
  let changed = false
  for (const problem of problems) {
    if (!whole.has(problem.path)) continue
    const wanted = /^expected (number|boolean)\b/u.exec(problem.message)?.[1]
    if (wanted === undefined) continue
    const relative = (base === "" ? problem.path : problem.path.slice(base.length + 1)).split(".")
    copy ??= structuredClone(input)
    let parent: any = copy
    for (const key of relative.slice(0, -1)) parent = parent?.[key]
    const key = relative[relative.length - 1]!
    const text = parent?.[key]
    if (typeof text !== "string") continue
    const value =
      wanted === "number"
        ? /^\s*-?\d+(\.\d+)?\s*$/u.test(text)
          ? Number(text)
          : undefined
        : text === "true" || text === "false"
          ? text === "true"
          : undefined
    if (value === undefined) continue
    parent[key] = value
    changed = true
  }
  return changed ? copy : undefined
}

/**
 * Orders problems as their paths appear in the file (the closest existing node of each path), stable,
 * and gives each its `FILE:LINE:COLUMN` (a problem of the whole file, at no node, gets none).
 */
const sortByPosition = (
  yaml: Document,
  lines: LineCounter,
  file: string,
  problems: ReadonlyArray<ConfigProblem>
): Array<ConfigProblem> => {
  const position = (path: string): number | undefined => {
    if (path === "") return undefined
    const keys = path.split(".").map((k) => (/^\d+$/u.test(k) ? Number(k) : k))
    for (let n = keys.length; n > 0; n--) {
      const node = yaml.getIn(keys.slice(0, n), true)
      if (isNode(node) && node.range) return node.range[0]
    }
    return undefined
  }
  return problems
    .map((p, i) => ({ p, i, at: position(p.path) }))
    .sort(
      (a, b) =>
        (a.at ?? (a.p.path === "" ? -1 : Number.MAX_SAFE_INTEGER)) -
          (b.at ?? (b.p.path === "" ? -1 : Number.MAX_SAFE_INTEGER)) || a.i - b.i
    )
    .map(({ p, at }) => {
      if (at === undefined || p.location !== undefined) return p
      const { line, col } = lines.linePos(at)
      return { ...p, location: `${file}:${line}:${col}` }
    })
}

/** Two moderators of one name (their decisions could not be told apart), or one named like the shared token. */
const moderatorProblems = (raw: unknown): Array<ConfigProblem> => {
  if (!Array.isArray(raw)) return []
  const problems: Array<ConfigProblem> = []
  const seen = new Map<string, number>()
  raw.forEach((entry, i) => {
    const name = isRecord(entry) && typeof entry.name === "string" ? entry.name : undefined
    if (name === undefined) return
    if (name === "admin-token")
      problems.push({
        path: `moderators.${i}.name`,
        message: "'admin-token' is the name the audit gives the shared admin.token; choose another"
      })
    const first = seen.get(name)
    if (first !== undefined)
      problems.push({
        path: `moderators.${i}.name`,
        message: `duplicate moderator name '${name}' (also moderators.${first})`
      })
    else seen.set(name, i)
  })
  return problems
}

const startsWithPath = (path: string, prefix: string): boolean =>
  path === prefix || path.startsWith(`${prefix}.`) || prefix === ""

/**
 * Reads and checks a config file, returning the typed config with the warnings `config check` prints.
 * Never starts anything (no sockets, no database): connectors are imported, not made.
 */
export const checkConfig = (file: string, options: Options = {}): Effect.Effect<Checked, ConfigError> =>
  Effect.withSpan(check(file, options), "Config.checkConfig", { attributes: { file } })

const check = (file: string, options: Options): Effect.Effect<Checked, ConfigError> =>
  Effect.gen(function* () {
    const path = resolvePath(file)
    const baseDirectory = dirname(path)
    const env = options.env ?? process.env
    const fail = (problems: ReadonlyArray<ConfigProblem>) => Effect.fail(new ConfigError({ file, problems }))

    const text = yield* Effect.tryPromise({
      try: () => readFile(path, "utf8"),
      catch: (error) =>
        new ConfigError({
          file,
          problems: [
            { path: "", message: `cannot read ${file}: ${(error as { code?: string }).code ?? String(error)}` }
          ]
        })
    })

    // 1. YAML
    const lines = new LineCounter()
    const yaml = parseDocument(text, { prettyErrors: true, uniqueKeys: true, lineCounter: lines })
    if (yaml.errors.length > 0) {
      return yield* fail(
        yaml.errors.map((e) => ({
          path: "",
          location: e.linePos !== undefined ? `${file}:${e.linePos[0].line}:${e.linePos[0].col}` : file,
          message: `YAML syntax error: ${e.message.split("\n")[0]!.replace(/ at line \d+, column \d+:?$/u, "")}`
        }))
      )
    }
    const raw = yaml.toJS({ maxAliasCount: 100 }) ?? {}
    if (!isRecord(raw)) return yield* fail([{ path: "", message: "the file must be a YAML mapping (key: value)" }])

    // 2. secret references, then WARDEN_* defaults for api
    const sections = options.sections
    const used = (path: string) => sections === undefined || sections.some((s) => startsWithPath(path, s))
    const resolved = SecretRef.resolveAll(raw, { env, baseDirectory, skip: (path) => !used(path) })
    const problems: Array<ConfigProblem> = [...resolved.problems]
    const document = resolved.value as Record<string, unknown>
    const fromEnv = fillApiFromEnv(document, env)
    if (!used("api") && isRecord(document.api) && document.api.apiKey === undefined)
      document.api.apiKey = SecretRef.UNRESOLVED

    const warnings: Array<ConfigProblem> = []
    const inlineSecrets = (value: unknown, at: ReadonlyArray<string | number>): void => {
      const p = at.join(".")
      if (typeof value === "string" && isSecretPath(p) && !resolved.referenced.has(p)) {
        warnings.push({ path: p, message: INLINE_SECRET })
      } else if (Array.isArray(value)) {
        for (let i = 0; i < value.length; i++) inlineSecrets(value[i], [...at, i])
      } else if (isRecord(value)) for (const [k, v] of Object.entries(value)) inlineSecrets(v, [...at, k])
    }
    inlineSecrets(raw, [])

    // 3. the whole file
    /** A decoding problem as the user sees it: none under a reference that did not resolve, the variable named. */
    const decodeProblems: Array<ConfigProblem> = []
    const addDecodeProblems = (found: ReadonlyArray<ConfigProblem>) => {
      for (const p of found) {
        if (resolved.problems.some((r) => startsWithPath(p.path, r.path))) continue
        const variable = fromEnv.get(p.path)
        if (p.path === "api.apiKey" && p.message === "required key is missing") {
          problems.push({
            path: p.path,
            // biome-ignore lint/suspicious/noTemplateCurlyInString: the reference syntax, shown to the user
            message: "required: set api.apiKey (e.g. ${env:WARDEN_API_KEY}) or the environment variable WARDEN_API_KEY"
          })
        } else problems.push(variable === undefined ? p : { ...p, message: `${p.message} (from ${variable})` })
      }
    }
    const whole = resolved.whole
    const decoded = decode(WardenConfigFile, document, [], "error", whole)
    if (!decoded.ok) {
      addDecodeProblems(decoded.problems)
      // Section by section too: a check in one section only runs once its struct decodes, so a
      // problem elsewhere must not hide it.
      const section = keyOf(document, decodeProblems, [], whole)
      for (const name of ["api", "state", "admin", "log", "dryRun", "cluster", "moderators", "authors"] as const)
        section(name, WardenConfigFile.fields[name], undefined)
    }

    // 4. sources, one by one, so connectors are checked even when another part of the file is broken
    const rawSources = Array.isArray(document.sources) ? document.sources : []
    const rawSinks = Array.isArray(document.sinks)
      ? document.sinks
      : document.sinks === undefined
        ? [{ type: "stdout" }]
        : []
    // Each sink found (built in, package or module) and its own keys decoded by its schema, as a
    // source's connector is: problems name `sinks.N.<key>`, its secrets are warned about when inline
    // and never shown in a problem.
    const sinkPlugins = new Map<number, SinkPlugin.Sink>()
    const sinkConfigs = new Map<number, unknown>()
    const sinkNames: Array<string | undefined> = []
    for (let i = 0; i < rawSinks.length; i++) {
      const at = `sinks.${i}`
      const d = decode(SinkEntry, rawSinks[i], ["sinks", i], "error", whole)
      if (!d.ok) {
        sinkNames.push(undefined)
        continue
      }
      const entry = d.value
      const ref = entry.type !== undefined ? { type: entry.type } : { module: entry.module! }
      const plugin = yield* Sinks.resolve(baseDirectory, ref).pipe(
        Effect.catch((error) =>
          Effect.sync(
            () => void problems.push({ path: `${at}.${"type" in ref ? "type" : "module"}`, message: error.message })
          )
        )
      )
      sinkNames.push(entry.name ?? plugin?.type ?? entry.type)
      if (plugin === undefined) continue
      sinkPlugins.set(i, plugin)
      const own = (value: unknown) =>
        isRecord(value) ? Object.fromEntries(Object.entries(value).filter(([k]) => !SINK_KEYS.includes(k))) : {}
      const rawEntry = Array.isArray(raw.sinks) ? raw.sinks[i] : undefined
      const secrets: Array<string> = []
      for (const secretAt of ConfigField.secretValues(plugin.configSchema, own(rawEntry))) {
        const p = [at, ...secretAt].join(".")
        if (!resolved.referenced.has(p)) warnings.push({ path: p, message: INLINE_SECRET })
        const value = valueAt(own(rawSinks[i]), secretAt)
        if (typeof value === "string" && value !== "") secrets.push(value)
      }
      const config = decode(plugin.configSchema, own(rawSinks[i]), ["sinks", i], "error", whole)
      // The jsonl file, relative to the config file's directory (the daemon's own sink: it reads no host path).
      const value =
        config.ok && plugin === JsonlSink.sink && isRecord(config.value) && typeof config.value.path === "string"
          ? {
              ...config.value,
              path: isAbsolute(config.value.path) ? config.value.path : resolvePath(baseDirectory, config.value.path)
            }
          : config.ok
            ? config.value
            : undefined
      if (config.ok) sinkConfigs.set(i, value)
      else
        problems.push(
          ...config.problems.map((p) => ({
            ...p,
            message: secrets.reduce((m, secret) => m.replaceAll(secret, "<redacted>"), p.message)
          }))
        )
    }
    sinkNames.forEach((name, i) => {
      if (name !== undefined && sinkNames.indexOf(name) !== i) {
        problems.push({
          path: `sinks.${i}.name`,
          message: `duplicate sink name '${name}' (also sinks.${sinkNames.indexOf(name)}); give each sink a unique name`
        })
      }
    })

    const sourceConfigs = new Map<number, unknown>()
    const connectors = new Map<string, Connector.Connector>()
    const ids = new Map<string, number>()
    for (let i = 0; i < rawSources.length; i++) {
      const source = sourceChecks(rawSources[i], i, decodeProblems, whole)
      const at = `sources.${i}`
      const first = ids.get(source.id)
      if (first !== undefined)
        problems.push({ path: `${at}.id`, message: `duplicate source id '${source.id}' (also sources.${first})` })
      else ids.set(source.id, i)

      // Names, values in `when` and sinks here; the connector's actions once it is known (below).
      problems.push(...RuleChecks.check(source.rules, `${at}.rules`, { sinkNames }))

      if (source.failureMode.mode === "reject" && source.failureMode.action === undefined) {
        problems.push({ path: `${at}.failureMode.action`, message: "required when mode is reject" })
      }
      const analysisChecks = AnalysisChecks.check({
        at,
        raw: source.rawAnalysis,
        decoded: source.analysis,
        keyKind: isRecord(document.api) ? document.api.keyKind : undefined,
        mode: source.mode,
        analyse: source.analyse
      })
      problems.push(...analysisChecks.problems)
      warnings.push(...analysisChecks.warnings)

      if ((source.type === undefined) === (source.module === undefined)) continue
      const ref = source.type !== undefined ? { type: source.type } : { module: source.module! }
      const refPath = source.type !== undefined ? `${at}.type` : `${at}.module`
      const connector = yield* Connectors.resolve(baseDirectory, ref, options.builtins).pipe(
        Effect.catch((error) => Effect.sync(() => void problems.push({ path: refPath, message: error.message })))
      )
      if (connector === undefined) continue
      connectors.set(source.id, connector)
      // The connector's own credentials (fields marked `ConfigField.secret`), as written in the file.
      const rawSource = Array.isArray(raw.sources) ? raw.sources[i] : undefined
      const rawConfig = isRecord(rawSource) ? rawSource.config : undefined
      for (const secretAt of ConfigField.secretValues(connector.configSchema, rawConfig)) {
        const p = [at, "config", ...secretAt].join(".")
        if (!resolved.referenced.has(p)) warnings.push({ path: p, message: INLINE_SECRET })
      }

      const config = decode(connector.configSchema, source.config ?? {}, ["sources", i, "config"], "error", whole)
      if (!config.ok) problems.push(...config.problems)

      const can = connector.capabilities.actions
      const cannot = (kind: string) =>
        `connector ${connector.type} cannot '${kind}'; it can: ${can.length === 0 ? "(none)" : can.join(", ")}`
      problems.push(...RuleChecks.connectorActions(source.rules, `${at}.rules`, { type: connector.type, actions: can }))
      const fallback = source.failureMode.action
      if (fallback !== undefined && !can.includes(fallback)) {
        problems.push({ path: `${at}.failureMode.action`, message: cannot(fallback) })
      }
      const unsupported = source.analyse.filter((c) => !connector.capabilities.contentTypes.includes(c))
      if (unsupported.length > 0) {
        warnings.push({
          path: `${at}.analyse`,
          message: `connector ${connector.type} emits only ${connector.capabilities.contentTypes.join(", ")}; ${unsupported.join(", ")} will never occur`
        })
      }
      if (config.ok) {
        sourceConfigs.set(i, config.value)
        // Only with the source's secrets resolved (a command that skips sources passes placeholders).
        if (used(at)) {
          const shape = yield* SourceShape.check(connector, config.value, {
            at,
            refPath,
            sourceId: source.id,
            written: "type" in ref ? `type ${ref.type}` : `module ${ref.module}`
          })
          problems.push(...shape.problems)
          warnings.push(...shape.warnings)
        }
        // The connector's floor stops a hot loop; a poll under a second is still rarely meant for a remote feed.
        const poll = isRecord(config.value) ? config.value.pollInterval : undefined
        if (Duration.isDuration(poll) && Duration.isLessThan(poll, Duration.seconds(1))) {
          warnings.push({
            path: `${at}.config.pollInterval`,
            message: `polls every ${Duration.format(poll)}: under a second, fit for a local test feed, not for a remote one`
          })
        }
      }
    }

    addDecodeProblems(decodeProblems)

    // 5. the API: v1 sources need the base URL of every region they may use, legacy sources the legacy host
    if (decoded.ok && used("api")) {
      const api = decoded.value.api
      const modes = new Set(decoded.value.sources.map((s) => s.mode))
      if (modes.has("v1")) {
        const used = [api.region, ...(api.regions.policy === "failover" ? api.regions.failover : [])]
        for (const region of new Set(used)) {
          const key = BASE_URL_KEY[region]
          if (api[key] === undefined) {
            problems.push({
              path: `api.${key}`,
              message: `required: region ${region} is used by v1 sources but has no base URL (set api.${key} or ${BASE_URL_ENV[region]})`
            })
          }
        }
      }
      if (modes.has("legacy") && api.legacyBaseUrl === undefined) {
        problems.push({
          path: "api.legacyBaseUrl",
          message: "required: a source uses mode legacy (set api.legacyBaseUrl or WARDEN_LEGACY_BASE_URL)"
        })
      }
      if (api.regions.policy === "failover" && api.regions.failover.length === 0) {
        problems.push({
          path: "api.regions.failover",
          message: "policy failover needs at least one region to fail over to"
        })
      }
    }

    // 6. cluster settings that cannot work as written
    if (decoded.ok && used("cluster")) {
      warnings.push(
        ...ClusterChecks.check({
          postgres: decoded.value.state.postgres !== undefined,
          written: isRecord(document.cluster) ? Object.keys(document.cluster) : [],
          cluster: decoded.value.cluster
        })
      )
    }

    // 7. moderators and authors
    problems.push(...moderatorProblems(document.moderators))
    // The section on its own: a problem elsewhere in the file must not hide these.
    const authors = decode(AuthorsSection, document.authors ?? {}, ["authors"], "ignore", whole)
    if (authors.ok) {
      for (const [i, v] of authors.value.strikes.verdicts.entries())
        problems.push(...RuleChecks.unknownNames(v.when, `authors.strikes.verdicts.${i}.when`))
    }
    if (decoded.ok) {
      const { strikes } = decoded.value.authors
      if (strikes.verdicts.length === 0 && strikes.rejection === 0) {
        for (const [i, source] of decoded.value.sources.entries()) {
          for (const [r, rule] of source.rules.entries()) {
            if (rule.when.author?.strikesAtLeast !== undefined)
              warnings.push({
                path: `sources.${i}.rules.${r}.when.author.strikesAtLeast`,
                message:
                  "never matches: authors.strikes counts no verdicts and rejections weigh 0, so no author has strikes"
              })
          }
        }
      }
    }

    // 8. sink settings whose meaning changed (issue 38): said once, where they are written
    if (decoded.ok) {
      const { sinks, log } = decoded.value
      if (log.content && !sinks.some((s) => s.content))
        warnings.push({
          path: "log.content",
          message: "governs the logs only: no sink's records carry the content text unless its entry says content: true"
        })
      for (const [i, sink] of sinks.entries())
        if (sink.type === "webhook" && sink.maxAttempts !== undefined)
          warnings.push({
            path: `sinks.${i}.maxAttempts`,
            message: "ignored: a failed delivery is retried for the sink's retry.window (default 24 hours)"
          })
    }

    if (rawSources.length === 0)
      warnings.push({ path: "sources", message: "no sources: `warden run` needs at least one" })

    if (problems.length > 0 || !decoded.ok) {
      const seen = new Set<string>()
      const unique = problems.filter((p) => {
        const key = `${p.path}\u0000${p.message}`
        if (seen.has(key)) return false
        seen.add(key)
        return true
      })
      // Warnings go with the problems: hiding them until every error is fixed only delays them.
      return yield* Effect.fail(
        new ConfigError({
          file,
          problems: sortByPosition(yaml, lines, file, unique),
          warnings: sortByPosition(yaml, lines, file, warnings)
        })
      )
    }

    const file_ = decoded.value
    const absolute = (p: string) => (isAbsolute(p) ? p : resolvePath(baseDirectory, p))
    // The data directory: the default SQLite file and a generated admin token go there, so the
    // config can live on a read-only mount (a ConfigMap, /etc) and the state on a volume.
    const stateDir = file_.state.dir ?? (env.WARDEN_STATE_DIR?.trim() || undefined)
    const dataDir = absolute(stateDir ?? DEFAULT_STATE_DIR)
    const state: StateStore =
      file_.state.postgres !== undefined
        ? { _tag: "Postgres", url: file_.state.postgres }
        : {
            _tag: "Sqlite",
            filename:
              file_.state.sqlite !== undefined
                ? absolute(file_.state.sqlite)
                : stateDir !== undefined
                  ? resolvePath(dataDir, "state.db")
                  : absolute(DEFAULT_SQLITE)
          }
    const sources: Array<Source> = file_.sources.map((s, i) => ({ ...s, config: sourceConfigs.get(i) }))
    const sinks: Array<Sink> = file_.sinks.map((s, i) => {
      const type = sinkPlugins.get(i)!.type
      return {
        type,
        module: s.module,
        name: s.name ?? type,
        content: s.content,
        retry: s.retry,
        config: sinkConfigs.get(i)
      }
    })
    const config: WardenConfig = {
      path,
      dataDir,
      api: file_.api,
      state,
      sources,
      sinks,
      admin: file_.admin,
      log: file_.log,
      dryRun: file_.dryRun,
      cluster: file_.cluster,
      moderators: file_.moderators,
      authors: file_.authors
    }
    const plugins = new Map(sinks.map((sink, i) => [sink.name, sinkPlugins.get(i)!]))
    return { config, warnings: sortByPosition(yaml, lines, file, warnings), connectors, sinks: plugins }
  })

/**
 * Reads, decodes and checks the daemon's config file. Fails with a {@link ConfigError} listing every
 * problem (a process failing with it exits 78).
 */
export const loadConfig = (file: string, options: Options = {}): Effect.Effect<WardenConfig, ConfigError> =>
  Effect.map(checkConfig(file, options), (checked) => checked.config)
