/**
 * One decision: the content (marked with the verdict's language), the verdict, the rule that matched
 * (also when it takes no platform action) and the actions it took (status, attempts, last error),
 * feedback already sent, the exact request sent to the API, every version; the "Send feedback" and
 * "Mark wrong" buttons; and "Restore" / "Remove" where the connector can reverse what Warden did on the
 * platform (the source's automatic feedback goes with it).
 *
 * Focus is never dropped on the body: the heading takes it on arrival, Cancel gives it back to the
 * button that opened the form, and a Restore / Remove (whose button the answer replaces) moves it to
 * the outcome it reports.
 */
import { api, query } from "./api.ts"
import { FeedbackForm } from "./FeedbackForm.ts"
import { reviewWords } from "./Outcome.ts"
import * as Focus from "./Focus.ts"
import { html, useEffect, useRef, useState } from "./html.ts"
import {
  authorHref,
  contentOf,
  type DecisionDetail,
  langOf,
  type ModerateResult,
  type SourceEvent,
  requestText,
  verdictOf,
  when
} from "./model.ts"
import { ScrollRegion } from "./ScrollRegion.ts"
import { visible, webLink } from "./Visible.ts"

const Field = (label: string, value: unknown) =>
  value === undefined || value === null || value === ""
    ? null
    : html`<div><dt>${label}</dt><dd>${visible(Array.isArray(value) ? value.join(", ") || "none" : String(value))}</dd></div>`

const pretty = requestText

type Form = "none" | "feedback" | "wrong"

