/**
 * The `sources` section, source by source, so connectors are checked even when another part of the file
 * is broken: unique ids, rules, failure modes, analysis settings, then the source's connector (found,
 * its `config` decoded by its schema with its file paths made absolute, its secrets warned about when
 * inline, the actions and content types its rules and settings ask for, and the source's shape).
 */
import { ConfigField, type Connector } from "@warden/connector"
import { Duration, Effect } from "effect"
import * as AnalysisChecks from "./AnalysisChecks.ts"
import type { ConfigProblem } from "./ConfigError.ts"
import * as Connectors from "./Connectors.ts"
import * as InlineSecrets from "./InlineSecrets.ts"
import type { CheckContext } from "./internal/CheckContext.ts"
import { decode, isRecord, keyOf } from "./internal/Decode.ts"
import * as RuleChecks from "./RuleChecks.ts"
import * as SourceShape from "./SourceShape.ts"
import { Rule, type RuleAction } from "../domain/Rule.ts"
import { SourceEntry } from "./SourceSection.ts"

/** The sources checked: each source's decoded connector config (by index) and connector (by id). */
export interface Found {
  readonly configs: ReadonlyMap<number, unknown>
  readonly connectors: ReadonlyMap<string, Connector.Connector>
}

/**
 * The keys of a source the connector checks need, each decoded on its own (problems are reported by
 * the whole-file decode): a typo in one key must not hide the connector's problems (its `config`, the
 * actions its rules ask for), so `config check` shows everything at once.
 */
const keysOf = (raw: unknown, index: number, problems: Array<ConfigProblem>, whole: ReadonlySet<string>) => {
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
 * Checks every source into `context`'s problems and warnings; the problems of keys decoded one by one
 * go to `decodeProblems` (the caller reports them beside the whole-file decode's, without repeats).
 */
export const check = (
  context: CheckContext,
  options: {
    readonly sinkNames: ReadonlyArray<string | undefined>
    readonly decodeProblems: Array<ConfigProblem>
    readonly builtins?: ReadonlyArray<Connector.Connector> | undefined
  }
): Effect.Effect<Found> =>
  Effect.gen(function* () {
    const { document, raw, problems, warnings, baseDirectory, used } = context
    const whole = context.resolved.whole
    const rawSources = Array.isArray(document.sources) ? document.sources : []
    const sourceConfigs = new Map<number, unknown>()
    const connectors = new Map<string, Connector.Connector>()
    const ids = new Map<string, number>()
    for (let i = 0; i < rawSources.length; i++) {
      const source = keysOf(rawSources[i], i, options.decodeProblems, whole)
      const at = `sources.${i}`
      const first = ids.get(source.id)
      if (first !== undefined)
        problems.push({ path: `${at}.id`, message: `duplicate source id '${source.id}' (also sources.${first})` })
      else ids.set(source.id, i)

      // Names, values in `when` and sinks here; the connector's actions once it is known (below).
      problems.push(...RuleChecks.check(source.rules, `${at}.rules`, { sinkNames: options.sinkNames }))
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
      warnings.push(
        ...InlineSecrets.warnings(
          connector.configSchema,
          rawConfig,
          ["sources", i, "config"],
          context.resolved.referenced
        )
      )

      // Its file paths (fields marked `ConfigField.path`), relative to the config file's directory.
      const written = ConfigField.resolvePaths(connector.configSchema, source.config ?? {}, baseDirectory)
      const config = decode(connector.configSchema, written, ["sources", i, "config"], "error", whole)
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
    return { configs: sourceConfigs, connectors }
  })
