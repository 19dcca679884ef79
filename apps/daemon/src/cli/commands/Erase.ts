/**
 * `warden erase --config FILE (--reference REF | --author ID) [--source ID]`: erases every stored copy
 * of the content of the items named (items, segments, outbox, dead letters, the `sql` sink's table,
 * feedback sent, processed cluster messages) and prints the counts. References, versions, content
 * hashes, verdict types and action outcomes stay (dedupe and statistics need them); an audit row
 * records who (`user@host`), when and how many, never the content. See state/Erasure.ts.
 */
import { Console, Effect, Layer } from "effect"
import { Command, Flag } from "effect/cli"
import { checkConfig, formatProblem } from "../../config/index.ts"
import { Erasure, type Selector } from "../../state/Erasure.ts"
import * as StateStore from "../../state/StateStore.ts"
import { operator } from "../Operator.ts"
import { configFlag, knownSource, refuser } from "../Refusal.ts"
import * as StateFromConfig from "../StateFromConfig.ts"

const refuse = refuser("erase")

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
      Flag.withDescription("erase every item of this author (the platform's author identifier)"),
      Flag.optional
    ),
    source: Flag.String("source").pipe(
      Flag.withDescription("only in this source (default: every source)"),
      Flag.optional
    ),
    json: Flag.Boolean("json").pipe(Flag.withDescription("print the counts as JSON"), Flag.withDefault(false))
  },
  ({ config: file, reference, author, source, json }) =>
    Effect.gen(function* () {
      if ((reference._tag === "Some") === (author._tag === "Some")) {
        return yield* refuse("give exactly one of --reference REF or --author ID", 2)
      }
      const checked = yield* checkConfig(file, { sections: ["state"] }).pipe(
        Effect.catchTag("ConfigError", (error) => refuse(error.problems.map(formatProblem).join("\n"), 78))
      )
      const ids = checked.config.sources.map((s) => s.id)
      const only = yield* knownSource(refuse, file, ids, source)
      const selector: Selector =
        reference._tag === "Some"
          ? { _tag: "Reference", reference: reference.value, source: only }
          : { _tag: "Author", author: (author as { value: string }).value, source: only }
      const done = yield* Effect.gen(function* () {
        return yield* (yield* Erasure).erase(selector, { name: `cli:${operator()}`, role: "cli" })
      }).pipe(
        Effect.provide(
          Erasure.layer.pipe(
            Layer.provideMerge(StateStore.layer),
            Layer.provideMerge(StateFromConfig.sql(checked.config.state))
          )
        ),
        Effect.catchTag("SqlError", (e) => refuse(`cannot write the state database: ${e.message}`, 1))
      )
      const what = selector._tag === "Reference" ? `reference ${selector.reference}` : "that author"
      if (done.audit === null) {
        return yield* refuse(`no stored item with ${what}${only === undefined ? "" : ` in source ${only}`}`, 1)
      }
      if (json) return yield* Console.log(JSON.stringify(done, null, 2))
      const c = done.counts
      yield* Console.log(
        [
          `erased ${c.items} item version${c.items === 1 ? "" : "s"} (${done.references.length} reference${done.references.length === 1 ? "" : "s"}) of ${what}`,
          `  segments ${c.segments}, outbox ${c.outbox}, dead letters ${c.deadLetters}, source dead letters ${c.sourceDeadLetters}, feedback ${c.feedback}, sql sink ${c.sqlSink}, cluster messages ${c.clusterMessages}`,
          `  audit ${done.audit}`
        ].join("\n")
      )
    })
).pipe(
  Command.withDescription("Erase every stored copy of an item's or an author's content (personal data)"),
  Command.withExamples([
    {
      command: "warden erase --config warden.yaml --reference 'rss:news/3f2a...'",
      description: "one item, in every source"
    },
    {
      command: "warden erase -c warden.yaml --author 12345 --source forum",
      description: "everything of one author in one source"
    }
  ])
)
