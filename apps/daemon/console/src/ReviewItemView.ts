/**
 * The review item a moderator is deciding, all on one screen: the content (marked with the verdict's
 * language), the author (a link to their page), the post, the verdict, the rule that sent it, an
 * appeal's statement, the item's earlier versions, and what approving or rejecting will do on the
 * platform; then the decision buttons (for a moderator or an admin, not a viewer), and the reject form
 * (a note and the classifications the content has, sent as feedback: Enter sends, Escape cancels).
 */
import { api, query } from "./api.ts"
import * as Focus from "./Focus.ts"
import { html, useEffect, useRef, useState } from "./html.ts"
import {
  authorHref,
  CLASSIFICATIONS,
  contentOf,
  type DecisionDetail,
  hrefOf,
  langOf,
  type ReviewItem,
  verdictOf,
  when
} from "./model.ts"
import { langOfRow, platformWords, rowKey, textOf, verbs, verdictOfRow } from "./ReviewQueue.ts"
import { visible, webLink } from "./Visible.ts"

const Fact = (label: string, value: unknown) =>
  value === undefined || value === null || value === ""
    ? null
    : html`<div><dt>${label}</dt><dd>${typeof value === "string" ? visible(value) : value}</dd></div>`

/** A link from a stranger: live only when http(s), else shown as text. */
const Link = (href: string | null, text: string) => {
  if (href === null) return null
  const safe = webLink(href)
  return safe === undefined
    ? html`<code class="unsafe-link">${visible(href)}</code>`
    : html`<a href=${safe} rel="noreferrer noopener" target="_blank">${text}</a>`
}

/** The item's earlier versions (read from its decision when it has more than one). */
const EarlierVersions = (props: { item: ReviewItem }) => {
  const r = props.item
  const [versions, setVersions] = useState<DecisionDetail["versions"] | undefined>(undefined)
  useEffect(() => {
    if (r.versions <= 1) return
    let current = true
    api<DecisionDetail>(`/api/decisions/${encodeURIComponent(r.reference)}${query({ source: r.source })}`).then(
      (d) => current && setVersions(d.versions.filter((v) => v.version !== r.version)),
      () => current && setVersions([])
    )
    return () => {
      current = false
    }
  }, [rowKey(r)])
  if (r.versions <= 1) return html`<p class="muted">No earlier version.</p>`
  if (versions === undefined) return html`<p class="muted">Loading the earlier versions…</p>`
  return html`<ul class="versions">${versions.map(
    (v) =>
      html`<li>v${v.version} (${when(v.createdAt)}), ${verdictOf(v).type ?? v.status}: <span lang=${langOf(verdictOf(v))}>${visible(contentOf(v))}</span></li>`
  )}</ul>`
}

/** The reject (or deny) form: an optional note and the classifications to send as feedback. */
const RejectForm = (props: {
  item: ReviewItem
  onSend: (note: string, classifications: ReadonlyArray<string>) => void
  onCancel: () => void
}) => {
  const [note, setNote] = useState("")
  const [ticked, setTicked] = useState<ReadonlySet<string>>(new Set())
  const noteInput = useRef<HTMLInputElement>(null)
  useEffect(() => noteInput.current?.focus(), [])
  const send = (e?: Event) => {
    e?.preventDefault()
    props.onSend(
      note.trim(),
      CLASSIFICATIONS.filter((c) => ticked.has(c))
    )
  }
  const keys = (e: KeyboardEvent) => {
    if (e.key === "Escape") {
      e.preventDefault()
      props.onCancel()
    } else if (e.key === "Enter" && !(e.target instanceof HTMLButtonElement)) send(e)
  }
  const toggle = (c: string) =>
    setTicked((t) => {
      const next = new Set(t)
      if (next.has(c)) next.delete(c)
      else next.add(c)
      return next
    })
  const verb = verbs(props.item).reject
  return html`<form class="reject" aria-labelledby="reject-title" onSubmit=${send} onKeyDown=${keys}>
    <h3 id="reject-title">${verb} this item</h3>
    <div class="field">
      <label for="reject-note">Note (optional, sent with the feedback)</label>
      <input id="reject-note" type="text" maxlength="2000" ref=${noteInput} value=${note}
        onInput=${(e: Event) => setNote((e.target as HTMLInputElement).value)} />
    </div>
    <fieldset>
      <legend>Classifications the content has (sent as feedback when the verdict missed them)</legend>
      ${CLASSIFICATIONS.map(
        (c) => html`<label class="check"><input type="checkbox" name="classification" value=${c}
          checked=${ticked.has(c)} onChange=${() => toggle(c)} /> ${c}</label>`
      )}
    </fieldset>
    <p class="muted">Enter: ${verb.toLowerCase()} · Escape: cancel</p>
    <div class="buttons">
      <button type="submit" class="danger">${verb}</button>
      <button type="button" class="secondary" onClick=${props.onCancel}>Cancel</button>
    </div>
  </form>`
}

