/** A real HTTP server on loopback for the test's scope, for the `@effect/vitest` tests. */
import { createServer, type RequestListener } from "node:http"
import type { AddressInfo } from "node:net"
import { Effect } from "effect"

/** Serves `handler` on a free loopback port until the scope closes (open connections cut); answers its base URL. */
export const serve = (handler: RequestListener) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const server = createServer(handler)
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
      return server
    }),
    (server) =>
      Effect.promise(
        () =>
          new Promise<void>((resolve) => {
            server.closeAllConnections()
            server.close(() => resolve())
          })
      )
  ).pipe(Effect.map((server) => `http://127.0.0.1:${(server.address() as AddressInfo).port}`))
