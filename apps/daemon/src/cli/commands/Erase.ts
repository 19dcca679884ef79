/**
 * `warden erase --config FILE (--reference REF | --author KEY | --username NAME --source ID) [--yes]`:
 * erases every stored copy of the content of the items named (items, segments, outbox, dead letters,
 * the `sql` sink's table, feedback sent, processed cluster messages) and prints the counts. By author
 * (`<platform>:<identifier>`, every source of the platform; or an identifier with `--source`), their
 * name, strikes and review statements go too. By username (where that is all a platform gives), the
 * authors it finds are listed first and erased once confirmed (`--yes`, or `y` on a terminal).
 * References, versions, content hashes, verdict types and action outcomes stay (dedupe and statistics
 * need them); an audit row records who (`user@host`), when and how many, never the content. See
 * state/Erasure.ts.
 */
import { createInterface } from "node:readline/promises"
import { Console, Effect, Layer } from "effect"
import type { SqlError } from "effect/sql"
import { Command, Flag } from "effect/cli"
import { checkConfig, formatProblem } from "../../config/index.ts"
import { SinkStores, unique } from "../../state/SinkStores.ts"
import { Erasure } from "../../state/Erasure.ts"
import type { Erased } from "../../state/ErasureCounts.ts"
import { authorSelector, type Selector, type UsernamePlan } from "../../state/ErasureSelector.ts"
import * as StateStore from "../../state/StateStore.ts"
import { operator } from "../Operator.ts"
import { configFlag, knownSource, refuser } from "../Refusal.ts"
import * as StateFromConfig from "../StateFromConfig.ts"
import { inert } from "../../domain/TerminalText.ts"

const refuse = refuser("erase")

/** What an erasure by username would erase, as the confirmation shows it. */
const listing = (plan: UsernamePlan): string =>
  [
    `username ${plan.username} in source ${plan.source}: this erases`,
    ...plan.authors.map(
      (a) =>
        `  author ${a.key}: ${a.items} item version${a.items === 1 ? "" : "s"} in ${a.sources.join(", ")} (names: ${a.usernames.join(", ") || "none"}), their strikes and review statements`
    ),
    ...(plan.withoutKey > 0
      ? [
          `  ${plan.withoutKey} item version${plan.withoutKey === 1 ? "" : "s"} of that name that name no author identifier`
        ]
      : [])
  ].join("\n")

/** On a terminal, asks; anywhere else, no (a script says --yes). */
const confirmed = Effect.promise(async () => {
  if (process.stdin.isTTY !== true) return false
  const rl = createInterface({ input: process.stdin, output: process.stderr })
  try {
    return /^y(es)?$/iu.test((await rl.question("erase? [y/N] ")).trim())
  } finally {
    rl.close()
  }
})

/** The counts of one erasure, as printed. */
const summary = (done: Erased, what: string) => {
  const c = done.counts
  return [
    `erased ${c.items} item version${c.items === 1 ? "" : "s"} (${done.references.length} reference${done.references.length === 1 ? "" : "s"}) of ${what}`,
    `  segments ${c.segments}, outbox ${c.outbox}, dead letters ${c.deadLetters}, source dead letters ${c.sourceDeadLetters}, feedback ${c.feedback}, sql sink ${c.sqlSink}, cluster messages ${c.clusterMessages}, strikes ${c.strikes}, review rows ${c.reviews}, received not yet recorded ${c.intake}`,
    `  audit ${done.audit}`
  ].join("\n")
}

