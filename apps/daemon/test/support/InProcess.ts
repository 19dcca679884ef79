/** Runs the daemon layer in this process (for tests that need the admin API and fast restarts). */
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Context, Effect, Exit, Layer, Logger, type LogLevel, Redacted, References, Scope } from "effect"
import { AdminServer } from "../../src/admin/AdminServer.ts"
import type { ConfiguredModerator } from "../../src/admin/Moderators.ts"
import * as Daemon from "../../src/Daemon.ts"
import { atWallTime, buildOnTestClock } from "./TestTime.ts"

export const ADMIN_TOKEN = "test-admin-token"

/** An admin route of the daemon at `adminUrl`, with the token. */
const adminFetch = (adminUrl: string, path: string, init: RequestInit = {}) =>
  fetch(`${adminUrl}${path}`, {
    ...init,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json", ...init.headers }
  })

/** A line the daemon logged: its level, its text, its annotations, and whether it carried a cause. */
export interface LoggedLine {
  readonly level: LogLevel.LogLevel
  readonly message: string
  readonly annotations: Readonly<Record<string, unknown>>
  readonly cause: boolean
}

/**
 * Starts the daemon (with the config file's named `moderators`, if given); `close` stops it as SIGTERM
 * would. `logs`, when given, receives every line the daemon logs (besides the usual logger), for tests
 * that count them.
 */
export const startDaemonInProcess = async (
  spec: Omit<Daemon.DaemonSpec, "admin">,
  options: {
    readonly logs?: Array<LoggedLine>
    readonly moderators?: ReadonlyArray<ConfiguredModerator>
  } = {}
) => {
  const scope = Effect.runSync(Scope.make())
  const logs = options.logs
  const capture =
    logs === undefined
      ? Layer.empty
      : Logger.layer(
          [
            Logger.make(({ message, logLevel, cause, fiber }) => {
              const parts = Array.isArray(message) ? message : [message]
              logs.push({
                level: logLevel,
                message: parts.map(String).join(" "),
                annotations: fiber.getRef(References.CurrentLogAnnotations),
                cause: cause.reasons.length > 0
              })
            })
          ],
          { mergeWithExisting: true }
        )
  const context = await Effect.runPromise(
    Layer.buildWithScope(
      Daemon.layer({
        ...spec,
        admin: { host: "127.0.0.1", port: 0, token: Redacted.make(ADMIN_TOKEN), moderators: options.moderators }
      }).pipe(Layer.provide(capture)),
      scope
    )
  )
  const adminUrl = Context.get(context, AdminServer).url
  const admin = async (path: string, init: RequestInit = {}) => {
    const res = await adminFetch(adminUrl, path, init)
    return { status: res.status, body: (await res.json()) as any }
  }
  /** An admin route called with `token` (a moderator's) instead of the shared one. */
  const as = async (token: string, path: string, init: RequestInit = {}) => {
    const res = await fetch(`${adminUrl}${path}`, {
      ...init,
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json", ...init.headers }
    })
    return { status: res.status, body: (await res.json()) as any }
  }
  return { adminUrl, admin, as, context, close: () => Effect.runPromise(Scope.close(scope, Exit.void)) }
}

/**
 * The daemon with its admin API on the SQLite file `where` (a fresh one by default) or the state it names, on the TestClock
 * for the rest of the scope (`buildOnTestClock`), the TestClock first set to the real time (before the
 * state opens: PostgreSQL's pool would otherwise see 56 years pass). The daemon reads time only from
 * `Clock`, so its retries fall due as the test moves the clock. `get(path)` answers an admin route's
 * status and body, token given.
 */
export const daemonOnTestClock = (
  spec: Omit<Daemon.DaemonSpec, "admin" | "state">,
  where: string | Daemon.StateLocation = join(mkdtempSync(join(tmpdir(), "warden-clock-")), "state.db"),
  options: { readonly moderators?: ReadonlyArray<ConfiguredModerator> } = {}
) =>
  Effect.gen(function* () {
    yield* atWallTime
    const context = yield* buildOnTestClock(
      Daemon.layer({
        ...spec,
        state: typeof where === "string" ? { _tag: "sqlite", filename: where } : where,
        admin: { host: "127.0.0.1", port: 0, token: Redacted.make(ADMIN_TOKEN), moderators: options.moderators }
      })
    )
    const adminUrl = Context.get(context, AdminServer).url
    const get = (path: string) =>
      Effect.promise(async () => {
        const res = await adminFetch(adminUrl, path)
        return { status: res.status, body: await res.text() }
      })
    /** An admin route called with `token` (default: the shared one): its status and JSON body. */
    const call = (path: string, init: RequestInit = {}, token: string = ADMIN_TOKEN) =>
      Effect.promise(async () => {
        const res = await fetch(`${adminUrl}${path}`, {
          ...init,
          headers: { authorization: `Bearer ${token}`, "content-type": "application/json", ...init.headers }
        })
        return { status: res.status, body: (await res.json()) as any }
      })
    return { context, get, call, adminUrl }
  })