/** The selected item; `rejecting` shows the reject form; decide buttons only when `canDecide`. */
export const ReviewItemView = (props: {
  item: ReviewItem
  canDecide: boolean
  busy: boolean
  rejecting: boolean
  onApprove: () => void
  onReject: () => void
  onSend: (note: string, classifications: ReadonlyArray<string>) => void
  onCancel: () => void
}) => {
  const r = props.item
  const v = verdictOfRow(r)
  const words = verbs(r)
  const remember = () => Focus.rememberOpened(rowKey(r))
  const author = r.author
  return html`<section class="review-item" aria-labelledby="h-item">
    <h2 id="h-item">${r.kind === "appeal" ? "Appeal of an item" : "Held for review"} <span class="muted">· ${visible(r.source)}</span></h2>
    <blockquote class="content-text clamp-long" lang=${langOfRow(r)}>${visible(textOf(r) || `(${r.content.type})`)}</blockquote>
    ${r.statement === null ? null : html`<div class="statement"><h3>The author's statement</h3><blockquote lang=${langOfRow(r)}>${visible(r.statement)}</blockquote></div>`}
    <dl class="facts">
      ${Fact(
        "Author",
        author === null
          ? undefined
          : author.key === null
            ? visible(author.username ?? author.identifier ?? "")
            : html`<a href=${authorHref(author.key)} onClick=${remember}>${visible(author.username ?? author.key)}</a>`
      )}
      ${Fact("Post", r.post === null ? undefined : html`${visible(r.post.title)} ${Link(r.post.permalink, "(open the post)")}`)}
      ${Fact("Type", v.type)} ${Fact("Classifications", (v.classifications ?? []).join(", ") || "none")}
      ${Fact("Severity", v.severity)} ${Fact("The API recommends", v.recommendedAction)} ${Fact("Language", r.language)}
      ${Fact("Rule", r.rule === null ? undefined : html`<code>${visible(r.rule)}</code>`)}
      ${Fact("Held since", when(r.createdAt))} ${Fact("Version", String(r.version))}
    </dl>
    <p>${Link(r.permalink, "Open on the platform")} <a href=${hrefOf(r.source, r.reference)} onClick=${remember}>The decision's page</a></p>
    <p class="platform-words">${platformWords(r)}</p>
    <h3>Earlier versions</h3>
    <${EarlierVersions} item=${r} />
    ${
      !props.canDecide
        ? html`<p class="muted">You are signed in as a viewer: you can read the queue, not decide.</p>`
        : props.rejecting
          ? html`<${RejectForm} key=${rowKey(r)} item=${r} onSend=${props.onSend} onCancel=${props.onCancel} />`
          : html`<div class="buttons">
              <button type="button" aria-disabled=${props.busy ? "true" : undefined} aria-keyshortcuts="a" onClick=${props.onApprove}>${words.approve} <kbd>a</kbd></button>
              <button type="button" class="danger" aria-disabled=${props.busy ? "true" : undefined} aria-keyshortcuts="r" onClick=${props.onReject}>${words.reject}… <kbd>r</kbd></button>
            </div>`
    }
  </section>`
}
