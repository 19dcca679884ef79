/**
 * autocannon at an even, fixed rate, the one load generator of bench/daemon-push.ts for both the check
 * and its floor (the sandbox's own endpoint, called directly).
 *
 * Why not autocannon's `overallRate` as it is: it spreads the rate over the connections as a whole
 * number of requests per connection per second, and every connection sends its share back to back at
 * the start of each second, its one-second timers all started together (autocannon issue #174, the
 * "heartbeat"): 97/s on 20 connections is 20 requests at once, then the next 20 as each answers, then
 * nothing until the next second, several times the rate for a quarter of each second. Its correction
 * for coordinated omission then records each latency with an expected interval of `Math.ceil(1 / rate)`
 * (1 ms for any rate of at least 1/s) instead of `1000 / rate` ms, adding a synthetic sample at every
 * millisecond below each real one: a 50 ms answer became 50 samples from 50 down to 1 ms, which is how a
 * check waiting for a 50 ms analysis showed a p50 of 40 ms.
 *
 * Here: `instances` autocannon runs of one connection each, started `1000 / rate` ms apart, each sending
 * `rate / instances` requests a second (one, up to 100/s: the requests go out evenly spaced), latencies
 * taken from each response (autocannon's own timing, from the request written to the response read,
 * at full resolution: its histogram rounds to whole ms) with autocannon's correction off. With one
 * request a second per connection, an answer later than a second delays that connection's next
 * request: those are corrected here with the right interval (1000 ms) and counted in `late`.
 */
import autocannon from "autocannon"

/** One fixed-rate load. */
export interface PacedLoad {
  readonly url: string
  readonly path: string
  readonly headers: Record<string, string>
  /** The body of request `n` (a counter over every paced load of the process). */
  readonly body: (n: number) => string
  /** Requests per second. */
  readonly rate: number
  readonly seconds: number
}

/** What a load measured: latencies in ms (sorted), answers not 2xx, errors, answers later than a second. */
export interface PacedResult {
  readonly latencies: ReadonlyArray<number>
  readonly sent: number
  readonly ok: number
  readonly non2xx: number
  readonly errors: number
  readonly late: number
}

let counter = 0

/** How many connections: one request a second each up to 100/s, then 100 sharing the rate evenly. */
const instancesFor = (rate: number) => {
  if (rate <= 100) return rate
  for (let n = 100; n > 1; n--) if (rate % n === 0) return n
  return 1
}

/** Runs the load; resolves once every connection has ended. */
export const paced = async (load: PacedLoad): Promise<PacedResult> => {
  const instances = instancesFor(Math.round(load.rate))
  const perConnection = Math.round(load.rate / instances)
  const latencies: Array<number> = []
  let ok = 0
  let non2xx = 0
  let errors = 0
  let late = 0
  const runs: Array<Promise<unknown>> = []
  for (let i = 0; i < instances; i++) {
    if (i > 0) await new Promise((r) => setTimeout(r, 1000 / instances))
    const run = autocannon({
      url: load.url,
      connections: 1,
      connectionRate: perConnection,
      ignoreCoordinatedOmission: true,
      duration: load.seconds,
      requests: [
        {
          method: "POST",
          path: load.path,
          headers: load.headers,
          setupRequest: (request) => ({ ...request, body: load.body(counter++) })
        }
      ]
    })
    run.on("response", (_client: unknown, status: number, _bytes: number, ms: number) => {
      if (status < 200 || status > 299) {
        non2xx++
        return
      }
      ok++
      latencies.push(ms)
      if (perConnection === 1 && ms > 1000) {
        late++
        // the requests this connection did not send while it waited (coordinated omission), as HdrHistogram corrects
        for (let missed = ms - 1000; missed > 0; missed -= 1000) latencies.push(missed)
      }
    })
    run.on("reqError", () => void errors++)
    runs.push(run)
  }
  await Promise.all(runs)
  latencies.sort((a, b) => a - b)
  return { latencies, sent: ok + non2xx + errors, ok, non2xx, errors, late }
}

/** The `p`th percentile of sorted latencies (nearest rank), in ms to 0.1. */
export const percentile = (sorted: ReadonlyArray<number>, p: number): number => {
  if (sorted.length === 0) return Number.NaN
  const at = sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!
  return Number(at.toFixed(1))
}
