/**
 * The pipeline at a glance, refreshed every 5 seconds: each source's state (`/readyz`), the API quota
 * per endpoint (`/api/quota`), sink backlogs and dead letters, items per source and status, and a
 * chart of verdicts per minute by type over the last hour (`/api/pipeline`). Each table scrolls
 * sideways in its own box where the screen is narrow, reachable from the keyboard (`ScrollRegion`).
 */
import { PATHS } from "@warden/core/client"
import { api } from "./api.ts"
import * as Focus from "./Focus.ts"
import { html, useEffect, useState } from "./html.ts"
import { ScrollRegion } from "./ScrollRegion.ts"
import { visible } from "./Visible.ts"

interface Readiness {
  ready: boolean
  problems: ReadonlyArray<string>
  sources: Record<string, { state: string; since: string; reason?: string; api: string; problem?: string }>
}
interface Quota {
  endpoints: ReadonlyArray<{
    endpoint: string
    configuredRate: number | null
    learntRate: number | null
    currentRate: number | null
    burst: number | null
    recent429s: number
  }>
}
interface Counters {
  sinks: ReadonlyArray<{ sink: string; backlog: number; deadLetters: number; failingSince?: string }>
  items: ReadonlyArray<{ source: string; status: string; count: number }>
  verdictsPerMinute: ReadonlyArray<{ minute: number; type: string; count: number }>
}

const COLOURS: Record<string, string> = { HATEFUL: "#c0392b", SUPPORTIVE: "#2e7d32", NEUTRAL: "#607d8b" }
const colour = (type: string) => COLOURS[type] ?? "#8e6c00"
// The limiter names endpoints as PATHS does; the path is what an operator recognises.
const pathOf = (endpoint: string): string => (PATHS as Record<string, string>)[endpoint] ?? endpoint
const rate = (n: number | null) => (n === null ? "—" : `${n.toFixed(2)}/s`)

/** Verdicts per minute by type, the last 60 minutes, as stacked bars. */
const Chart = (props: { data: Counters["verdictsPerMinute"] }) => {
  const now = Math.floor(Date.now() / 60_000) * 60_000
  const minutes = Array.from({ length: 60 }, (_, i) => now - (59 - i) * 60_000)
  const types = [...new Set(props.data.map((d) => d.type))].sort()
  const at = (m: number, t: string) => props.data.find((d) => d.minute === m && d.type === t)?.count ?? 0
  const totals = minutes.map((m) => types.reduce((n, t) => n + at(m, t), 0))
  const max = Math.max(1, ...totals)
  const total = totals.reduce((a, b) => a + b, 0)
  const summary = `${total} verdicts in the last hour: ${types.map((t) => `${t} ${props.data.filter((d) => d.type === t).reduce((n, d) => n + d.count, 0)}`).join(", ") || "none"}`
  const W = 600
  const H = 120
  const bw = W / 60
  return html`<figure class="chart">
    <svg viewBox=${`0 0 ${W} ${H + 16}`} role="img" aria-label=${summary}>
      ${minutes.map((m, i) => {
        let y = H
        return types.map((t) => {
          const h = (at(m, t) / max) * H
          y -= h
          return h === 0
            ? null
            : html`<rect x=${i * bw + 1} y=${y} width=${bw - 2} height=${h} fill=${colour(t)}><title>${`${new Date(m).toLocaleTimeString()} ${t}: ${at(m, t)}`}</title></rect>`
        })
      })}
      <line x1="0" y1=${H} x2=${W} y2=${H} stroke="#999" />
      <text x="0" y=${H + 13} font-size="11" fill="#555">-60 min</text>
      <text x=${W} y=${H + 13} font-size="11" fill="#555" text-anchor="end">now (max ${max}/min)</text>
    </svg>
    <figcaption>${types.map((t) => html`<span class="key"><span class="swatch" style=${`background:${colour(t)}`}></span>${t}</span>`)} ${summary}</figcaption>
  </figure>`
}

