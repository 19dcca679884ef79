/**
 * The test server (testing/NatsServer.ts): a port taken between the pick and nats-server's bind (by
 * another package's tests, run beside these) makes it start on another port, not fail the test.
 */
import { createServer, type Server } from "node:net"
import { assert, describe, it } from "@effect/vitest"
import { NatsServer } from "../src/testing/index.ts"

const listening = () =>
  new Promise<Server>((resolve) => {
    const server = createServer()
    server.listen(0, "127.0.0.1", () => resolve(server))
  })

describe("NatsServer.start", () => {
  it("starts on another port when the one picked is taken before nats-server binds it", async () => {
    const holder = await listening()
    const taken = (holder.address() as { port: number }).port
    const free = await listening()
    const other = (free.address() as { port: number }).port
    await new Promise((r) => free.close(r))
    const picks = [taken, other]
    const server = await NatsServer.start([], { freePort: async () => picks.shift()! })
    try {
      assert.strictEqual(server.port, other)
      assert.include(server.output(), "address already in use")
      await NatsServer.createStream(server.url, { name: "reachable", subjects: ["reachable.>"] })
      assert.strictEqual((await NatsServer.streamState(server.url, "reachable")).messages, 0)
    } finally {
      await server.close()
      await new Promise((r) => holder.close(r))
    }
  }, 30_000)
})
