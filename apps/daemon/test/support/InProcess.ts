/** Runs the daemon layer in this process (for tests that need the admin API and fast restarts). */
import { Context, Effect, Exit, Layer, Redacted, Scope } from "effect"
import { AdminServer } from "../../src/admin/AdminServer.ts"
import * as Daemon from "../../src/Daemon.ts"

export const ADMIN_TOKEN = "test-admin-token"

/** Starts the daemon; `close` stops it as SIGTERM would. */
export const startDaemonInProcess = async (spec: Omit<Daemon.DaemonSpec, "admin">) => {
  const scope = Effect.runSync(Scope.make())
  const context = await Effect.runPromise(
    Layer.buildWithScope(
      Daemon.layer({ ...spec, admin: { host: "127.0.0.1", port: 0, token: Redacted.make(ADMIN_TOKEN) } }),
      scope
    )
  )
  const adminUrl = Context.get(context, AdminServer).url
  const admin = async (path: string, init: RequestInit = {}) => {
    const res = await fetch(`${adminUrl}${path}`, {
      ...init,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json", ...init.headers }
    })
    return { status: res.status, body: (await res.json()) as any }
  }
  return { adminUrl, admin, close: () => Effect.runPromise(Scope.close(scope, Exit.void)) }
}
