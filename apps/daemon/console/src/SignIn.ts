/** The sign-in form: shown, with no data, until the browser has a session. */
import { ApiError, signIn } from "./api.ts"
import * as Focus from "./Focus.ts"
import { html, useState } from "./html.ts"

/** Asks for the admin token; `refused` when the printed link's token was wrong. */
export const SignIn = (props: { refused: boolean; onSignedIn: () => void }) => {
  const [token, setToken] = useState("")
  const [problem, setProblem] = useState(props.refused ? "The token in that link was refused." : "")
  const heading = Focus.useHeadingFocus<HTMLHeadingElement>()
  const submit = async (e: Event) => {
    e.preventDefault()
    try {
      await signIn(token.trim())
      props.onSignedIn()
    } catch (error) {
      setProblem(error instanceof ApiError ? error.message : String(error))
    }
  }
  return html`<main class="signin">
    <h1 tabindex="-1" ref=${heading}>Warden review console</h1>
    <p>Open the <code>console</code> link that <code>warden run</code> or <code>warden demo</code> printed, or enter the admin token.</p>
    <form onSubmit=${submit}>
      <label for="token">Admin token</label>
      <input id="token" name="token" type="password" autocomplete="current-password" required
        value=${token} onInput=${(e: Event) => setToken((e.target as HTMLInputElement).value)} />
      <button type="submit">Sign in</button>
    </form>
    ${problem === "" ? null : html`<p role="alert" class="problem">${problem}</p>`}
  </main>`
}
