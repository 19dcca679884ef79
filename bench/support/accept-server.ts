/**
 * The floor of a 202 under a benchmark's load: a `node:http` server in its own process that reads each
 * request's body and answers `202 {"accepted":1}` at once, nothing else. What the load generator, the
 * loopback and Node's HTTP stack cost on this machine, measured in the same run as the daemon's 202
 * (bench/daemon-push.ts). Sends its port to the parent once it listens.
 *
 *   fork("bench/support/accept-server.ts")
 */
import { createServer } from "node:http"

const server = createServer((request, response) => {
  request.resume()
  request.on("end", () => {
    response.writeHead(202, { "content-type": "application/json" })
    response.end('{"accepted":1}')
  })
})
server.listen(0, "127.0.0.1", () => {
  const address = server.address()
  process.send!({ port: typeof address === "object" && address !== null ? address.port : 0 })
})
process.on("disconnect", () => process.exit(0))
