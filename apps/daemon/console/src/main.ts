/**
 * The review console: a page served by the daemon's admin server. Until the browser has a session it
 * shows only the sign-in form; then the review queue (`#/review`, its filters in the query: `#/review?kind=appeal`, first in the navigation with its
 * pending count), the decisions list (`#/`, its filters in the query: `#/?type=HATEFUL`), a decision
 * (`#/decision/SOURCE/REF`), an author (`#/authors/PLATFORM:IDENTIFIER`) and the pipeline (`#/pipeline`). It talks
 * to nothing but the admin API of the host that served it. Every navigation moves focus to the new
 * view (`Focus.ts`); one live region (`Announcer.ts`) says what changed without moving it.
 */
import { Announcer } from "./Announcer.ts"
import { ApiError, api, checkSession, signOut } from "./api.ts"
import { AuthorPage } from "./AuthorPage.ts"
import { DecisionList, type Filters, filtersOf } from "./DecisionList.ts"
import { DecisionPage } from "./DecisionPage.ts"
import * as Focus from "./Focus.ts"
import { html, render, useEffect, useState } from "./html.ts"
import { usePendingCount } from "./PendingCount.ts"
import { PipelinePage } from "./PipelinePage.ts"
import { type ReviewFilters, reviewFiltersOf } from "./ReviewFilters.ts"
import { ReviewPage } from "./ReviewPage.ts"
import { SignIn } from "./SignIn.ts"
import { visibleText } from "./Visible.ts"

type Route =
  | { page: "decisions"; filters: Filters; query: string }
  | { page: "decision"; source: string; reference: string }
  | { page: "pipeline" }
  | { page: "review"; filters: ReviewFilters; query: string }
  | { page: "author"; key: string }

const routeOf = (hash: string): Route => {
  const m = /^#\/decision\/([^/]+)\/(.+)$/u.exec(hash)
  if (m !== null) return { page: "decision", source: decodeURIComponent(m[1]!), reference: decodeURIComponent(m[2]!) }
  const author = /^#\/authors\/(.+)$/u.exec(hash)
  if (author !== null) return { page: "author", key: decodeURIComponent(author[1]!) }
  if (hash === "#/pipeline") return { page: "pipeline" }
  if (hash === "#/review" || hash.startsWith("#/review?")) {
    const query = hash.slice("#/review".length)
    return { page: "review", filters: reviewFiltersOf(query), query }
  }
  const query = hash.startsWith("#/?") ? hash.slice(2) : ""
  return { page: "decisions", filters: filtersOf(query), query }
}

/** The pending count beside "Review" in the navigation, live. */
const PendingBadge = () => {
  const total = usePendingCount()
  return total === undefined
    ? null
    : html` <span class="count">${total}</span><span class="visually-hidden"> pending</span>`
}

const App = () => {
  const [signedIn, setSignedIn] = useState<boolean | undefined>(undefined)
  const [route, setRoute] = useState<Route>(routeOf(location.hash))
  const [sources, setSources] = useState<ReadonlyArray<string>>([])
  const [signOutProblem, setSignOutProblem] = useState("")
  const refused = new URLSearchParams(location.search).get("signin") === "refused"

  useEffect(() => {
    checkSession().then(setSignedIn, () => setSignedIn(false))
    const onHash = () => {
      Focus.navigation()
      setRoute(routeOf(location.hash))
    }
    addEventListener("hashchange", onHash)
    return () => removeEventListener("hashchange", onHash)
  }, [])
  useEffect(() => {
    if (signedIn !== true) return
    if (location.search !== "") history.replaceState(null, "", `/${location.hash}`)
    api<{ sources: Record<string, unknown> }>("/readyz").then(
      (r) => setSources(Object.keys(r.sources)),
      () => {}
    )
  }, [signedIn])
  useEffect(() => {
    const title =
      route.page === "decision"
        ? `Decision ${visibleText(route.reference)}`
        : route.page === "author"
          ? `Author ${visibleText(route.key)}`
          : route.page === "pipeline"
            ? "Pipeline"
            : route.page === "review"
              ? "Review"
              : "Decisions"
    document.title = `${title} · Warden`
  }, [route])

  // A sign-out that failed leaves the session working: said, never a silent no-op.
  const leave = () =>
    signOut().then(
      () => {
        setSignOutProblem("")
        Focus.navigation()
        setSignedIn(false)
      },
      (e) => setSignOutProblem(`Not signed out: ${e instanceof ApiError ? e.message : String(e)}`)
    )

  if (signedIn === undefined) return html`<p class="loading">Loading…</p>`
  if (!signedIn)
    return html`<${SignIn}
      refused=${refused}
      onSignedIn=${() => {
        Focus.navigation()
        setSignedIn(true)
      }}
    />`
  const current = (page: Route["page"]) => (route.page === page ? "page" : undefined)
  return html`<div class="shell">
    <header>
      <span class="brand">Warden</span>
      <nav aria-label="Console">
        <a href="#/review" aria-current=${current("review")}>Review<${PendingBadge} /></a>
        <a href="#/" aria-current=${current("decisions")}>Decisions</a>
        <a href="#/pipeline" aria-current=${current("pipeline")}>Pipeline</a>
      </nav>
      <button type="button" class="secondary" onClick=${leave}>Sign out</button>
    </header>
    <${Announcer} />
    ${signOutProblem === "" ? null : html`<p role="alert" class="problem banner">${signOutProblem}</p>`}
    ${
      route.page === "decision"
        ? html`<${DecisionPage} key=${`${route.source}/${route.reference}`} source=${route.source} reference=${route.reference} />`
        : route.page === "pipeline"
          ? html`<${PipelinePage} />`
          : route.page === "review"
            ? html`<${ReviewPage} key=${route.query} sources=${sources} filters=${route.filters} />`
            : route.page === "author"
              ? html`<${AuthorPage} key=${route.key} authorKey=${route.key} />`
              : html`<${DecisionList} key=${route.query} sources=${sources} filters=${route.filters} />`
    }
  </div>`
}

render(html`<${App} />`, document.getElementById("app")!)
