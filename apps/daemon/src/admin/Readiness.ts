/**
 * What `/readyz` answers: ready means "the daemon can make progress". The state store must take writes
 * and the API must work for the sources that use it. A problem of one source (its feed answering 404,
 * its platform refusing a token) is listed, with the source, but does not make the daemon unready:
 * the other sources go on. The API failing (credentials refused, unavailable after retries, answering
 * without verdicts) does, since no source can make progress then.
 *
 * A failing sink (its receiver down for a deploy, its disk full) is listed as `degraded: sink X failing
 * since <ISO>`, and leaves the daemon ready: its verdicts wait in the outbox and are retried for the
 * sink's window, and a load balancer that pulled the daemon for it would stop the analysis too.
 */
import type { State, UnrecognisedAnswers } from "../engine/SourceStatus.ts"
import { UPSTREAM_ERROR_WINDOW_MILLIS } from "../engine/SourceStatus.ts"

/** One source, as `/readyz` shows it. */
export interface SourceReadiness {
  readonly state: State["state"]
  readonly since: string
  readonly reason?: string
  /** `paused`: who paused it (`api`: the API refused the key; `source`: the connector's non-retryable error). */
  readonly by?: "api" | "source"
  /** `restarting`: restarts since the source last committed. */
  readonly attempt?: number
  /** The API's part: `failing` when its last answer to this source was no use. */
  readonly api: "ok" | "failing" | "unused"
  readonly problem?: string
}

/** The body of `/readyz`. */
export interface Report {
  readonly ready: boolean
  /** Every problem, one line each (the daemon-wide ones first). */
  readonly problems: ReadonlyArray<string>
  readonly sources: Readonly<Record<string, SourceReadiness>>
}

/** What the report is made of. */
export interface Inputs {
  /** Why the state store refuses writes, when it does. */
  readonly storeProblem: string | undefined
  readonly states: ReadonlyMap<string, State>
  readonly unrecognised: ReadonlyMap<string, UnrecognisedAnswers>
  readonly lastVerdicts: ReadonlyMap<string, number>
  readonly now: number
  /** The sinks whose deliveries fail and wait for a retry (OutboxStore.failing). */
  readonly failingSinks?: ReadonlyArray<{ readonly sink: string; readonly since: number; readonly records: number }>
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`

/** Builds the readiness report. */
export const report = (inputs: Inputs): Report => {
  const sources: Record<string, SourceReadiness> = {}
  const perSource: Array<string> = []
  let failing = 0
  let working = 0
  for (const [id, state] of inputs.states) {
    const unrecognised = inputs.unrecognised.get(id)
    const lastVerdict = inputs.lastVerdicts.get(id)
    // The latest answer held no verdict: for this source the API does not work, whatever the status.
    const unreadable = unrecognised !== undefined && unrecognised.lastAt > (lastVerdict ?? 0)
    let problem: string | undefined
    let api: SourceReadiness["api"] = lastVerdict === undefined ? "unused" : "ok"
    if (state.state === "paused" && state.by === "source") {
      // The connector's own failure (a token refused by the platform, a checkpoint it cannot read): this
      // source waits for an operator, the others go on.
      problem = `source ${id} paused: ${state.reason ?? "no reason given"}`
    } else if (state.state === "restarting") {
      problem = `source ${id} restarting (attempt ${state.attempt ?? 1}): ${state.reason ?? "no reason given"}`
    } else if (state.state === "paused" || state.state === "api-unavailable") {
      api = "failing"
      problem = `source ${id} ${state.state === "paused" ? "paused" : "waiting for the API"}: ${state.reason ?? "no reason given"}`
    } else if (unreadable) {
      api = "failing"
    } else if (
      state.state === "upstream-error" &&
      inputs.now - (state.lastErrorAt ?? state.since) < UPSTREAM_ERROR_WINDOW_MILLIS
    ) {
      problem = `source ${id} upstream error: ${state.reason ?? "no reason given"}`
    }
    if (unrecognised !== undefined) {
      const line = `source ${id}: ${plural(unrecognised.count, "answer")} without a verdict from ${unrecognised.endpoint} (last: ${unrecognised.lastShape}${unreadable ? "" : ", verdicts since"}); those items are recorded unrecognised, not moderated (once the API is fixed: warden reanalyse --status unrecognised)`
      problem = problem === undefined ? line : `${problem}; ${line}`
    }
    if (api === "failing") failing++
    else if (api === "ok") working++
    if (problem !== undefined) perSource.push(problem)
    sources[id] = {
      state: state.state,
      since: new Date(state.since).toISOString(),
      ...(state.reason === undefined ? {} : { reason: state.reason }),
      ...(state.by === undefined ? {} : { by: state.by }),
      ...(state.attempt === undefined ? {} : { attempt: state.attempt }),
      api,
      ...(problem === undefined ? {} : { problem })
    }
  }
  const daemonWide: Array<string> = []
  if (inputs.storeProblem !== undefined) daemonWide.push(`state store not writable: ${inputs.storeProblem}`)
  // The API fails when it fails every source that uses it, and none has a working answer.
  const apiFailing = failing > 0 && working === 0
  if (apiFailing) daemonWide.push(`the API fails for ${plural(failing, "source")} and works for none`)
  const degraded = (inputs.failingSinks ?? []).map(
    (f) =>
      `degraded: sink ${f.sink} failing since ${new Date(f.since).toISOString()} (${plural(f.records, "record")} waiting for a retry; the others queued behind them)`
  )
  return { ready: daemonWide.length === 0, problems: [...daemonWide, ...perSource, ...degraded], sources }
}
