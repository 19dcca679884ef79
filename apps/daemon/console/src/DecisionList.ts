/**
 * Decisions, newest first: filters (source, type, severity, action status, text), pages by cursor
 * ("Show older"), and new decisions arriving live from the server-sent event stream.
 */
import { api, query } from "./api.ts"
import { html, useEffect, useRef, useState } from "./html.ts"
import { ACTION_STATUSES, contentOf, type Decision, hrefOf, keyOf, SEVERITIES, TYPES, when } from "./model.ts"
import { visible } from "./Visible.ts"

interface Filters {
  source: string
  type: string
  severity: string
  actionStatus: string
  q: string
}

const EMPTY: Filters = { source: "", type: "", severity: "", actionStatus: "", q: "" }
const PAGE = 50

const Select = (props: {
  id: string
  label: string
  value: string
  options: ReadonlyArray<string>
  onChange: (value: string) => void
}) => html`<div class="field">
  <label for=${props.id}>${props.label}</label>
  <select id=${props.id} value=${props.value}
    onChange=${(e: Event) => props.onChange((e.target as HTMLSelectElement).value)}>
    <option value="">All</option>
    ${props.options.map((o) => html`<option value=${o}>${o}</option>`)}
  </select>
</div>`

/** One decision as a row; long content is clamped to a few lines (the decision page shows it all). */
const Row = (props: { d: Decision; fresh: boolean }) => {
  const d = props.d
  const v = d.verdict ?? {}
  return html`<tr class=${props.fresh ? "fresh" : ""} data-reference=${d.reference}>
    <td data-label="Time"><time datetime=${new Date(d.createdAt).toISOString()}>${when(d.createdAt)}</time></td>
    <td data-label="Source">${visible(d.source)}</td>
    <td data-label="Content" class="content"><a href=${hrefOf(d.source, d.reference)}>${visible(contentOf(d) || d.reference)}</a></td>
    <td data-label="Type">${v.type ?? d.status}</td>
    <td data-label="Classifications">${(v.classifications ?? []).join(", ")}</td>
    <td data-label="Severity"><span class=${`sev sev-${v.severity ?? "none"}`}>${v.severity ?? ""}</span></td>
    <td data-label="Recommended">${v.recommendedAction ?? ""}</td>
  </tr>`
}

/** The decisions page. */
export const DecisionList = (props: { sources: ReadonlyArray<string> }) => {
  const [filters, setFilters] = useState<Filters>(EMPTY)
  const [search, setSearch] = useState("")
  const [rows, setRows] = useState<ReadonlyArray<Decision>>([])
  const [fresh, setFresh] = useState<ReadonlySet<string>>(new Set())
  const [cursor, setCursor] = useState<string | null>(null)
  const [live, setLive] = useState<"connecting" | "live" | "reconnecting">("connecting")
  const [problem, setProblem] = useState("")
  const [loading, setLoading] = useState(true)
  const generation = useRef(0)

  // The search box waits for a pause in typing.
  useEffect(() => {
    const t = setTimeout(() => setFilters((f) => (f.q === search ? f : { ...f, q: search })), 300)
    return () => clearTimeout(t)
  }, [search])

  const params = {
    source: filters.source,
    type: filters.type,
    severity: filters.severity,
    actionStatus: filters.actionStatus,
    q: filters.q
  }

  // First page and the live stream, again whenever a filter changes.
  useEffect(() => {
    const mine = ++generation.current
    setLoading(true)
    setProblem("")
    api<{ decisions: Array<Decision>; nextCursor: string | null }>(`/api/decisions${query({ ...params, limit: PAGE })}`)
      .then((page) => {
        if (generation.current !== mine) return
        setRows(page.decisions)
        setFresh(new Set())
        setCursor(page.nextCursor)
      })
      .catch((e) => generation.current === mine && setProblem(String(e.message ?? e)))
      .finally(() => generation.current === mine && setLoading(false))
    const stream = new EventSource(`/api/decisions/stream${query(params)}`)
    setLive("connecting")
    stream.onopen = () => setLive("live")
    stream.onerror = () => setLive("reconnecting")
    stream.addEventListener("decision", (e) => {
      const d = JSON.parse((e as MessageEvent<string>).data) as Decision
      setRows((current) => (current.some((r) => keyOf(r) === keyOf(d)) ? current : [d, ...current]))
      setFresh((current) => new Set([...current, keyOf(d)]))
    })
    return () => stream.close()
  }, [filters])

  const older = async () => {
    if (cursor === null) return
    const page = await api<{ decisions: Array<Decision>; nextCursor: string | null }>(
      `/api/decisions${query({ ...params, limit: PAGE, cursor })}`
    )
    setRows((current) => [...current, ...page.decisions])
    setCursor(page.nextCursor)
  }

  const set = (key: keyof Filters) => (value: string) => setFilters((f) => ({ ...f, [key]: value }))

  return html`<main>
    <h1>Decisions</h1>
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
    <p class="live" role="status" aria-live="polite">
      <span class=${`dot ${live}`} aria-hidden="true"></span>
      ${live === "live" ? "Live: new decisions appear at the top" : live === "connecting" ? "Connecting…" : "Reconnecting…"}
    </p>
    ${problem === "" ? null : html`<p role="alert" class="problem">${problem}</p>`}
    <table class="decisions">
      <caption class="visually-hidden">Decisions, newest first</caption>
      <thead><tr>
        <th scope="col">Time</th><th scope="col">Source</th><th scope="col">Content</th><th scope="col">Type</th>
        <th scope="col">Classifications</th><th scope="col">Severity</th><th scope="col">Recommended</th>
      </tr></thead>
      <tbody>${rows.map((d) => html`<${Row} key=${keyOf(d)} d=${d} fresh=${fresh.has(keyOf(d))} />`)}</tbody>
    </table>
    ${!loading && rows.length === 0 ? html`<p class="empty">No decisions match.</p>` : null}
    ${cursor === null ? null : html`<button type="button" onClick=${older}>Show older</button>`}
  </main>`
}
