/**
 * The Review page (`#/review`): the queue of pending items, most severe then oldest (the API's order),
 * and the selected item beside it with everything needed to decide (ReviewItemView). Live from the
 * review stream: a row another moderator decided leaves this screen; new rows are announced in the
 * live region and, while focus is in the queue, wait behind "Show N new" instead of moving the row
 * being read.
 *
 * Keyboard: `j` / `k` move through the queue, `a` approves (upholds an appeal), `r` opens the reject
 * form (Enter sends, Escape cancels), `?` shows the keys. A viewer reads the queue without the
 * decision buttons or keys. Focus: the heading on arrival, the opened row on return (Focus.ts), the
 * next row after every decision (never the body); a 409 says "already decided by NAME". Filters (one
 * source, held items or appeals) are kept in the address (ReviewFilters.ts).
 */
import { ApiError, api, query, signedInAs } from "./api.ts"
import { announce } from "./Announcer.ts"
import * as Focus from "./Focus.ts"
import { html, useEffect, useRef, useState } from "./html.ts"
import type { ReviewItem, ReviewPage as Page, ReviewResult } from "./model.ts"
import { usePendingCount } from "./PendingCount.ts"
import { subscribe } from "./ReviewFeed.ts"
import { admits, ReviewFilterBar, type ReviewFilters, reviewHash, unfiltered } from "./ReviewFilters.ts"
import { ReviewItemView } from "./ReviewItemView.ts"
import { inQueueOrder, rowKey, verbs } from "./ReviewQueue.ts"
import { Row, short } from "./ReviewRow.ts"
import { visible } from "./Visible.ts"

const PAGE = 50
/** Fewer rows than this left on screen: the next page is read (a moderator working fast never waits on "more"). */
const LOW_WATER = 10
const ANNOUNCE_AFTER = 1500

/** The queue as the moderator left it (with the filters of `hash`), to come back to from an author or a decision page. */
let kept:
  | { readonly hash: string; readonly rows: ReadonlyArray<ReviewItem>; readonly cursor: string | null }
  | undefined

const KEYS: ReadonlyArray<readonly [string, string]> = [
  ["j", "next item"],
  ["k", "previous item"],
  ["a", "approve (uphold an appeal)"],
  ["r", "reject (deny an appeal): a note and classifications, Enter sends, Escape cancels"],
  ["?", "these keys"]
]

/**
 * The page; the signed-in role decides whether the decision controls are offered (`signedInAs`);
 * `filters` are the address's, `sources` the configured ones (offered as filters).
 */
