/**
 * The handlers of the console's groups (`ConsoleApi.ts`): its session and sign-out, the pipeline,
 * a sink's replay, and the sign-in form.
 */
import { Clock, Effect } from "effect"
import { HttpServerResponse } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import { SqlClient } from "effect/sql"
import * as DeadLetterReplay from "../state/DeadLetterReplay.ts"
import { AdminApi } from "./AdminApi.ts"
import { AdminRefused, answering } from "./AdminError.ts"
import { AdminCaller } from "./AdminSecurity.ts"
import * as ConsoleSession from "./ConsoleSession.ts"
import { Moderators } from "./Moderators.ts"
import * as PipelineView from "./PipelineView.ts"
import * as RequestInput from "./RequestInput.ts"

/** The console's session, sign-out, pipeline and replay. */
export const consoleGroup = (options: {
  readonly sessions: ConsoleSession.Sessions
  readonly sinks: ReadonlyArray<string>
}) =>
  HttpApiBuilder.group(AdminApi, "console", (handlers) =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      return handlers
        .handle("session", () =>
          Effect.map(Effect.service(AdminCaller), (who) => ({
            via: who.via,
            csrf: who.via === "cookie" ? who.session.csrf : null,
            name: who.name,
            role: who.role
          }))
        )
        .handle("signOut", () =>
          Effect.map(Effect.service(AdminCaller), (who) =>
            HttpServerResponse.jsonUnsafe(
              { signedIn: false },
              who.via === "cookie" ? { headers: { "set-cookie": options.sessions.close(who.session.id) } } : {}
            )
          )
        )
        .handle("pipeline", () =>
          Effect.orDie(Effect.flatMap(Clock.currentTimeMillis, (now) => PipelineView.read(sql, options.sinks, now)))
        )
        .handle("replay", ({ params }) =>
          answering(
            Effect.gen(function* () {
              const sink = yield* RequestInput.text("sink", params.sink)
              // A misspelt sink would replay nothing and look done: 404, naming the sinks there are.
              const known = yield* Effect.orDie(PipelineView.listedSinks(sql, options.sinks))
              if (!known.includes(sink))
                return yield* new AdminRefused({
                  status: 404,
                  code: "NOT_FOUND",
                  message: `no sink '${sink}' (sinks: ${known.join(", ") || "none"})`,
                  parameter: "sink"
                })
              const replayed = yield* DeadLetterReplay.replay(sql, sink, yield* AdminCaller)
              return { sink, replayed }
            })
          )
        )
    })
  )

/** The sign-in form: only the console's own page may sign a browser in (login CSRF). */
export const signIn = (sessions: ConsoleSession.Sessions) =>
  HttpApiBuilder.group(AdminApi, "signIn", (handlers) =>
    Effect.gen(function* () {
      const moderators = yield* Moderators
      return handlers.handle("signIn", ({ payload, request }) =>
        answering(
          Effect.gen(function* () {
            const foreign = ConsoleSession.foreignOrigin(request)
            if (foreign !== undefined)
              return yield* new AdminRefused({ status: 403, code: "CROSS_SITE_REFUSED", message: foreign })
            const moderator = yield* moderators.identify(payload.token).pipe(Effect.orDie)
            if (moderator === undefined)
              return yield* new AdminRefused({
                status: 401,
                code: "UNAUTHENTICATED",
                message: "that token is neither the admin token nor a moderator's"
              })
            // The CSRF token in the answer: the page signed in this way makes state-changing calls next.
            const { csrf, setCookie } = sessions.open(moderator)
            return HttpServerResponse.jsonUnsafe(
              { signedIn: true, csrf, name: moderator.name, role: moderator.role },
              { headers: { "set-cookie": setCookie } }
            )
          })
        )
      )
    })
  )
