/**
 * The warnings `config check` gives on `cluster` settings that cannot work as written: settings on a
 * SQLite state (one process; several daemons need `state.postgres`), and, on PostgreSQL, an address
 * the other runners cannot reach (loopback, so runners on other machines cannot; a wildcard, which
 * is where to listen, not where to connect).
 */
import { format } from "../domain/HostPort.ts"
import type { ConfigProblem } from "./ConfigError.ts"
import { type ClusterSection, defaultRunnerAddress } from "./ClusterSection.ts"

/** What the checks read. */
export interface Input {
  /** `state.postgres` is set. */
  readonly postgres: boolean
  /** The `cluster` keys written in the file (not the defaults). */
  readonly written: ReadonlyArray<string>
  readonly cluster: ClusterSection
}

const isLoopback = (host: string) =>
  host === "localhost" || host === "::1" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/u.test(host)

const isWildcard = (host: string) => host === "0.0.0.0" || host === "::"

/** The warnings on the `cluster` section. */
export const check = (input: Input): ReadonlyArray<ConfigProblem> => {
  if (!input.postgres) {
    return input.written.length === 0
      ? []
      : [
          {
            path: "cluster",
            message:
              "has no effect: the state is SQLite, for one daemon alone (two daemons on one file would each do all the work, twice); set state.postgres to run several daemons sharing the work"
          }
        ]
  }
  const { runnerAddress, advertise } = input.cluster
  const listen = runnerAddress ?? defaultRunnerAddress
  const reachable = advertise ?? listen
  const path = advertise !== undefined ? "cluster.advertise" : "cluster.runnerAddress"
  if (isWildcard(reachable.host)) {
    return [
      {
        path,
        message: `${format(reachable)} is where to listen, not an address to reach: the other runners would connect to themselves; set cluster.advertise to the address they reach this machine at`
      }
    ]
  }
  if (isLoopback(reachable.host)) {
    return [
      {
        path,
        message: `${runnerAddress === undefined && advertise === undefined ? "not set: this runner listens on " : ""}${format(reachable)}, a loopback address: only runners on this machine can reach it (set cluster.runnerAddress, and cluster.advertise where the address others reach differs, e.g. in containers)`
      }
    ]
  }
  return []
}