/** The `erase` command. */
export const erase = Command.make(
  "erase",
  {
    config: configFlag("the daemon's warden.yaml (its state section is used)"),
    reference: Flag.String("reference").pipe(
      Flag.withDescription("erase the items with this reference"),
      Flag.optional
    ),
    author: Flag.String("author").pipe(
      Flag.withDescription(
        "erase every item, the name and the strikes of this author: <platform>:<identifier> (discord:1234), or the identifier with --source"
      ),
      Flag.optional
    ),
    username: Flag.String("username").pipe(
      Flag.withDescription("erase the authors recorded under this username in --source (listed first, then confirmed)"),
      Flag.optional
    ),
    yes: Flag.Boolean("yes").pipe(Flag.withDescription("erase by --username without asking"), Flag.withDefault(false)),
    source: Flag.String("source").pipe(
      Flag.withDescription("only in this source (default: every source)"),
      Flag.optional
    ),
    json: Flag.Boolean("json").pipe(Flag.withDescription("print the counts as JSON"), Flag.withDefault(false))
  },
  ({ config: file, reference, author, username, yes, source, json }) =>
    Effect.gen(function* () {
      const given = [reference, author, username].filter((f) => f._tag === "Some").length
      if (given !== 1) {
        return yield* refuse("give exactly one of --reference REF, --author KEY or --username NAME --source ID", 2)
      }
      const checked = yield* checkConfig(file, { sections: ["state"] }).pipe(
        Effect.catchTag("ConfigError", (error) => refuse(error.problems.map(formatProblem).join("\n"), 78))
      )
      const ids = checked.config.sources.map((s) => s.id)
      const only = yield* knownSource(refuse, file, ids, source)
      if (username._tag === "Some" && only === undefined)
        return yield* refuse("--username needs --source: a username is only a name within one source", 2)
      // Each source's platform (its connector's type): the platform part of author keys.
      const platforms = new Map([...checked.connectors].map(([id, c]) => [id, c.type]))
      const actor = { name: `cli:${operator()}`, role: "cli" }
      const onState = <A>(effect: Effect.Effect<A, SqlError.SqlError, Erasure>) =>
        effect.pipe(
          Effect.provide(
            Erasure.layer.pipe(
              Layer.provide(
                Layer.succeed(SinkStores, unique([...checked.sinks.values()].flatMap((plugin) => plugin.stores)))
              ),
              Layer.provideMerge(StateStore.layer),
              Layer.provideMerge(StateFromConfig.sql(checked.config.state))
            )
          ),
          Effect.catchTag("SqlError", (e) => refuse(`cannot write the state database: ${e.message}`, 1))
        )
      if (username._tag === "Some") {
        const plan = yield* onState(Effect.flatMap(Effect.service(Erasure), (e) => e.byUsername(only!, username.value)))
        if (plan.authors.length === 0 && plan.withoutKey === 0)
          return yield* refuse(`no stored item of username ${username.value} in source ${only}`, 1)
        yield* Console.log(inert(listing(plan), { lines: true }))
        if (!yes && !(yield* confirmed)) return yield* refuse("nothing erased (confirm with --yes)", 1)
        const done = yield* onState(
          Effect.flatMap(Effect.service(Erasure), (e) => e.eraseUsername(plan, platforms, actor))
        )
        if (json) return yield* Console.log(JSON.stringify(done, null, 2))
        for (const d of done) yield* Console.log(summary(d, "that username"))
        return
      }
      const selector: Selector =
        reference._tag === "Some"
          ? { _tag: "Reference", reference: reference.value, source: only }
          : authorSelector((author as { value: string }).value, only, platforms)
      const done = yield* onState(Effect.flatMap(Effect.service(Erasure), (e) => e.erase(selector, actor)))
      const what = selector._tag === "Reference" ? `reference ${selector.reference}` : "that author"
      if (done.audit === null) {
        return yield* refuse(`no stored item with ${what}${only === undefined ? "" : ` in source ${only}`}`, 1)
      }
      if (json) return yield* Console.log(JSON.stringify(done, null, 2))
      yield* Console.log(summary(done, what))
    })
).pipe(
  Command.withDescription("Erase every stored copy of an item's or an author's content and name (personal data)"),
  Command.withExamples([
    {
      command: "warden erase --config warden.yaml --reference 'rss:news/3f2a...'",
      description: "one item, in every source"
    },
    {
      command: "warden erase -c warden.yaml --author discord:80351110224678912",
      description: "everything of one author, in every source of the platform: items, name, strikes"
    },
    {
      command: "warden erase -c warden.yaml --username 'Ada L.' --source forum",
      description: "the authors recorded under a name: listed, then erased once confirmed"
    }
  ])
)
