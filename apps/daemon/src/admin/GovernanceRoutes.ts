/**
 * The handlers of the admin API's governance group (`AdminApi.ts`): policy backtests and erasure.
 *
 * - `POST /api/policy/test` `{ source, rules?, since? }`: replays the source's stored verdicts since
 *   `since` (default `7d`; a duration back or an ISO date-time) through `rules` (default: the source's
 *   configured rules) and answers the backtest report (engine/Backtest.ts), the same as
 *   `warden policy test --format json`. No API call, no action.
 * - `DELETE /api/items/{reference}?source=` and `DELETE /api/authors/{author}` (a key,
 *   `<platform>:<identifier>`; or an identifier with `source`): erase every stored copy of the content
 *   (state/Erasure.ts; by author also their name, strikes and review statements) and answer the counts
 *   and the audit id; 404 when nothing is stored under that reference or author.
 * - `DELETE /api/authors/-?username=NAME&source=ID`: what erasing the authors recorded under a username
 *   would erase; with `confirm=true`, erases it.
 * - `GET /api/erasures?limit=`: the audit of erasures, newest first (never the content).
 */
import { Clock, Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { SqlClient } from "effect/sql"
import * as RuleSet from "../config/RuleSet.ts"
import type { Rule } from "../domain/Rule.ts"
import * as Backtest from "../engine/Backtest.ts"
import { Erasure } from "../state/Erasure.ts"
import { authorSelector, type Selector } from "../state/ErasureSelector.ts"
import { AdminApi } from "./AdminApi.ts"
import { AdminCaller } from "./AdminSecurity.ts"
import { AdminRefused, answering, badParameter } from "./AdminError.ts"
import * as RequestInput from "./RequestInput.ts"
import * as Since from "./Since.ts"

/** What the governance routes know of the configuration. */
export interface GovernanceOptions {
  /** The configured rules of each source (what a test without `rules` replays). */
  readonly rules: ReadonlyMap<string, ReadonlyArray<Rule>>
  /** Each source's connector: its type (the platform of author keys) and the action kinds it declares. */
  readonly connectors: ReadonlyMap<string, { readonly type: string; readonly actions: ReadonlyArray<string> }>
  /** Every configured sink. */
  readonly sinks: ReadonlyArray<string>
  /** The strikes' half-life (`authors.strikes.halfLife`), milliseconds. */
  readonly halfLifeMillis: number
}

/** The group. */
export const layer = (options: GovernanceOptions) =>
  HttpApiBuilder.group(AdminApi, "governance", (handlers) =>
    Effect.gen(function* () {
      const { rules } = options
      const platforms = new Map([...options.connectors].map(([id, c]) => [id, c.type]))
      const erasure = yield* Erasure
      const sql = yield* SqlClient.SqlClient
      const erase = (selector: Selector, what: string) =>
        Effect.gen(function* () {
          const who = yield* AdminCaller
          const done = yield* erasure.erase(selector, who).pipe(Effect.orDie)
          if (done.audit === null)
            return yield* new AdminRefused({ status: 404, code: "NOT_FOUND", message: `no stored item with ${what}` })
          return done
        })
      const unknownSource = (source: string) =>
        badParameter("source", `no source '${source}' (sources: ${[...rules.keys()].join(", ")})`)
      const sourceOf = (source: string | undefined) =>
        source !== undefined && !rules.has(source) ? Effect.fail(unknownSource(source)) : Effect.succeed(source)
      return handlers
        .handle("policyTest", ({ payload }) =>
          answering(
            Effect.gen(function* () {
              const source = payload.source
              if (!rules.has(source)) return yield* unknownSource(source)
              const start = Since.parse(payload.since ?? "7d", yield* Clock.currentTimeMillis)
              if (start === undefined) return yield* badParameter("since", `expected ${Since.EXPECTED}`)
              let tested = rules.get(source)!
              if (payload.rules !== undefined) {
                // The checks config check makes of the source's rules: what it refuses is refused here too.
                const decoded = RuleSet.decode(payload.rules, ["rules"], {
                  sinkNames: options.sinks,
                  connector: options.connectors.get(source)
                })
                if (!decoded.ok) {
                  const first = decoded.problems[0]!
                  return yield* new AdminRefused({
                    status: 400,
                    code: "BAD_REQUEST",
                    message: decoded.problems.map((p) => `${p.path}: ${p.message}`).join("; "),
                    parameter: first.path
                  })
                }
                tested = decoded.rules
              }
              return yield* Backtest.fromStore({
                source,
                since: start,
                rules: tested,
                shape: { sinks: options.sinks, connectorActions: options.connectors.get(source)?.actions },
                halfLifeMillis: options.halfLifeMillis
              }).pipe(Effect.provideService(SqlClient.SqlClient, sql), Effect.orDie)
            })
          )
        )
        .handle("eraseItem", ({ params, query }) =>
          answering(
            Effect.gen(function* () {
              const reference = yield* RequestInput.text("reference", params.reference)
              const source = yield* sourceOf(query.source)
              return yield* erase({ _tag: "Reference", reference, source }, `reference ${reference}`)
            })
          )
        )
        .handle("eraseAuthor", ({ params, query }) =>
          answering(
            Effect.gen(function* () {
              const author = yield* RequestInput.text("author", params.author)
              const source = yield* sourceOf(query.source)
              if (query.confirm !== undefined && query.confirm !== "true")
                return yield* badParameter("confirm", "only true (erase what the answer without it listed)")
              if (query.username === undefined)
                return yield* erase(authorSelector(author, source, platforms), "that author")
              if (author !== "-")
                return yield* badParameter(
                  "author",
                  "with username, the path names no author: /api/authors/-?username="
                )
              if (source === undefined) return yield* badParameter("source", "required with username")
              const plan = yield* erasure.byUsername(source, query.username).pipe(Effect.orDie)
              if (plan.authors.length === 0 && plan.withoutKey === 0)
                return yield* new AdminRefused({
                  status: 404,
                  code: "NOT_FOUND",
                  message: `no stored item of username ${query.username} in source ${source}`
                })
              if (query.confirm !== "true") return { confirm: false, wouldErase: plan }
              const who = yield* AdminCaller
              const erased = yield* erasure.eraseUsername(plan, platforms, who).pipe(Effect.orDie)
              return { confirm: true, erased }
            })
          )
        )
        .handle("erasures", ({ query }) =>
          answering(
            Effect.gen(function* () {
              const limit = yield* RequestInput.int("limit", query.limit, { min: 1, max: 1000, fallback: 100 })
              return { erasures: yield* erasure.auditLog(limit).pipe(Effect.orDie) }
            })
          )
        )
    })
  )
