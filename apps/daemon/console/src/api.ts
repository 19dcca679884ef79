/**
 * The admin API as the console calls it: same origin, the session cookie (sent by the browser), and
 * the session's CSRF token on every state-changing call. Errors are the admin API's envelope.
 */

/** An admin API refusal: its status and the envelope's code and message. */
export class ApiError extends Error {
  readonly status: number
  readonly code: string
  constructor(status: number, code: string, message: string) {
    super(message)
    this.status = status
    this.code = code
  }
}

let csrf: string | null = null

/** Who is signed in (`admin-token` for the shared token) and their role: what the console offers them. */
export interface Who {
  readonly name: string
  readonly role: "viewer" | "moderator" | "admin"
}

let who: Who = { name: "", role: "viewer" }

/** Who is signed in, as the last session check or sign-in said (a viewer until then). */
export const signedInAs = (): Who => who

/** Calls the admin API and returns its JSON body; a non-2xx answer throws {@link ApiError}. */
export const api = async <A = any>(path: string, init: { method?: string; body?: unknown } = {}): Promise<A> => {
  const method = init.method ?? "GET"
  const headers: Record<string, string> = { accept: "application/json" }
  if (init.body !== undefined) headers["content-type"] = "application/json"
  if (method !== "GET" && csrf !== null) headers["x-warden-csrf"] = csrf
  let res: Response
  try {
    res = await fetch(path, {
      method,
      headers,
      credentials: "same-origin",
      ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) })
    })
  } catch (e) {
    // The daemon stopped, or the network is down: said as such, not as "Failed to fetch".
    throw new ApiError(0, "UNREACHABLE", `the daemon did not answer (${e instanceof Error ? e.message : String(e)})`)
  }
  const body = await res.json().catch(() => null)
  if (!res.ok && !(res.status === 503 && path === "/readyz")) {
    throw new ApiError(res.status, body?.error?.code ?? "HTTP_ERROR", body?.error?.message ?? res.statusText)
  }
  return body as A
}

/** Whether this browser is signed in (and remembers the session's CSRF token). */
export const checkSession = async (): Promise<boolean> => {
  try {
    const session = await api<{ csrf: string | null } & Who>("/api/session")
    csrf = session.csrf
    who = { name: session.name, role: session.role }
    return true
  } catch (e) {
    if (e instanceof ApiError && e.status === 401) return false
    throw e
  }
}

/**
 * Signs in with the admin token (the page's form). The answer carries the session's CSRF token: the
 * page goes on without a reload, so no session check would fetch it.
 */
export const signIn = async (token: string) => {
  const session = await api<{ csrf: string } & Who>("/session", { method: "POST", body: { token } })
  csrf = session.csrf
  who = { name: session.name, role: session.role }
}

/**
 * Signs out; throws {@link ApiError} when the daemon did not end the session (the cookie still works).
 * A session already gone (401: expired, or a restart) is signed out.
 */
export const signOut = async () => {
  try {
    await api("/session/end", { method: "POST" })
  } catch (e) {
    if (!(e instanceof ApiError && e.status === 401)) throw e
  }
  csrf = null
  who = { name: "", role: "viewer" }
}

/** A query string of the non-empty values. */
export const query = (params: Record<string, string | number | undefined>): string => {
  const search = new URLSearchParams()
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== "") search.set(k, String(v))
  const text = search.toString()
  return text === "" ? "" : `?${text}`
}
