/**
 * The script a user would write instead of running the daemon: fetch the feed, parse it, POST each
 * item to `/analyze/v1/text` with `fetch` at concurrency 32, append each verdict as a JSON line to a
 * file. No dedupe, no state, no retry, no fsync: not durable.
 *
 *   node bench/support/naive-client.ts FEED_URL API_URL OUT_FILE
 */
import { createWriteStream } from "node:fs"
import { createRequire } from "node:module"
import { pathToFileURL } from "node:url"
import { CHANNEL, KEY } from "./common.ts"

const [feedUrl, apiUrl, outFile] = process.argv.slice(2) as [string, string, string]
const require = createRequire(new URL("../../packages/connector-rss/package.json", import.meta.url))
const { parseFeed } = (await import(pathToFileURL(require.resolve("feedsmith")).href)) as typeof import("feedsmith")

const xml = await (await fetch(feedUrl)).text()
const { feed } = parseFeed(xml) as {
  feed: { items?: Array<{ guid?: { value?: string }; title?: string; description?: string }> }
}
const items = feed.items ?? []
const out = createWriteStream(outFile, { flags: "a" })
let next = 0
let failed = 0
const worker = async () => {
  while (next < items.length) {
    const item = items[next++]!
    const text = `${item.title ?? ""}\n\n${item.description ?? ""}`
    const res = await fetch(`${apiUrl}/analyze/v1/text`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `ApiKey ${KEY}` },
      body: JSON.stringify({ channelId: CHANNEL, text })
    })
    const body = await res.json()
    if (!res.ok) failed++
    out.write(`${JSON.stringify({ guid: item.guid?.value, status: res.status, verdict: body })}\n`)
  }
}
await Promise.all(Array.from({ length: 32 }, worker))
await new Promise<void>((r) => out.end(r))
process.send?.({ items: items.length, failed })
