/**
 * `warden policy test --config FILE [--source ID] [--since 7d] [--format table|json] [--rules FILE]`:
 * a policy backtest. Replays the stored verdicts of the window through the rules of FILE (or of
 * `--rules FILE`, against the config's stored data, without editing the config; refused as `config
 * check` would refuse them) and prints per rule what it matched, what it would send to review, the
 * actions it would take, and the difference with what was actually decided: newly acted, no longer
 * acted, changed action, newly or no longer sent to review, with sample references. Author
 * conditions are evaluated over the stored history (Backtest.ts). No API call, no action; safe while
 * the daemon runs (read only).
 */
import { readFile } from "node:fs/promises"
import { Clock, Console, Duration, Effect, Layer } from "effect"
import { Command, Flag } from "effect/cli"
import { parse as parseYaml } from "yaml"
import { checkConfig, formatProblem, type Rule } from "../../config/index.ts"
import * as RuleSet from "../../config/RuleSet.ts"
import * as Backtest from "../../engine/Backtest.ts"
import * as StateStore from "../../state/StateStore.ts"
import * as Since from "../../admin/Since.ts"
import { configFlag, knownSource, refuser } from "../Refusal.ts"
import * as StateFromConfig from "../StateFromConfig.ts"
import { inert } from "../../domain/TerminalText.ts"

const refuse = refuser("policy test")

const test = Command.make(
  "test",
  {
    config: configFlag("the daemon's warden.yaml: its rules are tested against its stored verdicts"),
    source: Flag.String("source").pipe(
      Flag.withDescription("only this source (default: every source; required with --rules when there are several)"),
      Flag.optional
    ),
    since: Flag.String("since").pipe(Flag.withDescription(`the window: ${Since.EXPECTED}`), Flag.withDefault("7d")),
    format: Flag.Literals("format", ["table", "json"]).pipe(Flag.withDefault("table")),
    rules: Flag.String("rules").pipe(
      Flag.withDescription("a YAML file of rules (a list, or a mapping with rules:) to test instead of the config's"),
      Flag.optional
    )
  },
  ({ config: file, source, since, format, rules: rulesFile }) =>
    Effect.gen(function* () {
      const checked = yield* checkConfig(file, { sections: ["state", "sources"] }).pipe(
        Effect.catchTag("ConfigError", (error) => refuse(error.problems.map(formatProblem).join("\n"), 78))
      )
      const start = Since.parse(since, yield* Clock.currentTimeMillis)
      if (start === undefined) return yield* refuse(`--since: '${since}' is not ${Since.EXPECTED}`, 2)
      const ids = checked.config.sources.map((s) => s.id)
      const only = yield* knownSource(refuse, file, ids, source)
      let tested: ReadonlyArray<{ readonly source: string; readonly rules: ReadonlyArray<Rule> }> =
        checked.config.sources
          .filter((s) => only === undefined || s.id === only)
          .map((s) => ({ source: s.id, rules: s.rules }))
      if (rulesFile._tag === "Some") {
        if (only === undefined && ids.length !== 1) {
          return yield* refuse(
            `--rules needs --source when the config has ${ids.length} sources (${ids.join(", ")})`,
            2
          )
        }
        const text = yield* Effect.tryPromise({
          try: () => readFile(rulesFile.value, "utf8"),
          catch: (e) => (e as { code?: string }).code ?? String(e)
        }).pipe(Effect.catch((code) => refuse(`cannot read ${rulesFile.value}: ${code}`, 2)))
        let raw: unknown
        try {
          raw = parseYaml(text)
        } catch (e) {
          return yield* refuse(`${rulesFile.value}: YAML syntax error: ${(e as Error).message.split("\n")[0]}`, 78)
        }
        // The checks `config check` makes of the source's rules: what it refuses is refused here too.
        const target = only ?? ids[0]!
        const connector = checked.connectors.get(target)
        const decoded = RuleSet.decode(raw, ["rules"], {
          sinkNames: checked.config.sinks.map((s) => s.name),
          connector:
            connector === undefined ? undefined : { type: connector.type, actions: connector.capabilities.actions }
        })
        if (!decoded.ok) {
          return yield* refuse(
            `${rulesFile.value}: ${decoded.problems.map(formatProblem).join(`\n${rulesFile.value}: `)}`,
            78
          )
        }
        tested = [{ source: target, rules: decoded.rules }]
      }
      const sinks = checked.config.sinks.map((s) => s.name)
      const halfLifeMillis = Duration.toMillis(Duration.fromInputUnsafe(checked.config.authors.strikes.halfLife))
      const reports = yield* Effect.forEach(tested, (t) =>
        Backtest.fromStore({
          source: t.source,
          since: start,
          rules: t.rules,
          shape: { sinks, connectorActions: checked.connectors.get(t.source)?.capabilities.actions },
          halfLifeMillis
        })
      ).pipe(
        // The store's layer migrates a database older than this daemon before it is read.
        Effect.provide(StateStore.layer.pipe(Layer.provideMerge(StateFromConfig.sql(checked.config.state)))),
        Effect.catchTag("SqlError", (e) => refuse(`cannot read the state database: ${e.message}`, 1))
      )
      // References come from the platforms: escaped for the terminal.
      if (format === "json")
        yield* Console.log(inert(JSON.stringify(reports.length === 1 ? reports[0] : reports, null, 2), { lines: true }))
      else yield* Console.log(inert(reports.map(Backtest.formatTable).join("\n\n"), { lines: true }))
    })
).pipe(
  Command.withDescription(
    "Replay stored verdicts through rules (no API call, no action): per rule, what they would match and do, against what was done"
  ),
  Command.withExamples([
    {
      command: "warden policy test --config warden.yaml --since 7d",
      description: "the config's rules over the last week"
    },
    {
      command: "warden policy test -c warden.yaml --source news --rules new-rules.yaml --format json",
      description: "a draft of rules before deploying them"
    }
  ])
)

/** The `policy` command. */
export const policy = Command.make("policy").pipe(
  Command.withDescription("Work with a source's rules"),
  Command.withSubcommands([test])
)