/** The decision page of `source` / `reference`. */
export const DecisionPage = (props: { source: string; reference: string }) => {
  const [detail, setDetail] = useState<DecisionDetail | undefined>(undefined)
  const [problem, setProblem] = useState("")
  const [form, setForm] = useState<Form>("none")
  const [reloads, setReloads] = useState(0)
  const [moderated, setModerated] = useState<{ ok: boolean; text: string } | undefined>(undefined)
  const [moderating, setModerating] = useState(false)
  const heading = Focus.useHeadingFocus<HTMLHeadingElement>()
  const openers = { feedback: useRef<HTMLButtonElement>(null), wrong: useRef<HTMLButtonElement>(null) }
  // The button whose form was just cancelled, to give focus back to once the form is gone.
  const closed = useRef<Form>("none")
  const outcome = useRef<HTMLParagraphElement>(null)

  useEffect(() => {
    api<DecisionDetail>(`/api/decisions/${encodeURIComponent(props.reference)}${query({ source: props.source })}`)
      .then(setDetail)
      .catch((e) => setProblem(String(e.message ?? e)))
  }, [props.source, props.reference, reloads])

  useEffect(() => {
    if (form !== "none" || closed.current === "none") return
    openers[closed.current].current?.focus()
    closed.current = "none"
  }, [form])

  useEffect(() => {
    if (moderated !== undefined && !moderating) outcome.current?.focus()
  }, [moderated, moderating])

  const moderate = async (action: "restore" | "remove") => {
    if (detail === undefined || moderating) return
    setModerating(true)
    try {
      const r = await api<ModerateResult>(`/api/decisions/${encodeURIComponent(detail.reference)}/moderate`, {
        method: "POST",
        body: { source: detail.source, action }
      })
      const what = action === "restore" ? "Restore" : "Remove"
      const result =
        r.action.status === "done"
          ? `${what}d on the platform (${r.action.kind}).`
          : `${what} (${r.action.kind}) is ${r.action.status}${r.action.lastError === null ? "" : `: ${r.action.lastError}`}.`
      const sent = r.feedback === null ? ` ${r.feedbackNote}.` : ` Automatic feedback sent (id ${r.feedback.id}).`
      setModerated({ ok: r.action.status === "done", text: `${result}${sent}` })
    } catch (e) {
      setModerated({ ok: false, text: `Not done: ${String((e as Error).message ?? e)}` })
    } finally {
      setModerating(false)
      setReloads((n) => n + 1)
    }
  }

  const header = html`<p><a href=${Focus.currentListHash()}>← Decisions</a></p>
    <h1 tabindex="-1" ref=${heading}>Decision <span class="ref">${visible(props.reference)}</span></h1>`
  if (problem !== "") return html`<main class="detail">${header}<p role="alert" class="problem">${problem}</p></main>`
  if (detail === undefined) return html`<main class="detail">${header}<p>Loading…</p></main>`
  const d = detail.latest
  const v = verdictOf(d)
  const event = (detail.event ?? {}) as SourceEvent
  const author =
    typeof event.author === "string" ? event.author : (event.author?.username ?? event.author?.name ?? event.author?.id)
  const permalink = event.permalink === undefined ? undefined : webLink(event.permalink)
  // A text over the endpoint's limit goes in segments and the request kept is the one the verdict came
  // from: the whole text is the source event's.
  const whole = d.segments > 1 && typeof event.content?.text === "string" ? event.content.text : contentOf(d)
  const actionsOfLatest = detail.actions.filter((a) => a.version === d.version)
  // A moderator's Restore / Remove is recorded under the rule "console" (ModeratorAction.RULE): not a rule that matched.
  const rule = d.rule ?? actionsOfLatest.find((a) => a.rule !== "console")?.rule ?? null
  const cancel = () => {
    closed.current = form
    setForm("none")
  }

  return html`<main class="detail">
    ${header}
    <section aria-labelledby="h-content">
      <h2 id="h-content">Content</h2>
      <blockquote class="content-text" lang=${langOf(v)}>${visible(whole)}</blockquote>
      ${d.segments > 1 ? html`<p class="note">Sent to the API in ${d.segments} segments; the request below is the one the verdict came from.</p>` : null}
      <dl class="facts">
        ${Field("Source", detail.source)} ${Field("Kind", d.contentType)}
        ${
          d.author === null
            ? Field("Author", author)
            : html`<div><dt>Author</dt><dd><a href=${authorHref(d.author.key)} title="The author's history and strikes">${visible(author ?? d.author.username ?? d.author.key)}</a></dd></div>`
        }
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
        ${Field("The API recommends", v.recommendedAction)} ${Field("Analysed", d.analysedAt === null ? undefined : when(d.analysedAt))}
      </dl>
      <div class="buttons">
        <button type="button" ref=${openers.feedback} onClick=${() => setForm("feedback")}>Send feedback</button>
        <button type="button" class="danger" ref=${openers.wrong} onClick=${() => setForm("wrong")}>Mark wrong</button>
      </div>
      ${
        form === "none"
          ? null
          : html`<${FeedbackForm} key=${form} source=${detail.source} reference=${detail.reference} version=${d.version}
              classifications=${v.classifications ?? []} wrong=${form === "wrong"}
              onSent=${() => setReloads((n) => n + 1)} onCancel=${cancel} />`
      }
    </section>
    <section aria-labelledby="h-why">
      <h2 id="h-why">Why: the rule that matched</h2>
      ${
        rule === null
          ? html`<p>No rule of this source matched: no action was taken.</p>`
          : html`<p class="why">Rule <code>${rule}</code> matched${
              actionsOfLatest.some((a) => a.rule === rule)
                ? "; its actions are below."
                : ". It takes no platform action."
            }</p>`
      }
      ${
        detail.reviews.length === 0
          ? null
          : html`<ul class="reviews">${detail.reviews.map(
              (r) =>
                html`<li>v${r.version} ${reviewWords(r)}${r.decidedAt === null ? "" : ` (${when(r.decidedAt)})`}${
                  r.note === null ? "" : html`; note: ${visible(r.note)}`
                }${r.statement === null ? "" : html`; the author's statement: ${visible(r.statement)}`}${
                  r.state === "pending" ? html` · <a href="#/review">on the Review page</a>` : ""
                }</li>`
            )}</ul>`
      }
    </section>
    <section aria-labelledby="h-actions">
      <h2 id="h-actions">Actions and outcomes</h2>
      ${
        detail.actions.length === 0
          ? html`<p>None.</p>`
          : html`<${ScrollRegion} label="Actions table"><table><thead><tr><th scope="col">Version</th><th scope="col">Action</th><th scope="col">Rule</th><th scope="col">Status</th><th scope="col">Attempts</th><th scope="col">Last error</th></tr></thead>
            <tbody>${detail.actions.map(
              (a) =>
                html`<tr><td>${a.version}</td><td>${a.kind}</td><td>${a.rule}</td><td>${a.status}</td><td>${a.attempts}</td><td>${visible(a.lastError)}</td></tr>`
            )}</tbody></table><//>`
      }
    </section>
    <section aria-labelledby="h-platform">
      <h2 id="h-platform">On the platform</h2>
      ${
        detail.platformActions.length === 0
          ? html`<p>Nothing to reverse from here${detail.actions.some((a) => a.status === "pending") ? ": an action is still pending" : ""}.</p>`
          : html`<div class="buttons">${detail.platformActions.map((a) =>
              a === "restore"
                ? html`<button type="button" aria-disabled=${moderating ? "true" : undefined} onClick=${() => moderate("restore")}>Restore</button>`
                : html`<button type="button" class="danger" aria-disabled=${moderating ? "true" : undefined} onClick=${() => moderate("remove")}>Remove</button>`
            )}</div>`
      }
      ${moderated === undefined ? null : html`<p tabindex="-1" ref=${outcome} class=${`result ${moderated.ok ? "ok" : "problem"}`}>${visible(moderated.text)}</p>`}
    </section>
    <section aria-labelledby="h-feedback">
      <h2 id="h-feedback">Feedback sent</h2>
      ${
        detail.feedback.length === 0
          ? html`<p>None yet.</p>`
          : html`<${ScrollRegion} label="Feedback table"><table><thead><tr><th scope="col">When</th><th scope="col">Origin</th><th scope="col">Status</th><th scope="col">Id</th><th scope="col">Error</th></tr></thead>
            <tbody>${detail.feedback.map(
              (f) =>
                html`<tr><td>${when(f.createdAt)}</td><td>${f.origin}</td><td>${f.status}</td><td>${f.id ?? ""}</td><td>${visible(f.error)}</td></tr>`
            )}</tbody></table><//>`
      }
    </section>
    <section aria-labelledby="h-request">
      <h2 id="h-request">The exact request sent</h2>
      <p>${d.endpoint ?? ""} — feedback sends this body unchanged as <code>analyzeRequest</code>.</p>
      <pre class="request" tabindex="0" role="region" aria-label="The request sent">${visible(pretty(d.request))}</pre>
    </section>
    ${
      detail.versions.length > 1
        ? html`<section aria-labelledby="h-versions"><h2 id="h-versions">Versions</h2><ul>${detail.versions.map(
            (x) =>
              html`<li>v${x.version}: ${verdictOf(x).type ?? x.status} (${when(x.createdAt)}) — <span lang=${langOf(verdictOf(x))}>${visible(contentOf(x))}</span></li>`
          )}</ul></section>`
        : null
    }
  </main>`
}
