/**
 * Decisions, newest first: filters (source, type, severity, action status, text) kept in the address
 * (`#/?type=HATEFUL`, so Back and a shared link show the same list), pages by cursor ("Show older"),
 * new decisions arriving live from the server-sent event stream, and for each the Outcome: the rule
 * that matched and what became of its platform actions.
 *
 * For a keyboard or a screen reader: arrivals and a filter's results are announced in the console's
 * live region ("6 new, 2 HATEFUL"; "17 results") without moving focus; while focus is in the table,
 * new rows wait behind "Show 6 new" instead of pushing the row being read down; "Show older" and
 * "Show N new" move focus to the first row they added; coming back from a decision puts focus on its
 * row, with the rows of every page shown before.
 */
import { api, query } from "./api.ts"
import { announce } from "./Announcer.ts"
import * as Focus from "./Focus.ts"
import { html, useEffect, useRef, useState } from "./html.ts"
import {
  ACTION_STATUSES,
  authorHref,
  contentOf,
  hrefOf,
  keyOf,
  type ListedDecision,
  langOf,
  SEVERITIES,
  TYPES,
  verdictOf,
  when
} from "./model.ts"
import { Outcome } from "./Outcome.ts"
import { Select } from "./Select.ts"
import { visible } from "./Visible.ts"

/** The list's filters, as in its address. */
export interface Filters {
  readonly source: string
  readonly type: string
  readonly severity: string
  readonly actionStatus: string
  readonly q: string
}

/** The filters of a list address's query (`?type=HATEFUL&q=idiot`). */
export const filtersOf = (search: string): Filters => {
  const params = new URLSearchParams(search)
  const get = (name: string) => params.get(name) ?? ""
  return {
    source: get("source"),
    type: get("type"),
    severity: get("severity"),
    actionStatus: get("actionStatus"),
    q: get("q")
  }
}

/** The list's address with `filters`. */
export const listHash = (filters: Filters) => `#/${query({ ...filters })}`

const PAGE = 50
/** How long arrivals are gathered into one announcement ("6 new, 2 HATEFUL"). */
const ANNOUNCE_AFTER = 1500

interface Page {
  readonly decisions: ReadonlyArray<ListedDecision>
  readonly nextCursor: string | null
}

/** The list as the moderator left it (every page shown, the cursor), to come back to from a decision. */
let kept:
  | { readonly hash: string; readonly rows: ReadonlyArray<ListedDecision>; readonly cursor: string | null }
  | undefined

/** One decision as a row; long content is clamped to a few lines (the decision page shows it all). */
const Row = (props: { d: ListedDecision; fresh: boolean }) => {
  const d = props.d
  const v = verdictOf(d)
  const key = keyOf(d)
  return html`<tr class=${props.fresh ? "fresh" : ""} data-reference=${d.reference}>
    <td data-label="Time"><time datetime=${new Date(d.createdAt).toISOString()}>${when(d.createdAt)}</time></td>
    <td data-label="Source">${visible(d.source)}</td>
    <td data-label="Author">${
      d.author === null
        ? ""
        : html`<a href=${authorHref(d.author.key)} onClick=${() => Focus.rememberOpened(key)}>${visible(d.author.username ?? d.author.key)}</a>`
    }</td>
    <td data-label="Content" class="content" lang=${langOf(v)}>
      <a href=${hrefOf(d.source, d.reference)} data-key=${key} onClick=${() => Focus.rememberOpened(key)}>${visible(contentOf(d) || d.reference)}</a>
    </td>
    <td data-label="Type">${v.type ?? d.status}</td>
    <td data-label="Classifications">${(v.classifications ?? []).join(", ")}</td>
    <td data-label="Severity"><span class=${`sev sev-${v.severity ?? "none"}`}>${v.severity ?? ""}</span></td>
    <td data-label="API recommends">${v.recommendedAction ?? ""}</td>
    <td data-label="Outcome"><${Outcome} rule=${d.rule} review=${d.review} actions=${d.actions} /></td>
  </tr>`
}

/** "6 new, 2 HATEFUL". */
const arrivalWords = (arrived: ReadonlyArray<ListedDecision>) => {
  const hateful = arrived.filter((d) => verdictOf(d).type === "HATEFUL").length
  return `${arrived.length} new${hateful === 0 ? "" : `, ${hateful} HATEFUL`}`
}

/** "17 results", or how many of more are shown. */
const resultWords = (page: Page) => {
  const n = page.decisions.length
  return page.nextCursor === null ? `${n} result${n === 1 ? "" : "s"}` : `More than ${n} results: the newest ${n} shown`
}

