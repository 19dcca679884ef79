/** A real HTTP server on loopback serving an RSS 2.0 feed whose items the test controls. */
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"

export interface FeedItem {
  readonly guid: string
  readonly title: string
  readonly description: string
  readonly pubDate?: string
  /** The item's `<link>` (default `http://127.0.0.1/p/GUID`): a hostile feed's can be anything. */
  readonly link?: string
  /** The item's `<author>`. */
  readonly author?: string
}

const escape = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")

/** Renders items as an RSS 2.0 document. */
export const rss = (items: ReadonlyArray<FeedItem>): string =>
  `<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0"><channel><title>Test feed</title><link>http://127.0.0.1/</link><description>t</description>
${items
  .map(
    (i) =>
      `<item><guid isPermaLink="false">${escape(i.guid)}</guid><title>${escape(i.title)}</title><link>${escape(i.link ?? `http://127.0.0.1/p/${encodeURIComponent(i.guid)}`)}</link><description>${escape(i.description)}</description>${i.pubDate ? `<pubDate>${i.pubDate}</pubDate>` : ""}${i.author === undefined ? "" : `<author>${escape(i.author)}</author>`}</item>`
  )
  .join("\n")}
</channel></rss>`

/** Starts the server; `items` may be replaced between polls. */
export const startFeedServer = async (initial: ReadonlyArray<FeedItem>) => {
  let items = initial
  let hits = 0
  const server = createServer((_req, res) => {
    hits++
    const body = rss(items)
    res.writeHead(200, { "content-type": "application/rss+xml; charset=utf-8" })
    res.end(body)
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}/feed.xml`,
    setItems: (next: ReadonlyArray<FeedItem>) => {
      items = next
    },
    hits: () => hits,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
}
