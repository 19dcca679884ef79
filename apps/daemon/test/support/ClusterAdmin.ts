/**
 * The cluster as the multi-runner process tests see it: each runner's own view through its admin API
 * (`GET /api/cluster`, admin/ClusterRoute.ts), by the runner's index in the test.
 */

/** One runner's entry in a view. */
export interface RunnerView {
  readonly address: string
  readonly healthy: boolean | null
  readonly stale: boolean
  readonly shards: number
  readonly singletons: ReadonlyArray<string>
  readonly items: number
  readonly batches: number
}

/** A runner's view of the cluster. */
export interface Overview {
  readonly mode: string
  readonly self: string
  readonly runners: ReadonlyArray<RunnerView>
}

/** The views of the runners whose admin API listens on `adminPort(i)`, all of `shards` shards. */
export const make = (options: {
  readonly token: string
  readonly shards: number
  readonly adminPort: (runner: number) => number
}) => {
  /** Runner `i`'s view; undefined while it does not answer. */
  const overview = async (i: number): Promise<Overview | undefined> => {
    try {
      const res = await fetch(`http://127.0.0.1:${options.adminPort(i)}/api/cluster`, {
        headers: { authorization: `Bearer ${options.token}` }
      })
      return res.ok ? ((await res.json()) as Overview) : undefined
    } catch {
      return undefined
    }
  }
  /** Runner `i`'s own live entry (computed when asked, not its last report). */
  const self = async (i: number) => {
    const view = await overview(i)
    return view?.runners.find((r) => r.address === view.self)
  }
  /** The runners `live` hold every shard between them, each some, and one of them runs `singleton`. */
  const holdEverything = async (live: ReadonlyArray<number>, singleton: string) => {
    const selves = await Promise.all(live.map(self))
    return (
      selves.every((s) => s !== undefined && s.shards > 0) &&
      selves.reduce((a, s) => a + (s?.shards ?? 0), 0) === options.shards &&
      selves.filter((s) => s?.singletons.includes(singleton)).length === 1
    )
  }
  /** The runner in `live` running `singleton`, or -1. */
  const running = async (live: ReadonlyArray<number>, singleton: string) => {
    for (const i of live) if ((await self(i))?.singletons.includes(singleton)) return i
    return -1
  }
  return { overview, self, holdEverything, running }
}
