/**
 * The review console's files (`index.html`, `app.js`, `app.css`), built by `pnpm build` into
 * `dist/console/` and served by the admin server from there: nothing is fetched from any other host
 * (the Content-Security-Policy says so to the browser too).
 */
import { existsSync, readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { HttpServerResponse } from "effect/http"

const TYPES: Record<string, string> = {
  "index.html": "text/html; charset=utf-8",
  "app.js": "text/javascript; charset=utf-8",
  "app.css": "text/css; charset=utf-8"
}

/** What the browser may load and connect to: this server only; no framing, no inline script. */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  "content-security-policy":
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
    "form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
  // The sign-in link carries the token: never send it on as a referrer.
  "referrer-policy": "no-referrer"
}

/**
 * The folder of the built console: `dist/console/` next to the built admin module, or the package's
 * `dist/console/` when the daemon runs from its sources (tests, `pnpm warden`).
 */
export const directory = (): string | undefined =>
  [new URL("../console/", import.meta.url), new URL("../../dist/console/", import.meta.url)]
    .map((url) => fileURLToPath(url))
    .find((dir) => existsSync(`${dir}index.html`))

/** The console's file names, by the path they are served at. */
export const PATHS: Readonly<Record<string, string>> = {
  "/": "index.html",
  "/index.html": "index.html",
  "/console/app.js": "app.js",
  "/console/app.css": "app.css"
}

/** One of the console's files; a 503 naming the fix when the console was not built. */
export const response = (file: string): HttpServerResponse.HttpServerResponse => {
  const dir = directory()
  if (dir === undefined) {
    return HttpServerResponse.text(
      "The review console is not built: run `pnpm build` (it bundles apps/daemon/console into dist/console).\n",
      { status: 503, headers: SECURITY_HEADERS }
    )
  }
  return HttpServerResponse.uint8Array(readFileSync(`${dir}${file}`), {
    contentType: TYPES[file] ?? "application/octet-stream",
    headers: { "cache-control": "no-cache", ...SECURITY_HEADERS }
  })
}
