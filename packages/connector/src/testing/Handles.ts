/**
 * Whether a plugin leaves timers, sockets or handles behind once its scope closed: what the connector
 * and sink conformance kits' `cleanShutdown` checks.
 *
 * @since 0.2.0
 */
import * as AsyncHooks from "node:async_hooks"
import { Effect } from "effect"

const resourceCounts = (): Map<string, number> => {
  const counts = new Map<string, number>()
  for (const r of process.getActiveResourcesInfo()) counts.set(r, (counts.get(r) ?? 0) + 1)
  return counts
}

const countDelta = (before: Map<string, number>): Array<string> => {
  const out: Array<string> = []
  for (const [name, n] of resourceCounts()) {
    const extra = n - (before.get(name) ?? 0)
    if (extra > 0) out.push(`${extra} × ${name}`)
  }
  return out
}

/** Handle types that keep a process alive (what `process.getActiveResourcesInfo()` reports). */
const handleTypes = new Set([
  "Timeout",
  "Immediate",
  "TCPWRAP",
  "TCPCONNECTWRAP",
  "TLSWRAP",
  "PIPEWRAP",
  "PIPECONNECTWRAP",
  "UDPWRAP",
  "FSEVENTWRAP",
  "STATWATCHER",
  "PROCESSWRAP",
  "SIGNALWRAP",
  "GETADDRINFOREQWRAP"
])

/**
 * Tracks the handles created while it is enabled (async_hooks): `alive()` lists those not destroyed yet.
 * Precise where a before/after count of `getActiveResourcesInfo()` is not: other tests' handles closing
 * meanwhile would hide a leak from the count.
 */
const trackHandles = Effect.acquireRelease(
  Effect.sync(() => {
    const live = new Map<number, string>()
    let recording = true
    const hook = AsyncHooks.createHook({
      init: (id, type) => {
        if (recording && handleTypes.has(type))
          live.set(id, process.env.WARDEN_DEBUG_HANDLES ? `${type} ${new Error().stack}` : type)
      },
      destroy: (id) => {
        live.delete(id)
      }
    }).enable()
    return {
      hook,
      /** Stop recording new handles (the check's own timers from now on), keep watching the recorded ones. */
      stop: () => {
        recording = false
      },
      alive: () => [...live.values()]
    }
  }),
  ({ hook }) => Effect.sync(() => hook.disable())
)

/**
 * Starts watching (in the caller's scope): `left` stops recording new handles (the check's own timers
 * from then on), waits up to 2 seconds for the recorded ones to close (sockets close asynchronously)
 * and lists what is still alive, plus what `getActiveResourcesInfo()` counts more than at the start.
 */
export const track = Effect.map(Effect.zip(Effect.sync(resourceCounts), trackHandles), ([before, tracker]) => ({
  left: Effect.gen(function* () {
    tracker.stop()
    for (let i = 0; i < 40 && (tracker.alive().length > 0 || countDelta(before).length > 0); i++) {
      yield* Effect.sleep("50 millis")
    }
    return [...tracker.alive(), ...countDelta(before)]
  })
}))
