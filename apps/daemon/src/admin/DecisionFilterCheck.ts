/**
 * The decision filters of a query (`GET /api/decisions` and its stream) as the state store takes them,
 * with the closed ones checked. Shared by the decisions handlers and `ConsoleRoutes`' stream, so apart.
 */
import { ANALYSIS_TYPES, SEVERITIES } from "@warden/core"
import { Effect } from "effect"
import type { DecisionFilters } from "./DecisionsApi.ts"
import * as ReviewRoutes from "./ReviewRoutes.ts"

/** The decision filters of a decoded query, as the state store takes them. */
export const decisionFilters = (q: { readonly [K in keyof typeof DecisionFilters]?: string }) => ({
  source: q.source,
  type: q.type,
  severity: q.severity,
  actionStatus: q.actionStatus,
  text: q.q,
  classification: q.classification,
  action: q.action,
  author: q.author,
  rule: q.rule
})

/** The action statuses a platform action can be in. */
export const ACTION_STATUSES = ["pending", "done", "failed", "would-do"] as const

/**
 * {@link decisionFilters}, with the values of the closed filters checked: a `type`, `severity`,
 * `actionStatus` or `rule` that cannot match anything (`type=hateful`) is a 400 naming the values
 * allowed, not an empty list that looks like "no such items". `rules` are the configured rule names.
 */
export const checkedFilters = (
  q: { readonly [K in keyof typeof DecisionFilters]?: string },
  rules: ReadonlyArray<string>
) =>
  Effect.gen(function* () {
    yield* ReviewRoutes.oneOf("type", q.type, ANALYSIS_TYPES)
    yield* ReviewRoutes.oneOf("severity", q.severity, SEVERITIES)
    yield* ReviewRoutes.oneOf("actionStatus", q.actionStatus, ACTION_STATUSES)
    yield* ReviewRoutes.oneOf("rule", q.rule, [...new Set([...rules, "failureMode"])])
    return decisionFilters(q)
  })
