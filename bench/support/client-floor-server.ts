/**
 * The floor of a check (issue 39: "the typed client calling the sandbox directly"): a `node:http` server
 * in its own process whose every `POST` calls the Warden v1 client (`AnalyzeV1.text` with the request's
 * JSON body) on the API at `API_URL`, its limiter told the same quota as the daemon's, and answers the
 * verdict. What a service that calls the API itself through the typed client costs behind the same kind
 * of HTTP hop as the daemon's listener, driven by the same load generator as the check
 * (bench/daemon-push.ts). Sends its port to the parent once it listens.
 *
 *   fork("bench/support/client-floor-server.ts", [API_URL, QUOTA])
 */
import { createServer } from "node:http"
import { AnalyzeV1, V1Client } from "../../packages/v1/src/index.ts"
import { Effect, ManagedRuntime } from "./client.ts"
import { KEY } from "./common.ts"

const [url, quotaArg] = process.argv.slice(2) as [string, string]
const runtime = ManagedRuntime.make(
  V1Client.layerOptions({
    apiKey: KEY,
    baseUrls: { global: url },
    quotas: { endpoints: { analyzeText: { requestsPerSecond: Number(quotaArg) } } }
  })
)
const analyze = await runtime.runPromise(
  Effect.gen(function* () {
    return yield* AnalyzeV1.AnalyzeV1
  })
)

const server = createServer((request, response) => {
  const chunks: Array<Buffer> = []
  request.on("data", (chunk: Buffer) => chunks.push(chunk))
  request.on("end", () => {
    const body = JSON.parse(Buffer.concat(chunks).toString("utf8"))
    runtime.runPromiseExit(analyze.text(body)).then((exit) => {
      const ok = exit._tag === "Success"
      const text = JSON.stringify(ok ? exit.value : { error: String(exit.cause) })
      response.writeHead(ok ? 200 : 502, { "content-type": "application/json" })
      response.end(text)
    })
  })
})
server.listen(0, "127.0.0.1", () => {
  const address = server.address()
  process.send!({ port: typeof address === "object" && address !== null ? address.port : 0 })
})
process.on("disconnect", () => {
  void runtime.dispose().then(() => process.exit(0))
})