/** The decisions page; `filters` are the address's. */
export const DecisionList = (props: { sources: ReadonlyArray<string>; filters: Filters }) => {
  const [filters, setFilters] = useState<Filters>(props.filters)
  const [search, setSearch] = useState(props.filters.q)
  const hash = listHash(filters)
  // Back from a decision: the rows and cursor as they were (taken once, at mount).
  const restored = useRef(kept !== undefined && kept.hash === hash ? kept : undefined)
  const [rows, setRows] = useState<ReadonlyArray<ListedDecision>>(restored.current?.rows ?? [])
  const [held, setHeld] = useState<ReadonlyArray<ListedDecision>>([])
  const [fresh, setFresh] = useState<ReadonlySet<string>>(new Set())
  const [cursor, setCursor] = useState<string | null>(restored.current?.cursor ?? null)
  const [live, setLive] = useState<"connecting" | "live" | "reconnecting">("connecting")
  const [problem, setProblem] = useState("")
  const [loading, setLoading] = useState(restored.current === undefined)
  const [loadingOlder, setLoadingOlder] = useState(false)
  const generation = useRef(0)
  const table = useRef<HTMLTableElement>(null)
  // The rows' hash (the filters they were fetched with), for `kept`.
  const rowsHash = useRef(restored.current === undefined ? "" : hash)
  // Arrivals read and change the lists between renders (several events in one tick): kept in refs too.
  const rowsNow = useRef(rows)
  const heldNow = useRef(held)
  const arrived = useRef<Array<ListedDecision>>([])
  const announceTimer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined)
  // A row to focus once it is rendered ("Show older", "Show N new").
  const focusKey = useRef<string | undefined>(undefined)

  const linkOf = (key: string) =>
    [...(table.current?.querySelectorAll<HTMLAnchorElement>("a[data-key]") ?? [])].find((a) => a.dataset.key === key)
  const heading = Focus.useReturnFocus<HTMLHeadingElement>(linkOf)

  const putRows = (next: ReadonlyArray<ListedDecision>) => {
    rowsNow.current = next
    setRows(next)
  }
  const putHeld = (next: ReadonlyArray<ListedDecision>) => {
    heldNow.current = next
    setHeld(next)
  }
  const known = (d: ListedDecision) => {
    const key = keyOf(d)
    return rowsNow.current.some((r) => keyOf(r) === key) || heldNow.current.some((r) => keyOf(r) === key)
  }

  /** New decisions (newest first): shown at the top, or held while focus is in the table; announced. */
  const arrive = (incoming: ReadonlyArray<ListedDecision>) => {
    const added = incoming.filter((d) => !known(d))
    if (added.length === 0) return
    const reading = table.current?.contains(document.activeElement) === true
    if (reading || heldNow.current.length > 0) putHeld([...added, ...heldNow.current])
    else {
      putRows([...added, ...rowsNow.current])
      setFresh((current) => new Set([...current, ...added.map(keyOf)]))
    }
    // One announcement per burst: what arrives within ANNOUNCE_AFTER of the first (the stream polls
    // every second; a batch may land over two polls), then quiet until the next arrival.
    arrived.current.push(...added)
    if (announceTimer.current === undefined)
      announceTimer.current = setTimeout(() => {
        announce(arrivalWords(arrived.current))
        arrived.current = []
        announceTimer.current = undefined
      }, ANNOUNCE_AFTER)
  }

  // The search box waits for a pause in typing.
  useEffect(() => {
    const t = setTimeout(() => setFilters((f) => (f.q === search ? f : { ...f, q: search })), 300)
    return () => clearTimeout(t)
  }, [search])

  // The filters live in the address: replaced, not pushed (Back leaves the list, not a filter).
  useEffect(() => {
    Focus.setListHash(hash)
    const current = location.hash === "" ? "#/" : location.hash
    if (current !== hash && (current === "#/" || current.startsWith("#/?"))) history.replaceState(null, "", hash)
  }, [hash])

  useEffect(() => {
    kept = { hash: rowsHash.current, rows, cursor }
  }, [rows, cursor])

  useEffect(() => {
    if (focusKey.current === undefined) return
    linkOf(focusKey.current)?.focus()
    focusKey.current = undefined
  })

  useEffect(() => () => clearTimeout(announceTimer.current), [])

  // First page and the live stream, again whenever a filter changes.
  useEffect(() => {
    const mine = ++generation.current
    const restoring = mine === 1 && restored.current !== undefined
    if (!restoring) setLoading(true)
    setProblem("")
    api<Page>(`/api/decisions${query({ ...filters, limit: PAGE })}`)
      .then((page) => {
        if (generation.current !== mine) return
        if (restoring) {
          // Back on the list: rows as they were, their outcomes brought up to date, newer ones arriving.
          const latest = new Map(page.decisions.map((d) => [keyOf(d), d]))
          putRows(rowsNow.current.map((r) => latest.get(keyOf(r)) ?? r))
          arrive(page.decisions)
          return
        }
        rowsHash.current = hash
        putRows(page.decisions)
        putHeld([])
        setFresh(new Set())
        setCursor(page.nextCursor)
        if (mine > 1) announce(resultWords(page))
      })
      .catch((e) => generation.current === mine && setProblem(String(e.message ?? e)))
      .finally(() => generation.current === mine && setLoading(false))
    const stream = new EventSource(`/api/decisions/stream${query({ ...filters })}`)
    setLive("connecting")
    stream.onopen = () => setLive("live")
    stream.onerror = () => setLive("reconnecting")
    stream.addEventListener("decision", (e) => arrive([JSON.parse((e as MessageEvent<string>).data) as ListedDecision]))
    return () => stream.close()
  }, [hash])

  const showNew = () => {
    const first = heldNow.current[0]
    putRows([...heldNow.current, ...rowsNow.current])
    setFresh(new Set(heldNow.current.map(keyOf)))
    putHeld([])
    if (first !== undefined) focusKey.current = keyOf(first)
  }

  const older = async () => {
    if (cursor === null || loadingOlder) return
    setLoadingOlder(true)
    try {
      const page = await api<Page>(`/api/decisions${query({ ...filters, limit: PAGE, cursor })}`)
      const added = page.decisions.filter((d) => !known(d))
      putRows([...rowsNow.current, ...added])
      setCursor(page.nextCursor)
      // Focus goes on with the first older row (the button may be gone: no more pages).
      const next = added[0] ?? rowsNow.current.at(-1)
      if (next !== undefined) focusKey.current = keyOf(next)
      announce(`${added.length} older shown${page.nextCursor === null ? ": the oldest" : ""}`)
    } catch (e) {
      setProblem(`Older decisions not shown: ${String((e as Error).message ?? e)}`)
    } finally {
      setLoadingOlder(false)
    }
  }

  const set = (key: keyof Filters) => (value: string) => setFilters((f) => ({ ...f, [key]: value }))

  return html`<main>
    <h1 tabindex="-1" ref=${heading}>Decisions</h1>
    <form class="filters" role="search" aria-label="Filter decisions" onSubmit=${(e: Event) => e.preventDefault()}>
      ${Select({ id: "f-source", label: "Source", value: filters.source, options: props.sources, onChange: set("source") })}
      ${Select({ id: "f-type", label: "Type", value: filters.type, options: TYPES, onChange: set("type") })}
      ${Select({ id: "f-severity", label: "Severity", value: filters.severity, options: SEVERITIES, onChange: set("severity") })}
      ${Select({ id: "f-action", label: "Action status", value: filters.actionStatus, options: ACTION_STATUSES, onChange: set("actionStatus") })}
      <div class="field grow">
        <label for="f-q">Search</label>
        <input id="f-q" type="search" placeholder="text or reference" value=${search}
          onInput=${(e: Event) => setSearch((e.target as HTMLInputElement).value)} />
      </div>
    </form>
    <p class="live">
      <span class=${`dot ${live}`} aria-hidden="true"></span>
      ${live === "live" ? "Live: new decisions appear at the top" : live === "connecting" ? "Connecting…" : "Reconnecting…"}
    </p>
    ${problem === "" ? null : html`<p role="alert" class="problem">${problem}</p>`}
    ${held.length === 0 ? null : html`<button type="button" class="new" onClick=${showNew}>Show ${held.length} new</button>`}
    <table class="decisions" ref=${table}>
      <caption class="visually-hidden">Decisions, newest first</caption>
      <thead><tr>
        <th scope="col">Time</th><th scope="col">Source</th><th scope="col">Author</th><th scope="col">Content</th><th scope="col">Type</th>
        <th scope="col">Classifications</th><th scope="col">Severity</th><th scope="col">API recommends</th>
        <th scope="col">Outcome</th>
      </tr></thead>
      <tbody>${rows.map((d) => html`<${Row} key=${keyOf(d)} d=${d} fresh=${fresh.has(keyOf(d))} />`)}</tbody>
    </table>
    ${!loading && rows.length === 0 ? html`<p class="empty">No decisions match.</p>` : null}
    ${cursor === null ? null : html`<button type="button" aria-disabled=${loadingOlder ? "true" : undefined} onClick=${older}>Show older</button>`}
  </main>`
}
