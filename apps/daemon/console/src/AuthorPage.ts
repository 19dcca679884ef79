/**
 * An author's page (`#/authors/<platform>:<identifier>`), linked from every decision, decision row and
 * review item: who (key, usernames, sources), how much of each type and severity over 24 h / 7 d /
 * 30 d, the strike score explained in words ("3 strikes, 1.6 after decay; the last on 11-20") and in a
 * chart of its decay (StrikeChart), the strikes one by one, and the history newest first, paged with
 * "Show older": each item's verdict, rule, review decision, actions, feedback and appeals.
 */
import { api, query } from "./api.ts"
import { announce } from "./Announcer.ts"
import * as Focus from "./Focus.ts"
import { html, useEffect, useRef, useState } from "./html.ts"
import { type AuthorHistory, type AuthorItem, hrefOf, keyOf, SEVERITIES, TYPES, type Verdict, when } from "./model.ts"
import { statusWords } from "./Outcome.ts"
import { ScrollRegion } from "./ScrollRegion.ts"
import { StrikeChart } from "./StrikeChart.ts"
import { visible } from "./Visible.ts"

const PAGE = 50
const WINDOWS = [
  ["24h", "Last 24 hours"],
  ["7d", "Last 7 days"],
  ["30d", "Last 30 days"]
] as const

const Counts = (props: { counts: AuthorHistory["counts"] }) =>
  html`<${ScrollRegion} label="Counts table"><table class="counts">
    <thead><tr><th scope="col">Window</th><th scope="col">Items</th>
      ${TYPES.map((t) => html`<th scope="col">${t}</th>`)}
      ${SEVERITIES.map((s) => html`<th scope="col">${s}</th>`)}</tr></thead>
    <tbody>${WINDOWS.map(([w, label]) => {
      const c = props.counts[w]
      return html`<tr><th scope="row">${label}</th><td>${c.total}</td>
        ${TYPES.map((t) => html`<td>${c.byType[t] ?? 0}</td>`)}
        ${SEVERITIES.map((s) => html`<td>${c.bySeverity[s] ?? 0}</td>`)}</tr>`
    })}</tbody>
  </table><//>`

const list = (parts: ReadonlyArray<string>) => (parts.length === 0 ? "—" : parts.join("; "))

/** One item of the history. */
const Item = (props: { i: AuthorItem }) => {
  const i = props.i
  const v = (i.verdict ?? {}) as Verdict
  const key = keyOf(i)
  return html`<tr>
    <td><time datetime=${i.createdAt}>${when(i.createdAt)}</time></td>
    <td>${visible(i.source)}</td>
    <td><a href=${hrefOf(i.source, i.reference)} data-key=${key} onClick=${() => Focus.rememberOpened(key)}>${visible(i.reference)}</a>${i.erased ? html` <span class="muted">(erased)</span>` : null}</td>
    <td>${v.type ?? i.status}${v.severity === undefined ? "" : ` · ${v.severity}`}</td>
    <td>${i.rule === null ? "—" : html`<code>${visible(i.rule)}</code>`}</td>
    <td>${i.review === null ? "—" : `${i.review.state}${i.review.decidedBy === null ? "" : ` by ${i.review.decidedBy}`}`}</td>
    <td>${list(i.actions.map((a) => `${a.kind}: ${statusWords(a.status)}`))}</td>
    <td>${list(i.feedback.map((f) => `${f.origin}: ${f.status}`))}</td>
    <td>${list(i.appeals.map((a) => `${a.state}${a.decidedBy === null ? "" : ` by ${a.decidedBy}`}`))}</td>
    <td>${i.strike === null ? "—" : `${i.strike.kind} ${i.strike.weight}${i.strike.removed ? " (removed)" : ""}`}</td>
  </tr>`
}

/**
 * The moment the history is as of: the series' last point, the server's now (its score is the one shown),
 * so the chart and the words agree whatever the browser's clock says.
 */
const asOf = (strikes: AuthorHistory["strikes"]): number =>
  // The server always sends 31 points (AuthorView: 30 days, then now).
  Date.parse(strikes.series[strikes.series.length - 1]!.at)