/** The pipeline page. */
export const PipelinePage = () => {
  const [ready, setReady] = useState<Readiness | undefined>(undefined)
  const [quota, setQuota] = useState<Quota | undefined>(undefined)
  const [counters, setCounters] = useState<Counters | undefined>(undefined)
  const [problem, setProblem] = useState("")
  const [replayed, setReplayed] = useState("")
  const [loads, setLoads] = useState(0)
  const heading = Focus.useHeadingFocus<HTMLHeadingElement>()
  const replay = (sink: string) =>
    api<{ replayed: number }>(`/api/sinks/${encodeURIComponent(sink)}/replay`, { method: "POST" })
      .then((r) => setReplayed(`${r.replayed} dead letter(s) of ${sink} queued again.`))
      .catch((e) => setReplayed(`Replay of ${sink} failed: ${String(e.message ?? e)}`))
      .finally(() => setLoads((n) => n + 1))
  useEffect(() => {
    const load = () =>
      Promise.all([api<Readiness>("/readyz"), api<Quota>("/api/quota"), api<Counters>("/api/pipeline")])
        .then(([r, q, c]) => {
          setReady(r)
          setQuota(q)
          setCounters(c)
          setProblem("")
        })
        .catch((e) => setProblem(String(e.message ?? e)))
    void load()
    const t = setInterval(load, 5000)
    return () => clearInterval(t)
  }, [loads])
  const title = html`<h1 tabindex="-1" ref=${heading}>Pipeline</h1>`
  if (ready === undefined || quota === undefined || counters === undefined)
    return html`<main class="pipeline">${title}${problem === "" ? html`<p>Loading…</p>` : html`<p role="alert" class="problem">${problem}</p>`}</main>`
  const backlogOf = (source: string) =>
    counters.items.filter((i) => i.source === source && i.status === "unanalysed").reduce((n, i) => n + i.count, 0)
  return html`<main class="pipeline">
    ${title}
    <p class=${ready.ready ? "ok" : "problem"} role="status">${ready.ready ? (ready.problems.some((p) => p.startsWith("degraded:")) ? "Ready, degraded: the daemon is making progress; a sink is failing and its verdicts wait to be retried." : "Ready: the daemon is making progress.") : "Not ready: the daemon cannot make progress."}</p>
    ${ready.problems.length === 0 ? null : html`<ul class="problems">${ready.problems.map((p) => html`<li>${visible(p)}</li>`)}</ul>`}
    <section aria-labelledby="h-sources"><h2 id="h-sources">Sources</h2>
      <${ScrollRegion} label="Sources table"><table><thead><tr><th scope="col">Source</th><th scope="col">State</th><th scope="col">Since</th><th scope="col">API</th><th scope="col">Waiting for a verdict</th><th scope="col">Last error</th></tr></thead>
      <tbody>${Object.entries(ready.sources).map(
        ([id, s]) =>
          html`<tr><td>${id}</td><td><span class=${`state state-${s.state}`}>${s.state}</span></td><td>${new Date(s.since).toLocaleString()}</td><td>${s.api}</td><td>${backlogOf(id)}</td><td>${visible(s.problem ?? s.reason)}</td></tr>`
      )}</tbody></table><//>
    </section>
    <section aria-labelledby="h-chart"><h2 id="h-chart">Verdicts per minute, last hour</h2><${Chart} data=${counters.verdictsPerMinute} /></section>
    <section aria-labelledby="h-quota"><h2 id="h-quota">API quota</h2>
      <${ScrollRegion} label="API quota table"><table><thead><tr><th scope="col">Endpoint</th><th scope="col">Configured</th><th scope="col">Learnt</th><th scope="col">Enforced</th><th scope="col">At once</th><th scope="col">429s (recent)</th></tr></thead>
      <tbody>${quota.endpoints.map(
        (e) =>
          html`<tr><td>${pathOf(e.endpoint)}</td><td>${rate(e.configuredRate)}</td><td>${rate(e.learntRate)}</td><td>${rate(e.currentRate)}</td><td>${e.burst ?? "—"}</td><td>${e.recent429s}</td></tr>`
      )}</tbody></table><//>
      ${quota.endpoints.length === 0 ? html`<p>No call made yet.</p>` : null}
    </section>
    <section aria-labelledby="h-sinks"><h2 id="h-sinks">Sinks</h2>
      <p role="status">${replayed}</p>
      ${
        counters.sinks.length === 0
          ? html`<p>No sink is configured.</p>`
          : html`<${ScrollRegion} label="Sinks table"><table><thead><tr><th scope="col">Sink</th><th scope="col">Backlog</th><th scope="col">Dead letters</th><th scope="col">Delivering</th><th scope="col"><span class="visually-hidden">Replay</span></th></tr></thead>
        <tbody>${counters.sinks.map(
          (s) =>
            html`<tr><td>${s.sink}</td><td>${s.backlog}</td><td>${s.deadLetters}</td><td>${s.failingSince === undefined ? "yes" : html`<span class="problem">failing since ${new Date(s.failingSince).toLocaleString()}</span>`}</td><td>
              <button type="button" aria-label=${`Replay the dead letters of ${s.sink}`} disabled=${s.deadLetters === 0}
                title=${s.deadLetters === 0 ? "No dead letters to replay" : undefined} onClick=${() => replay(s.sink)}>Replay</button>
            </td></tr>`
        )}</tbody></table><//>`
      }
    </section>
    <section aria-labelledby="h-items"><h2 id="h-items">Items recorded</h2>
      <${ScrollRegion} label="Items recorded table"><table><thead><tr><th scope="col">Source</th><th scope="col">Status</th><th scope="col">Items</th></tr></thead>
      <tbody>${counters.items.map((i) => html`<tr><td>${i.source}</td><td>${i.status}</td><td>${i.count}</td></tr>`)}</tbody></table><//>
    </section>
  </main>`
}
