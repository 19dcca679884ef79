/**
 * Reads, decodes and checks the daemon's config file: YAML (`internal/YamlFile`) -> secret references
 * (`SecretRef`, inline secrets warned about by `InlineSecrets`) -> `WARDEN_*` environment defaults for
 * `api` (`EnvFallbacks`) -> Schema decode (`internal/Decode`) -> sinks (`SinkChecks`) -> sources and their
 * connectors (`SourceChecks`) -> checks across sections (`CrossChecks`). Every problem is collected,
 * none stops the others; this module orders the steps and builds the typed config.
 */
import { dirname, isAbsolute, resolve as resolvePath } from "node:path"
import type { Connector } from "@warden/connector"
import type { Sink as SinkPlugin } from "@warden/sink"
import { Effect } from "effect"
import { ConfigError, type ConfigProblem } from "./ConfigError.ts"
import * as CrossChecks from "./CrossChecks.ts"
import { fillApiFromEnv } from "./EnvFallbacks.ts"
import * as InlineSecrets from "./InlineSecrets.ts"
import type { CheckContext } from "./internal/CheckContext.ts"
import { decode, isRecord, keyOf } from "./internal/Decode.ts"
import { read, sortByPosition } from "./internal/YamlFile.ts"
import * as SecretRef from "./SecretRef.ts"
import * as SinkChecks from "./SinkChecks.ts"
import * as SourceChecks from "./SourceChecks.ts"
import type { Sink } from "./SinkSection.ts"
import type { Source } from "./SourceSection.ts"
import { DEFAULT_SQLITE, DEFAULT_STATE_DIR, type StateStore } from "./StateSection.ts"
import { type WardenConfig, WardenConfigFile } from "./WardenConfig.ts"

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

    // 1. YAML
    const { yaml, lines, raw } = yield* read(file, path)

    // 2. secret references, then WARDEN_* defaults for api
    const sections = options.sections
    const used = (path: string) => sections === undefined || sections.some((s) => startsWithPath(path, s))
    const resolved = SecretRef.resolveAll(raw, { env, baseDirectory, skip: (path) => !used(path) })
    const problems: Array<ConfigProblem> = [...resolved.problems]
    const document = resolved.value as Record<string, unknown>
    const fromEnv = fillApiFromEnv(document, env)
    if (!used("api") && isRecord(document.api) && document.api.apiKey === undefined)
      document.api.apiKey = SecretRef.UNRESOLVED

    // The file's own secrets (marked in its schema), as written.
    const warnings: Array<ConfigProblem> = InlineSecrets.warnings(WardenConfigFile, raw, [], resolved.referenced)
    const context: CheckContext = { raw, document, resolved, baseDirectory, used, problems, warnings }
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

    // 4. sinks, then sources one by one, so connectors are checked even when another part of the file is broken
    const sinkChecks = yield* SinkChecks.check(context)
    const sourceChecks = yield* SourceChecks.check(context, {
      sinkNames: sinkChecks.names,
      decodeProblems,
      builtins: options.builtins
    })
    addDecodeProblems(decodeProblems)

    // 5.-8. across sections
    CrossChecks.check(context, decoded.ok ? decoded.value : undefined)

    if (!Array.isArray(document.sources) || document.sources.length === 0)
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
    const sources: Array<Source> = file_.sources.map((s, i) => ({ ...s, config: sourceChecks.configs.get(i) }))
    const sinks: Array<Sink> = file_.sinks.map((s, i) => {
      const type = sinkChecks.plugins.get(i)!.type
      return {
        type,
        module: s.module,
        name: s.name ?? type,
        content: s.content,
        retry: s.retry,
        config: sinkChecks.configs.get(i)
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
    const plugins = new Map(sinks.map((sink, i) => [sink.name, sinkChecks.plugins.get(i)!]))
    return {
      config,
      warnings: sortByPosition(yaml, lines, file, warnings),
      connectors: sourceChecks.connectors,
      sinks: plugins
    }
  })

/**
 * Reads, decodes and checks the daemon's config file. Fails with a {@link ConfigError} listing every
 * problem (a process failing with it exits 78).
 */
export const loadConfig = (file: string, options: Options = {}): Effect.Effect<WardenConfig, ConfigError> =>
  Effect.map(checkConfig(file, options), (checked) => checked.config)