/** The author page of `authorKey`. */
export const AuthorPage = (props: { authorKey: string }) => {
  const [found, setFound] = useState<AuthorHistory | undefined>(undefined)
  const [items, setItems] = useState<ReadonlyArray<AuthorItem>>([])
  const [cursor, setCursor] = useState<string | null>(null)
  const [problem, setProblem] = useState("")
  const table = useRef<HTMLTableElement>(null)
  const focusKey = useRef<string | undefined>(undefined)
  const heading = Focus.useHeadingFocus<HTMLHeadingElement>()
  const path = `/api/authors/${encodeURIComponent(props.authorKey)}`

  useEffect(() => {
    api<AuthorHistory>(`${path}${query({ limit: PAGE })}`).then(
      (a) => {
        setFound(a)
        setItems(a.items)
        setCursor(a.nextCursor)
      },
      (e) => setProblem(String(e.message ?? e))
    )
  }, [path])

  useEffect(() => {
    if (focusKey.current === undefined) return
    ;[...(table.current?.querySelectorAll<HTMLAnchorElement>("a[data-key]") ?? [])]
      .find((a) => a.dataset.key === focusKey.current)
      ?.focus()
    focusKey.current = undefined
  })

  const older = async () => {
    if (cursor === null) return
    try {
      const page = await api<AuthorHistory>(`${path}${query({ limit: PAGE, cursor })}`)
      setItems([...items, ...page.items])
      setCursor(page.nextCursor)
      const first = page.items[0] ?? items.at(-1)
      if (first !== undefined) focusKey.current = keyOf(first)
      announce(`${page.items.length} older shown${page.nextCursor === null ? ": the oldest" : ""}`)
    } catch (e) {
      setProblem(`Older items not shown: ${String((e as Error).message ?? e)}`)
    }
  }

  const header = html`<h1 tabindex="-1" ref=${heading}>Author <span class="ref">${visible(props.authorKey)}</span></h1>`
  if (problem !== "" && found === undefined)
    return html`<main class="author">${header}<p role="alert" class="problem">${problem}</p></main>`
  if (found === undefined) return html`<main class="author">${header}<p>Loading…</p></main>`
  const a = found.author
  const s = found.strikes
  return html`<main class="author">
    ${header}
    <section aria-labelledby="h-who">
      <h2 id="h-who">Who</h2>
      <dl class="facts">
        <div><dt>Key</dt><dd><code>${visible(a.key)}</code></dd></div>
        <div><dt>Platform</dt><dd>${visible(a.platform)}</dd></div>
        <div><dt>Identifier</dt><dd>${visible(a.identifier)}</dd></div>
        <div><dt>Usernames</dt><dd>${a.usernames.length === 0 ? "none" : a.usernames.map((u, n) => html`${n === 0 ? "" : ", "}${visible(u)}`)}</dd></div>
        <div><dt>Sources</dt><dd>${visible(a.sources.join(", "))}</dd></div>
        <div><dt>First seen</dt><dd>${when(a.firstSeenAt)}</dd></div>
        <div><dt>Last seen</dt><dd>${when(a.lastSeenAt)}</dd></div>
      </dl>
    </section>
    <section aria-labelledby="h-counts">
      <h2 id="h-counts">Items by type and severity</h2>
      <${Counts} counts=${found.counts} />
    </section>
    <section aria-labelledby="h-strikes">
      <h2 id="h-strikes">Strikes</h2>
      <p class="explanation">${s.explanation.charAt(0).toUpperCase()}${s.explanation.slice(1)} (score now ${s.score.toFixed(2)}; a strike halves every ${s.halfLife}).</p>
      <${StrikeChart} strikes=${s} now=${asOf(s)} />
      ${
        s.list.length === 0
          ? null
          : html`<${ScrollRegion} label="Strikes table"><table class="strikes">
            <thead><tr><th scope="col">When</th><th scope="col">Item</th><th scope="col">Kind</th><th scope="col">Weight</th><th scope="col">Now</th><th scope="col">Removed</th></tr></thead>
            <tbody>${s.list.map(
              (k) => html`<tr class=${k.removedAt === null ? "" : "removed"}>
                <td>${when(k.at)}</td>
                <td><a href=${hrefOf(k.source, k.reference)}>${visible(`${k.source} / ${k.reference}`)}</a></td>
                <td>${k.kind}</td><td>${k.weight}</td><td>${k.now.toFixed(2)}</td>
                <td>${k.removedAt === null ? "—" : `${when(k.removedAt)}${k.removedBy === null ? "" : ` by ${k.removedBy}`}${k.removedReason === null ? "" : `: ${k.removedReason}`}`}</td>
              </tr>`
            )}</tbody></table><//>`
      }
    </section>
    <section aria-labelledby="h-history">
      <h2 id="h-history">History, newest first</h2>
      ${problem === "" ? null : html`<p role="alert" class="problem">${problem}</p>`}
      <${ScrollRegion} label="History table"><table class="history" ref=${table}>
        <thead><tr><th scope="col">Time</th><th scope="col">Source</th><th scope="col">Item</th><th scope="col">Verdict</th>
          <th scope="col">Rule</th><th scope="col">Review</th><th scope="col">Actions</th><th scope="col">Feedback</th>
          <th scope="col">Appeals</th><th scope="col">Strike</th></tr></thead>
        <tbody>${items.map((i) => html`<${Item} key=${keyOf(i)} i=${i} />`)}</tbody>
      </table><//>
      ${cursor === null ? null : html`<button type="button" onClick=${older}>Show older</button>`}
    </section>
  </main>`
}