export const ReviewPage = (props: { sources: ReadonlyArray<string>; filters: ReviewFilters }) => {
  const canDecide = signedInAs().role !== "viewer"
  const [filters, setFilters] = useState<ReviewFilters>(props.filters)
  const hash = reviewHash(filters)
  const restored = useRef(kept !== undefined && kept.hash === hash ? kept : undefined)
  const [rows, setRows] = useState<ReadonlyArray<ReviewItem>>(restored.current?.rows ?? [])
  const [held, setHeld] = useState<ReadonlyArray<ReviewItem>>([])
  const [cursor, setCursor] = useState<string | null>(restored.current?.cursor ?? null)
  const [selected, setSelected] = useState<string | undefined>(undefined)
  const [loading, setLoading] = useState(restored.current === undefined)
  const [problem, setProblem] = useState("")
  const [result, setResult] = useState<{ ok: boolean; text: string } | undefined>(undefined)
  const [rejecting, setRejecting] = useState(false)
  const [busy, setBusy] = useState(false)
  const [live, setLive] = useState<"connecting" | "live" | "reconnecting">("connecting")
  const total = usePendingCount()
  const list = useRef<HTMLOListElement>(null)
  const panel = useRef<HTMLDivElement>(null)
  const help = useRef<HTMLDialogElement>(null)
  const rowsNow = useRef(rows)
  const heldNow = useRef(held)
  const cursorNow = useRef(cursor)
  const loadingMore = useRef(false)
  const filtersNow = useRef(filters)
  // Bumped when the filters change: a page read for the earlier ones is dropped when it comes back.
  const generation = useRef(0)
  // Whether the stream has opened (and the first page been asked for).
  const opened = useRef(false)
  const focusKey = useRef<string | undefined>(undefined)
  // What changed without the moderator doing it, gathered into one announcement per burst.
  const changes = useRef({ arrived: 0, decided: 0 })
  const announceTimer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined)

  const pickOf = (key: string) =>
    [...(list.current?.querySelectorAll<HTMLButtonElement>("button.pick") ?? [])].find((b) => b.dataset.key === key)
  const heading = Focus.useReturnFocus<HTMLHeadingElement>(pickOf)

  const putRows = (next: ReadonlyArray<ReviewItem>) => {
    rowsNow.current = next
    setRows(next)
  }
  const putHeld = (next: ReadonlyArray<ReviewItem>) => {
    heldNow.current = next
    setHeld(next)
  }
  const putCursor = (next: string | null) => {
    cursorNow.current = next
    setCursor(next)
  }
  const known = (key: string) =>
    rowsNow.current.some((r) => rowKey(r) === key) || heldNow.current.some((r) => rowKey(r) === key)
  const current = rows.find((r) => rowKey(r) === selected) ?? rows[0]
  // The selected row's key for the stream's handler (registered once).
  const currentNow = useRef<string | undefined>(undefined)
  currentNow.current = current === undefined ? undefined : rowKey(current)

  /** Takes `key` off the screen; the row after it (or before, at the end) is selected, and focused when `focus`. */
  const remove = (key: string, focus: boolean) => {
    const at = rowsNow.current.findIndex((r) => rowKey(r) === key)
    putHeld(heldNow.current.filter((r) => rowKey(r) !== key))
    if (at < 0) return
    let next = rowsNow.current.filter((r) => rowKey(r) !== key)
    // The last row gone: what waited behind "Show N new" moves nothing any more, it is shown.
    if (next.length === 0 && heldNow.current.length > 0) {
      next = inQueueOrder(heldNow.current)
      putHeld([])
    }
    putRows(next)
    const after = next[at] ?? next[at - 1]
    // The selection moves on only when it was the row that left (none selected: the first row is).
    setSelected((s) =>
      s === key || (s === undefined && at === 0) ? (after === undefined ? undefined : rowKey(after)) : s
    )
    if (focus) {
      if (after === undefined) heading.current?.focus()
      else focusKey.current = rowKey(after)
    }
  }

  /** A page of the queue with the current filters. */
  const read = (params: { limit: number; cursor?: string }) =>
    api<Page>(`/api/review${query({ ...filtersNow.current, ...params })}`)

  /** The first page (`limit` rows, to show again as many as were shown), in place of the rows shown. */
  const first = (limit: number) => {
    const mine = generation.current
    return read({ limit })
      .then((page) => {
        if (mine !== generation.current) return
        putRows(page.items)
        putCursor(page.nextCursor)
      })
      .catch((e) => setProblem(String(e.message ?? e)))
      .finally(() => {
        if (mine === generation.current) setLoading(false)
      })
  }

  const more = async () => {
    const from = cursorNow.current
    if (from === null || loadingMore.current) return
    loadingMore.current = true
    const mine = generation.current
    try {
      const page = await read({ limit: PAGE, cursor: from })
      if (mine !== generation.current) return
      putRows([...rowsNow.current, ...page.items.filter((r) => !known(rowKey(r)))])
      putCursor(page.nextCursor)
    } catch (e) {
      setProblem(`More items not shown: ${String((e as Error).message ?? e)}`)
    } finally {
      loadingMore.current = false
    }
  }

  const arrive = (r: ReviewItem) => {
    if (r.state !== "pending" || !admits(filtersNow.current, r) || known(rowKey(r))) return
    const reading = list.current?.contains(document.activeElement) === true
    if (reading || heldNow.current.length > 0) putHeld([...heldNow.current, r])
    else putRows(inQueueOrder([...rowsNow.current, r]))
    changes.current.arrived++
    sayChanges()
  }

  /** "3 new to review", "2 decided by another moderator", or both, once the burst is over. */
  const sayChanges = () => {
    if (announceTimer.current !== undefined) return
    announceTimer.current = setTimeout(() => {
      const { arrived, decided } = changes.current
      announce(
        [
          arrived === 0 ? "" : `${arrived} new to review`,
          decided === 0 ? "" : `${decided} decided by another moderator`
        ]
          .filter((w) => w !== "")
          .join(", ")
      )
      changes.current = { arrived: 0, decided: 0 }
      announceTimer.current = undefined
    }, ANNOUNCE_AFTER)
  }

  /** A row decided elsewhere leaves this screen; focus follows when it was on that row or its panel. */
  const left = (key: string, decidedBy: string | null | undefined) => {
    const active = document.activeElement
    const there = pickOf(key)?.contains(active) === true || panel.current?.contains(active) === true
    if (key === currentNow.current) setRejecting(false)
    // Announced when someone else decided it (undefined: not known who, after a reconnection); not a
    // row superseded by a newer version (null), which arrives again as that version.
    if (known(key) && decidedBy !== null && decidedBy !== signedInAs().name) {
      changes.current.decided++
      sayChanges()
    }
    remove(key, there && key === currentNow.current)
  }

  /**
   * Back in step with the queue after the stream was away (what happened meanwhile was not sent): the
   * first rows read again; rows of that range no longer pending leave, new ones arrive as from the stream.
   */
  const reconcile = async () => {
    const mine = generation.current
    const page = await read({ limit: Math.min(500, Math.max(PAGE, rowsNow.current.length)) })
    if (mine !== generation.current) return
    const fresh = new Set(page.items.map(rowKey))
    const last = page.items.at(-1)
    const inRange = (r: ReviewItem) =>
      page.nextCursor === null || (last !== undefined && inQueueOrder([last, r])[0] === r)
    for (const r of rowsNow.current) if (!fresh.has(rowKey(r)) && inRange(r)) left(rowKey(r), undefined)
    for (const r of page.items) arrive(r)
    if (page.nextCursor === null) putCursor(null)
  }

  // The stream first (what it sends is what changed after it opened), then the first page (again on
  // return: the queue may have moved); after a reconnection, the queue read again.
  useEffect(() => {
    let away = false
    const stop = subscribe((e) => {
      if (e.kind === "state") {
        setLive(e.state)
        if (!opened.current && e.state !== "connecting") {
          opened.current = true
          away = e.state === "reconnecting"
          first(Math.min(500, Math.max(PAGE, restored.current?.rows.length ?? 0)))
        } else if (e.state === "reconnecting") away = true
        else if (e.state === "live" && away) {
          away = false
          reconcile().catch(() => {})
        }
      } else if (e.kind === "added") arrive(e.item)
      else left(rowKey(e.item), e.item.decidedBy)
    })
    return () => {
      stop()
      clearTimeout(announceTimer.current)
    }
  }, [])

  // Another filter: the queue read again with it (once the stream is open: its opening reads the first
  // page). The filters live in the address, replaced, not pushed (Back leaves the page, not a filter).
  useEffect(() => {
    const current = location.hash
    if (current !== hash && (current === "#/review" || current.startsWith("#/review?")))
      history.replaceState(null, "", hash)
    if (filtersNow.current === filters) return
    filtersNow.current = filters
    generation.current++
    putRows([])
    putHeld([])
    putCursor(null)
    setSelected(undefined)
    setRejecting(false)
    if (!opened.current) return
    setLoading(true)
    first(PAGE)
  }, [hash])

  useEffect(() => {
    kept = { hash, rows, cursor }
    if (!loading && rows.length < LOW_WATER && cursor !== null) more()
  }, [rows, cursor, loading])

  useEffect(() => {
    if (focusKey.current === undefined) return
    pickOf(focusKey.current)?.focus()
    focusKey.current = undefined
  })

  const decide = async (decision: "approve" | "reject", note = "", classifications: ReadonlyArray<string> = []) => {
    const r = current
    if (r === undefined || busy || !canDecide) return
    setBusy(true)
    const done = decision === "approve" ? verbs(r).approved : verbs(r).rejected
    try {
      const res = await api<ReviewResult>(
        `/api/decisions/${encodeURIComponent(r.reference)}/review${query({ source: r.source })}`,
        {
          method: "POST",
          body: {
            decision,
            ...(note === "" ? {} : { note }),
            ...(classifications.length === 0 ? {} : { classifications })
          }
        }
      )
      const text = `${done} “${short(r)}”: ${res.platformNote}; ${res.feedbackNote}.`
      setResult({ ok: true, text })
      announce(text)
      remove(rowKey(r), true)
    } catch (e) {
      const text = `Not done: ${e instanceof ApiError ? e.message : String(e)}`
      setResult({ ok: false, text })
      announce(text)
      // Decided by someone else meanwhile: it leaves the queue all the same.
      if (e instanceof ApiError && e.status === 409) remove(rowKey(r), true)
      else focusKey.current = rowKey(r)
    } finally {
      setBusy(false)
      setRejecting(false)
    }
  }

  const move = (by: number) => {
    const all = rowsNow.current
    if (all.length === 0) return
    const at = current === undefined ? -1 : all.findIndex((r) => rowKey(r) === rowKey(current))
    // From outside the queue, the first j or k goes to the selected row (where the moderator was).
    if (at >= 0 && list.current?.contains(document.activeElement) !== true) {
      pickOf(rowKey(all[at]!))?.focus()
      return
    }
    const next = all[Math.min(all.length - 1, Math.max(0, at < 0 ? 0 : at + by))]!
    setSelected(rowKey(next))
    pickOf(rowKey(next))?.focus()
    if (at + by >= all.length - 1) more()
  }

  // The page's keys, while no field, form or dialog has focus.
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.ctrlKey || e.metaKey || e.altKey) return
      const target = e.target as HTMLElement
      if (target.closest("input, textarea, select, [contenteditable], dialog, form") !== null) return
      if (e.key === "j") move(1)
      else if (e.key === "k") move(-1)
      else if (e.key === "?") help.current?.showModal()
      else if (!canDecide && (e.key === "a" || e.key === "r"))
        announce("Signed in as a viewer: you can read the queue, not decide")
      else if (!canDecide || current === undefined) return
      else if (e.key === "a") decide("approve")
      else if (e.key === "r") setRejecting(true)
      else return
      e.preventDefault()
    }
    addEventListener("keydown", onKey)
    return () => removeEventListener("keydown", onKey)
  })

  const showNew = () => {
    const first = heldNow.current[0]
    putRows(inQueueOrder([...rowsNow.current, ...heldNow.current]))
    putHeld([])
    if (first !== undefined) focusKey.current = rowKey(first)
  }

  const cancelReject = () => {
    setRejecting(false)
    if (current !== undefined) focusKey.current = rowKey(current)
  }

  return html`<main class="review">
    <h1 tabindex="-1" ref=${heading}>Review${total === undefined ? "" : html` <span class="muted">(${total} pending)</span>`}</h1>
    <p class="live">
      <span class=${`dot ${live}`} aria-hidden="true"></span>
      ${live === "live" ? "Live: decisions by other moderators leave this screen" : live === "connecting" ? "Connecting…" : "Reconnecting…"}
      ${" · "}<button type="button" class="link" onClick=${() => help.current?.showModal()}>Keys <kbd>?</kbd></button>
    </p>
    ${problem === "" ? null : html`<p role="alert" class="problem">${problem}</p>`}
    ${result === undefined ? null : html`<p class=${`result ${result.ok ? "ok" : "problem"}`}>${visible(result.text)}</p>`}
    <${ReviewFilterBar} filters=${filters} sources=${props.sources} onChange=${setFilters} />
    ${held.length === 0 ? null : html`<button type="button" class="new" onClick=${showNew}>Show ${held.length} new</button>`}
    <div class="review-layout">
      <ol class="queue" ref=${list} aria-label="Pending items, most severe then oldest">
        ${rows.map((r) => html`<${Row} key=${rowKey(r)} r=${r} selected=${current !== undefined && rowKey(r) === rowKey(current)} onSelect=${() => setSelected(rowKey(r))} />`)}
      </ol>
      <div class="review-panel" ref=${panel}>
        ${
          current === undefined
            ? html`<p class="empty">${loading ? "Loading…" : unfiltered(filters) ? "Nothing to review." : "Nothing to review with these filters."}</p>`
            : html`<${ReviewItemView} item=${current} canDecide=${canDecide} busy=${busy} rejecting=${rejecting}
                onApprove=${() => decide("approve")} onReject=${() => setRejecting(true)}
                onSend=${(note: string, cs: ReadonlyArray<string>) => decide("reject", note, cs)} onCancel=${cancelReject} />`
        }
      </div>
    </div>
    ${cursor === null ? null : html`<button type="button" class="secondary" onClick=${more}>Show more</button>`}
    <dialog ref=${help} aria-labelledby="keys-title" class="keys">
      <h2 id="keys-title">Keys of the Review page</h2>
      <dl>${KEYS.map(([k, what]) => html`<div><dt><kbd>${k}</kbd></dt><dd>${what}</dd></div>`)}</dl>
      ${canDecide ? null : html`<p>As a viewer you can move through the queue; deciding is for moderators.</p>`}
      <form method="dialog"><button type="submit">Close</button></form>
    </dialog>
  </main>`
}
