/**
 * A load process measuring the sandbox's own capacity: an undici Pool (the client library the
 * transport uses) keeps `concurrency` requests of generated texts in flight for `seconds` after a
 * 1 s warm-up; sends `{ rps, errors }` over IPC.
 */
import { createRequire } from "node:module"
import { CHANNEL, itemText, KEY } from "./common.ts"

const [url, concurrencyArg, secondsArg] = process.argv.slice(2)
const concurrency = Number(concurrencyArg)
const seconds = Number(secondsArg)
const require = createRequire(new URL("../../packages/transport/package.json", import.meta.url))
const { Pool } = require("undici") as typeof import("undici")
const pool = new Pool(url!, { connections: concurrency })
const headers = { "content-type": "application/json", accept: "application/json", authorization: `ApiKey ${KEY}` }

let next = 1
let done = 0
let errors = 0
let measuring = false
let running = true
const worker = async () => {
  while (running) {
    const i = next++
    const body = JSON.stringify({ channelId: CHANNEL, text: `Item ${i}\n\n${itemText(i)}` })
    try {
      const res = await pool.request({ path: "/analyze/v1/text", method: "POST", headers, body })
      await res.body.text()
      if (measuring) {
        if (res.statusCode === 200) done++
        else errors++
      }
    } catch {
      if (measuring) errors++
    }
  }
}
const workers = Array.from({ length: concurrency }, worker)
setTimeout(() => {
  measuring = true
}, 1000)
setTimeout(
  async () => {
    measuring = false
    running = false
    await Promise.all(workers)
    process.send!({ rps: Math.round(done / seconds), errors })
    await pool.close()
    process.exit(0)
  },
  1000 + seconds * 1000
)
