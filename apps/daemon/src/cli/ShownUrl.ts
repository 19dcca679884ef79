/**
 * A URL as the CLI shows it (`warden config print`, `config check`'s summary): scheme, host, port and
 * path in full, so an operator sees where things go; what can carry a secret replaced by `<redacted>`:
 * the userinfo (`user:password@`), every query value (the keys stay: `?token=<redacted>&v=<redacted>`)
 * and the fragment. With `hidePath` the path goes too (`/<redacted>`): a webhook's path is where Slack,
 * Discord or Teams put the token, and nothing in a URL says whether its path is a secret.
 */

const REDACTED = "<redacted>"

/** Whether a string is written as an absolute URL with an authority (`scheme://...`). */
export const looksLikeUrl = (text: string): boolean => /^[a-z][a-z0-9+.-]*:\/\//iu.test(text)

/**
 * The URL with its userinfo, query values and fragment redacted (and its path, with `hidePath`);
 * `text` unchanged when it is no URL.
 */
export const shownUrl = (text: string, options: { readonly hidePath?: boolean } = {}): string => {
  let url: URL
  try {
    url = new URL(text)
  } catch {
    return text
  }
  const hidePath = options.hidePath === true && url.pathname !== "/"
  // Nothing to hide: as written (no trailing slash added).
  if (!hidePath && url.username === "" && url.password === "" && url.search === "" && url.hash === "") return text
  const userinfo = url.username !== "" || url.password !== "" ? `${REDACTED}@` : ""
  const keys = [...url.searchParams.keys()].map((key) => `${encodeURIComponent(key)}=${REDACTED}`)
  const query = keys.length > 0 ? `?${keys.join("&")}` : url.search === "?" ? "?" : ""
  const fragment = url.hash !== "" ? `#${REDACTED}` : ""
  return `${url.protocol}//${userinfo}${url.host}${hidePath ? `/${REDACTED}` : url.pathname}${query}${fragment}`
}
