// The "browser" export of @warden/v1: the client sends an API key, which the API's terms forbid in
// client-side code, so resolving this package for a browser bundle fails loudly, at load.
const message =
  "server-only: API keys must not be used client-side (@warden/v1 runs on Node.js servers; call your own backend from the browser)"
throw new Error(message)

/** Never constructed: loading this module throws first. */
export class Warden {
  constructor() {
    throw new Error(message)
  }
}
