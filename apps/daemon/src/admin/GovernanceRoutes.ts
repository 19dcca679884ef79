/**
 * The admin API of policy backtests and erasure (admin token):
 *
 * - `POST /api/policy/test` `{ source, rules?, since? }`: replays the source's stored verdicts since
 *   `since` (default `7d`; a duration back or an ISO date-time) through `rules` (default: the source's
 *   configured rules) and answers the backtest report (engine/Backtest.ts), the same as
 *   `warden policy test --format json`. No API call, no action.
 * - `DELETE /api/items/{reference}?source=` and `DELETE /api/authors/{id}?source=`: erase every stored
 *   copy of the content (state/Erasure.ts) and answer the counts and the audit id; 404 when nothing is
 *   stored under that reference or author.
 * - `GET /api/erasures?limit=`: the audit of erasures, newest first (never the content).
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import type { Rule } from "../config/WardenConfig.ts"
import * as RuleSet from "../config/RuleSet.ts"
import * as Backtest from "../engine/Backtest.ts"
import type { Erasure, Selector } from "../state/Erasure.ts"
import { StateStore } from "../state/StateStore.ts"
import { AdminRefused, badParameter } from "./AdminError.ts"
import type { AdminRoute } from "./AdminServer.ts"
import * as RequestInput from "./RequestInput.ts"
import * as Since from "./Since.ts"

const isRecord = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

/** The routes; `rules` are the configured rules of each source (what a test without `rules` replays). */
export const routes = (
  erasure: Erasure["Service"],
  rules: ReadonlyMap<string, ReadonlyArray<Rule>>
): ReadonlyArray<AdminRoute> => {
  const erase = (selector: Selector, what: string) =>
    Effect.gen(function* () {
      const done = yield* erasure.erase(selector, "admin-api").pipe(Effect.orDie)
      if (done.audit === null)
        return yield* new AdminRefused({ status: 404, code: "NOT_FOUND", message: `no stored item with ${what}` })
      return { status: 200, body: done }
    })
  const sourceOf = (query: URLSearchParams) =>
    Effect.gen(function* () {
      const q = yield* RequestInput.query(query, ["source"])
      const source = q.get("source")
      if (source !== undefined && !rules.has(source))
        return yield* badParameter("source", `no source '${source}' (sources: ${[...rules.keys()].join(", ")})`)
      return source
    })
  return [
    {
      method: "POST",
      match: (path) => (path === "/api/policy/test" ? {} : undefined),
      handle: (_, body) =>
        Effect.gen(function* () {
          if (!isRecord(body)) return yield* badParameter("body", "expected a JSON object { source, rules?, since? }")
          const source = body.source
          if (typeof source !== "string" || !rules.has(source))
            return yield* badParameter(
              "source",
              `${typeof source === "string" ? `no source '${source}'` : "required"} (sources: ${[...rules.keys()].join(", ")})`
            )
          const since = body.since ?? "7d"
          const start = typeof since === "string" ? Since.parse(since, Date.now()) : undefined
          if (start === undefined) return yield* badParameter("since", `expected ${Since.EXPECTED}`)
          let tested = rules.get(source)!
          if (body.rules !== undefined) {
            const decoded = RuleSet.decode(body.rules)
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
          const store = yield* StateStore
          const report = yield* Backtest.fromStore({ source, since: start, rules: tested }).pipe(
            Effect.provideService(SqlClient.SqlClient, store.sql),
            Effect.orDie
          )
          return { status: 200, body: report }
        })
    },
    {
      method: "DELETE",
      match: (path) => {
        const m = /^\/api\/items\/(.+)$/u.exec(path)
        return m === null ? undefined : { reference: m[1]! }
      },
      handle: (params, _, query) =>
        Effect.gen(function* () {
          const reference = yield* RequestInput.pathSegment("reference", params.reference!)
          const source = yield* sourceOf(query)
          return yield* erase({ _tag: "Reference", reference, source }, `reference ${reference}`)
        })
    },
    {
      method: "DELETE",
      match: (path) => {
        const m = /^\/api\/authors\/(.+)$/u.exec(path)
        return m === null ? undefined : { author: m[1]! }
      },
      handle: (params, _, query) =>
        Effect.gen(function* () {
          const author = yield* RequestInput.pathSegment("author", params.author!)
          const source = yield* sourceOf(query)
          return yield* erase({ _tag: "Author", author, source }, "that author")
        })
    },
    {
      method: "GET",
      match: (path) => (path === "/api/erasures" ? {} : undefined),
      handle: (_, __, query) =>
        Effect.gen(function* () {
          const q = yield* RequestInput.query(query, ["limit"])
          const limit = yield* RequestInput.int("limit", q.get("limit"), { min: 1, max: 1000, fallback: 100 })
          const erasures = yield* erasure.auditLog(limit).pipe(Effect.orDie)
          return { status: 200, body: { erasures } }
        })
    }
  ]
}
