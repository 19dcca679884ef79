/**
 * Feedback on a verdict, by reference: one checkbox per classification (checked = the item has it),
 * pre-filled from the verdict, notes and confidence. "Send" posts to `/api/feedback`, which sends the
 * exact request stored for the item; the result (the feedback id, or why it was refused) is shown in
 * a status line that is in the form from the start (so a screen reader reads it), while focus stays
 * on Send: a button disabled while it has focus drops focus on the body, so Send is only marked busy.
 */
import { api, ApiError } from "./api.ts"
import { html, useEffect, useRef, useState } from "./html.ts"
import { CLASSIFICATIONS, CONFIDENCES } from "./model.ts"
import { visible } from "./Visible.ts"

/** The form; `wrong` starts with every classification of the verdict unticked (the verdict was wrong). */
export const FeedbackForm = (props: {
  source: string
  reference: string
  version: number
  classifications: ReadonlyArray<string>
  wrong: boolean
  onSent: () => void
  onCancel: () => void
}) => {
  const all = [...new Set([...CLASSIFICATIONS, ...props.classifications])]
  const [ticked, setTicked] = useState<ReadonlySet<string>>(new Set(props.wrong ? [] : props.classifications))
  const [notes, setNotes] = useState(props.wrong ? "The verdict is wrong." : "")
  const [confidence, setConfidence] = useState("")
  const [result, setResult] = useState<{ ok: boolean; text: string } | undefined>(undefined)
  const [sending, setSending] = useState(false)
  const first = useRef<HTMLInputElement>(null)
  useEffect(() => first.current?.focus(), [])

  const toggle = (name: string) =>
    setTicked((t) => {
      const next = new Set(t)
      if (next.has(name)) next.delete(name)
      else next.add(name)
      return next
    })

  const send = async (e: Event) => {
    e.preventDefault()
    if (sending) return
    const classificationsToAdd = all.filter((c) => ticked.has(c) && !props.classifications.includes(c))
    const classificationsToRemove = props.classifications.filter((c) => !ticked.has(c))
    const body = {
      reference: props.reference,
      source: props.source,
      version: props.version,
      ...(classificationsToAdd.length > 0 ? { classificationsToAdd } : {}),
      ...(classificationsToRemove.length > 0 ? { classificationsToRemove } : {}),
      ...(notes.trim() === "" ? {} : { notes: notes.trim() }),
      ...(confidence === "" ? {} : { confidence })
    }
    setSending(true)
    try {
      const sent = await api<{ id: string }>("/api/feedback", { method: "POST", body })
      setResult({ ok: true, text: `Feedback sent (id ${sent.id}).` })
      props.onSent()
    } catch (error) {
      setResult({ ok: false, text: `Not sent: ${error instanceof ApiError ? error.message : String(error)}` })
    } finally {
      setSending(false)
    }
  }

  return html`<form class="feedback" aria-labelledby="fb-title" onSubmit=${send}>
    <h3 id="fb-title">${props.wrong ? "Mark this verdict wrong" : "Send feedback"}</h3>
    <fieldset>
      <legend>Classifications the content has</legend>
      ${all.map(
        (c, i) => html`<label class="check">
          <input type="checkbox" name="classification" value=${c} checked=${ticked.has(c)}
            ref=${i === 0 ? first : undefined} onChange=${() => toggle(c)} />
          ${c}
        </label>`
      )}
    </fieldset>
    <div class="field">
      <label for="fb-notes">Notes</label>
      <textarea id="fb-notes" rows="2" value=${notes} onInput=${(e: Event) => setNotes((e.target as HTMLTextAreaElement).value)}></textarea>
    </div>
    <div class="field">
      <label for="fb-confidence">Confidence</label>
      <select id="fb-confidence" value=${confidence} onChange=${(e: Event) => setConfidence((e.target as HTMLSelectElement).value)}>
        <option value="">Not said</option>
        ${CONFIDENCES.map((c) => html`<option value=${c}>${c}</option>`)}
      </select>
    </div>
    <div class="buttons">
      <button type="submit" aria-disabled=${sending ? "true" : undefined}>Send</button>
      <button type="button" class="secondary" onClick=${props.onCancel}>Cancel</button>
    </div>
    <p role="status" class=${result === undefined ? "" : result.ok ? "ok" : "problem"}>${result === undefined ? "" : visible(result.text)}</p>
  </form>`
}
