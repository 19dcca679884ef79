/**
 * Every error object in a failure, for code that looks for a system error code, an SQLite result code
 * or a PostgreSQL SQLSTATE under the wrappers (effect's `SqlError` keeps its reason as `cause`, the
 * reason keeps the driver's error, effect/cluster's `PersistenceError` keeps the `SqlError`; a failed
 * connect to a host with two addresses is an `AggregateError` whose `errors` hold one per address).
 * Used to name the setting of a failed start (StartupFailure) and a state store's outage (StateProblem).
 */
import { Cause } from "effect"

/** An error object, read by its properties. */
export type ErrorLike = { readonly [key: string]: unknown }

/** Every error in `failure` (a Cause's failures and defects, or one error), each followed by its causes. */
export const errorsIn = (failure: unknown): Array<ErrorLike> => {
  const out: Array<ErrorLike> = []
  const visit = (e: unknown, depth: number) => {
    if (typeof e !== "object" || e === null || depth > 10 || out.includes(e as ErrorLike)) return
    out.push(e as ErrorLike)
    visit((e as ErrorLike).cause, depth + 1)
    const errors = (e as ErrorLike).errors
    if (Array.isArray(errors)) for (const inner of errors) visit(inner, depth + 1)
  }
  if (Cause.isCause(failure)) {
    for (const reason of failure.reasons) {
      if (reason._tag === "Fail") visit(reason.error, 0)
      else if (reason._tag === "Die") visit(reason.defect, 0)
    }
  } else visit(failure, 0)
  return out
}
