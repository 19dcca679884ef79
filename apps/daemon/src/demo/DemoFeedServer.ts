/**
 * Serves the demo comments as a WordPress-style comments feed (RSS 2.0 with `dc:creator`) on
 * loopback, releasing a few more comments every interval, so the demo shows verdicts arriving live.
 */
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { Clock, Effect } from "effect"
import type { DemoComment } from "./DemoComments.ts"

const escape = (s: string) =>
  s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;")

const slug = (title: string) =>
  title
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-|-$/g, "")

/** The feed document of the comments released so far, newest first (as feeds are). */
export const render = (origin: string, released: ReadonlyArray<DemoComment>, start: number): string => {
  const items = released
    .map((c, i) => {
      const link = `${origin}/articles/${slug(c.article)}#comment-${c.id}`
      const date = new Date(start + i * 1000).toUTCString()
      return `<item><title>${escape(`Comment on ${c.article} by ${c.author}`)}</title><link>${escape(link)}</link><dc:creator>${escape(c.author)}</dc:creator><pubDate>${date}</pubDate><guid isPermaLink="false">${c.id}</guid><description>${escape(c.text)}</description></item>`
    })
    .reverse()
    .join("\n")
  return `<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0" xmlns:dc="http://purl.org/dc/elements/1.1/"><channel>
<title>Comments on The Warden Gazette</title><link>${origin}/</link><description>Demo comments</description>
${items}
</channel></rss>`
}

/** Starts the feed server for the scope: `initial` comments at once, then `step` more every `everyMillis`. */
export const start = (options: {
  readonly comments: ReadonlyArray<DemoComment>
  readonly initial: number
  readonly step: number
  readonly everyMillis: number
}) =>
  Effect.acquireRelease(
    // The server answers in Node's callbacks, outside any fiber: it reads the Clock of the fiber that started it.
    Clock.clockWith((clock) =>
      Effect.promise(async () => {
        const now = () => clock.currentTimeMillisUnsafe()
        const started = now() - options.comments.length * 1000
        const released = () =>
          Math.min(
            options.comments.length,
            options.initial + Math.floor((now() - startedAt) / options.everyMillis) * options.step
          )
        const startedAt = now()
        const server = createServer((req, res) => {
          const origin = `http://${req.headers.host ?? "127.0.0.1"}`
          const body = render(origin, options.comments.slice(0, released()), started)
          res.writeHead(200, { "content-type": "application/rss+xml; charset=utf-8" })
          res.end(body)
        })
        await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
        const { port } = server.address() as AddressInfo
        return { server, url: `http://127.0.0.1:${port}/comments/feed` }
      })
    ),
    ({ server }) =>
      Effect.promise(
        () =>
          new Promise<void>((resolve) => {
            server.closeAllConnections()
            server.close(() => resolve())
          })
      )
  ).pipe(Effect.map(({ url }) => ({ url })))
