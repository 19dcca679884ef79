/**
 * One decision: the content, the verdict, the rule that matched and the actions it took (status,
 * attempts, last error), feedback already sent, the exact request sent to the API, every version; and
 * the "Send feedback" and "Mark wrong" buttons.
 */
import { api, query } from "./api.ts"
import { FeedbackForm } from "./FeedbackForm.ts"
import { html, useEffect, useState } from "./html.ts"
import { contentOf, type DecisionDetail, when } from "./model.ts"

const Field = (label: string, value: unknown) =>
  value === undefined || value === null || value === ""
    ? null
    : html`<div><dt>${label}</dt><dd>${Array.isArray(value) ? value.join(", ") || "none" : String(value)}</dd></div>`

const pretty = (text: string | null) => {
  if (text === null) return ""
  try {
    return JSON.stringify(JSON.parse(text), null, 2)
  } catch {
    return text
  }
}

/** The decision page of `source` / `reference`. */
export const DecisionPage = (props: { source: string; reference: string }) => {
  const [detail, setDetail] = useState<DecisionDetail | undefined>(undefined)
  const [problem, setProblem] = useState("")
  const [form, setForm] = useState<"none" | "feedback" | "wrong">("none")
  const [reloads, setReloads] = useState(0)

  useEffect(() => {
    api<DecisionDetail>(`/api/decisions/${encodeURIComponent(props.reference)}${query({ source: props.source })}`)
      .then(setDetail)
      .catch((e) => setProblem(String(e.message ?? e)))
  }, [props.source, props.reference, reloads])

  if (problem !== "") return html`<main><p role="alert" class="problem">${problem}</p></main>`
  if (detail === undefined) return html`<main><p>Loading…</p></main>`
  const d = detail.latest
  const v = d.verdict ?? {}
  const event = detail.event ?? {}
  const author =
    typeof event.author === "string" ? event.author : (event.author?.username ?? event.author?.name ?? event.author?.id)
  const rules = [...new Set(detail.actions.filter((a) => a.version === d.version).map((a) => a.rule))]

  return html`<main class="detail">
    <p><a href="#/">← Decisions</a></p>
    <h1>Decision <span class="ref">${detail.reference}</span></h1>
    <section aria-labelledby="h-content">
      <h2 id="h-content">Content</h2>
      <blockquote class="content-text">${contentOf(d)}</blockquote>
      <dl class="facts">
        ${Field("Source", detail.source)} ${Field("Kind", d.contentType)} ${Field("Author", author)}
        ${Field("Published", event.publishedAt === undefined ? undefined : when(event.publishedAt))} ${Field("Recorded", when(d.createdAt))} ${Field("Version", d.version)}
        ${Field("Deleted on the platform", d.deletedAt)}
      </dl>
      ${event.permalink === undefined ? null : html`<p><a href=${event.permalink} rel="noreferrer noopener" target="_blank">Open on the platform</a></p>`}
    </section>
    <section aria-labelledby="h-verdict">
      <h2 id="h-verdict">Verdict</h2>
      <dl class="facts">
        ${Field("Status", d.status)} ${Field("Type", v.type)} ${Field("Classifications", v.classifications ?? [])}
        ${Field("Severity", v.severity)} ${Field("Directed at", v.directedAt)} ${Field("Language", v.language)}
        ${Field("Recommended action", v.recommendedAction)} ${Field("Analysed", d.analysedAt === null ? undefined : when(d.analysedAt))}
      </dl>
      <div class="buttons">
        <button type="button" onClick=${() => setForm("feedback")}>Send feedback</button>
        <button type="button" class="danger" onClick=${() => setForm("wrong")}>Mark wrong</button>
      </div>
      ${
        form === "none"
          ? null
          : html`<${FeedbackForm} key=${form} source=${detail.source} reference=${detail.reference} version=${d.version}
              classifications=${v.classifications ?? []} wrong=${form === "wrong"}
              onSent=${() => setReloads((n) => n + 1)} onCancel=${() => setForm("none")} />`
      }
    </section>
    <section aria-labelledby="h-why">
      <h2 id="h-why">Why: the rule that matched</h2>
      ${rules.length === 0 ? html`<p>No rule of this source matched: no action was taken.</p>` : html`<ul>${rules.map((r) => html`<li><code>${r}</code></li>`)}</ul>`}
    </section>
    <section aria-labelledby="h-actions">
      <h2 id="h-actions">Actions and outcomes</h2>
      ${
        detail.actions.length === 0
          ? html`<p>None.</p>`
          : html`<table><thead><tr><th scope="col">Version</th><th scope="col">Action</th><th scope="col">Rule</th><th scope="col">Status</th><th scope="col">Attempts</th><th scope="col">Last error</th></tr></thead>
            <tbody>${detail.actions.map(
              (a) =>
                html`<tr><td>${a.version}</td><td>${a.kind}</td><td>${a.rule}</td><td>${a.status}</td><td>${a.attempts}</td><td>${a.lastError ?? ""}</td></tr>`
            )}</tbody></table>`
      }
    </section>
    <section aria-labelledby="h-feedback">
      <h2 id="h-feedback">Feedback sent</h2>
      ${
        detail.feedback.length === 0
          ? html`<p>None yet.</p>`
          : html`<table><thead><tr><th scope="col">When</th><th scope="col">Origin</th><th scope="col">Status</th><th scope="col">Id</th><th scope="col">Error</th></tr></thead>
            <tbody>${detail.feedback.map(
              (f) =>
                html`<tr><td>${when(f.createdAt)}</td><td>${f.origin}</td><td>${f.status}</td><td>${f.id ?? ""}</td><td>${f.error ?? ""}</td></tr>`
            )}</tbody></table>`
      }
    </section>
    <section aria-labelledby="h-request">
      <h2 id="h-request">The exact request sent</h2>
      <p>${d.endpoint ?? ""} — feedback sends this body unchanged as <code>analyzeRequest</code>.</p>
      <pre class="request" tabindex="0">${pretty(d.request)}</pre>
    </section>
    ${
      detail.versions.length > 1
        ? html`<section aria-labelledby="h-versions"><h2 id="h-versions">Versions</h2><ul>${detail.versions.map(
            (x) => html`<li>v${x.version}: ${x.verdict?.type ?? x.status} (${when(x.createdAt)}) — ${contentOf(x)}</li>`
          )}</ul></section>`
        : null
    }
  </main>`
}
