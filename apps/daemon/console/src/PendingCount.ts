/**
 * How many items wait for review, kept live: read from `GET /api/review` and read again (at most every
 * half second) whenever the review stream says a row entered or left the queue. The navigation shows it
 * beside "Review"; the Review page in its heading.
 */
import { api } from "./api.ts"
import { useEffect, useState } from "./html.ts"
import type { ReviewPage } from "./model.ts"
import { subscribe } from "./ReviewFeed.ts"

/** The pending total (undefined until read). */
export const usePendingCount = (): number | undefined => {
  const [total, setTotal] = useState<number | undefined>(undefined)
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined
    let current = true
    const read = () =>
      api<ReviewPage>("/api/review?limit=1").then(
        (p) => current && setTotal(p.pending.total),
        () => {}
      )
    read()
    const stop = subscribe((e) => {
      // A change, or the stream back after an absence (what changed meanwhile was not sent).
      if ((e.kind === "state" && e.state !== "live") || timer !== undefined) return
      timer = setTimeout(() => {
        timer = undefined
        read()
      }, 500)
    })
    return () => {
      current = false
      clearTimeout(timer)
      stop()
    }
  }, [])
  return total
}
