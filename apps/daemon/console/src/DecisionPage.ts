/**
 * One decision: the content, the verdict, the rule that matched and the actions it took (status,
 * attempts, last error), feedback already sent, the exact request sent to the API, every version; the
 * "Send feedback" and "Mark wrong" buttons; and "Restore" / "Remove" where the connector can reverse
 * what Warden did on the platform (the source's automatic feedback goes with it).
 */
import { api, query } from "./api.ts"
import { FeedbackForm } from "./FeedbackForm.ts"
import { html, useEffect, useState } from "./html.ts"
import { contentOf, type DecisionDetail, type ModerateResult, when } from "./model.ts"
import { visible, webLink } from "./Visible.ts"

const Field = (label: string, value: unknown) =>
  value === undefined || value === null || value === ""
    ? null
    : html`<div><dt>${label}</dt><dd>${visible(Array.isArray(value) ? value.join(", ") || "none" : String(value))}</dd></div>`

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
  const [moderated, setModerated] = useState<{ ok: boolean; text: string } | undefined>(undefined)
  const [moderating, setModerating] = useState(false)

  useEffect(() => {
    api<DecisionDetail>(`/api/decisions/${encodeURIComponent(props.reference)}${query({ source: props.source })}`)
      .then(setDetail)
      .catch((e) => setProblem(String(e.message ?? e)))
  }, [props.source, props.reference, reloads])

  const moderate = async (action: "restore" | "remove") => {
    if (detail === undefined) return
    setModerating(true)
    try {
      const r = await api<ModerateResult>(`/api/decisions/${encodeURIComponent(detail.reference)}/moderate`, {
        method: "POST",
        body: { source: detail.source, action }
      })
      const what = action === "restore" ? "Restore" : "Remove"
      const outcome =
        r.action.status === "done"
          ? `${what}d on the platform (${r.action.kind}).`
          : `${what} (${r.action.kind}) is ${r.action.status}${r.action.lastError === null ? "" : `: ${r.action.lastError}`}.`
      const sent = r.feedback === null ? ` ${r.feedbackNote}.` : ` Automatic feedback sent (id ${r.feedback.id}).`
      setModerated({ ok: r.action.status === "done", text: `${outcome}${sent}` })
    } catch (e) {
      setModerated({ ok: false, text: `Not done: ${String((e as Error).message ?? e)}` })
    } finally {
      setModerating(false)
      setReloads((n) => n + 1)
    }
  }

  if (problem !== "") return html`<main><p role="alert" class="problem">${problem}</p></main>`
  if (detail === undefined) return html`<main><p>Loading…</p></main>`
  const d = detail.latest
  const v = d.verdict ?? {}
  const event = detail.event ?? {}
  const author =
    typeof event.author === "string" ? event.author : (event.author?.username ?? event.author?.name ?? event.author?.id)
  // A moderator's Restore / Remove is recorded under the rule "console" (ModeratorAction.RULE): not a rule that matched.
  const permalink = event.permalink === undefined ? undefined : webLink(event.permalink)
  // A text over the endpoint's limit goes in segments and the request kept is the one the verdict came
  // from: the whole text is the source event's.
  const whole = d.segments > 1 && typeof event.content?.text === "string" ? event.content.text : contentOf(d)
  const rules = [
    ...new Set(detail.actions.filter((a) => a.version === d.version && a.rule !== "console").map((a) => a.rule))
  ]

  return html`<main class="detail">
    <p><a href="#/">← Decisions</a></p>
    <h1>Decision <span class="ref">${visible(detail.reference)}</span></h1>
    <section aria-labelledby="h-content">
      <h2 id="h-content">Content</h2>
      <blockquote class="content-text">${visible(whole)}</blockquote>
      ${d.segments > 1 ? html`<p class="note">Sent to the API in ${d.segments} segments; the request below is the one the verdict came from.</p>` : null}
      <dl class="facts">
        ${Field("Source", detail.source)} ${Field("Kind", d.contentType)} ${Field("Author", author)}
        ${Field("Published", event.publishedAt === undefined ? undefined : when(event.publishedAt))} ${Field("Recorded", when(d.createdAt))} ${Field("Version", d.version)}
        ${Field("Deleted on the platform", d.deletedAt)}
      </dl>
      ${
        event.permalink === undefined
          ? null
          : permalink !== undefined
            ? html`<p><a href=${permalink} rel="noreferrer noopener" target="_blank">Open on the platform</a></p>`
            : html`<p class="unsafe-link">Link given by the platform, not opened (not an http or https address): <code>${visible(event.permalink)}</code></p>`
      }
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
                html`<tr><td>${a.version}</td><td>${a.kind}</td><td>${a.rule}</td><td>${a.status}</td><td>${a.attempts}</td><td>${visible(a.lastError)}</td></tr>`
            )}</tbody></table>`
      }
    </section>
    <section aria-labelledby="h-platform">
      <h2 id="h-platform">On the platform</h2>
      ${
        detail.platformActions.length === 0
          ? html`<p>Nothing to reverse from here${detail.actions.some((a) => a.status === "pending") ? ": an action is still pending" : ""}.</p>`
          : html`<div class="buttons">${detail.platformActions.map((a) =>
              a === "restore"
                ? html`<button type="button" disabled=${moderating} onClick=${() => moderate("restore")}>Restore</button>`
                : html`<button type="button" class="danger" disabled=${moderating} onClick=${() => moderate("remove")}>Remove</button>`
            )}</div>`
      }
      ${moderated === undefined ? null : html`<p role=${moderated.ok ? "status" : "alert"} class=${moderated.ok ? "ok" : "problem"}>${visible(moderated.text)}</p>`}
    </section>
    <section aria-labelledby="h-feedback">
      <h2 id="h-feedback">Feedback sent</h2>
      ${
        detail.feedback.length === 0
          ? html`<p>None yet.</p>`
          : html`<table><thead><tr><th scope="col">When</th><th scope="col">Origin</th><th scope="col">Status</th><th scope="col">Id</th><th scope="col">Error</th></tr></thead>
            <tbody>${detail.feedback.map(
              (f) =>
                html`<tr><td>${when(f.createdAt)}</td><td>${f.origin}</td><td>${f.status}</td><td>${f.id ?? ""}</td><td>${visible(f.error)}</td></tr>`
            )}</tbody></table>`
      }
    </section>
    <section aria-labelledby="h-request">
      <h2 id="h-request">The exact request sent</h2>
      <p>${d.endpoint ?? ""} — feedback sends this body unchanged as <code>analyzeRequest</code>.</p>
      <pre class="request" tabindex="0">${visible(pretty(d.request))}</pre>
    </section>
    ${
      detail.versions.length > 1
        ? html`<section aria-labelledby="h-versions"><h2 id="h-versions">Versions</h2><ul>${detail.versions.map(
            (x) =>
              html`<li>v${x.version}: ${x.verdict?.type ?? x.status} (${when(x.createdAt)}) — ${visible(contentOf(x))}</li>`
          )}</ul></section>`
        : null
    }
  </main>`
}
