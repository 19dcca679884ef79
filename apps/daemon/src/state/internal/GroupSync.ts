/**
 * Group fsync: many callers, each of which needs "everything written before I asked is on disk", served
 * by as few syncs as possible. A sync already running may have started before a caller's write, so a
 * caller that comes while one runs waits for the next one, which starts when the running one ends and
 * serves every caller that came in between. At most one sync runs at a time and at most one waits.
 */

/** Wraps `sync` (one fsync of the file); the answer resolves once a sync started after the call has ended. */
export const make = (sync: () => Promise<void>): (() => Promise<void>) => {
  let running: Promise<void> | undefined
  let queued: Promise<void> | undefined
  const start = (): Promise<void> => {
    const current = sync().finally(() => {
      if (running === current) running = undefined
    })
    running = current
    return current
  }
  return () => {
    if (running === undefined) return start()
    if (queued === undefined) {
      const next = () => {
        queued = undefined
        return start()
      }
      // After the running sync, whether it failed or not: its failure is its own callers'.
      queued = running.then(next, next)
    }
    return queued
  }
}
