/**
 * What a connector's capabilities promise and only its made source can show: a connector that declares
 * `actions` must give its source an `act`, or every action its rules ask for fails at run time (issue
 * 23). `warden config check` (and `warden run` before it starts, exit 78) makes the source in a scope
 * closed at once to look; connectors connect in `events`, not in `make` (the SDK's contract), so this
 * opens nothing.
 */
import type { Connector } from "@warden/connector"
import { Cause, Duration, Effect, Exit } from "effect"
import type { ConfigProblem } from "./ConfigError.ts"

/** How long `make` may take before the check gives up with a warning (a `make` that waits on a network). */
export const MAKE_TIMEOUT = Duration.seconds(5)

/** Where the source is in the file and how the user wrote its connector, for the messages. */
export interface At {
  /** `sources.N` */
  readonly at: string
  /** `sources.N.type` or `sources.N.module` */
  readonly refPath: string
  readonly sourceId: string
  /** `type rss` or `module ./plugin.js` */
  readonly written: string
}

/** The problems and warnings of one source's shape. */
export interface Found {
  readonly problems: ReadonlyArray<ConfigProblem>
  readonly warnings: ReadonlyArray<ConfigProblem>
}

const none: Found = { problems: [], warnings: [] }

/**
 * Checks that a connector declaring actions makes a source with `act`. A `make` that fails with a
 * non-retryable error is a problem (`run` would pause the source on it); one that fails otherwise, dies
 * or outlasts {@link MAKE_TIMEOUT} is a warning that the check could not be done.
 */
export const check = (connector: Connector.Connector, config: unknown, where: At): Effect.Effect<Found> => {
  const declared = connector.capabilities.actions
  if (declared.length === 0) return Effect.succeed(none)
  const plugin = `the ${where.written} (connector ${connector.type}) of source '${where.sourceId}'`
  return Effect.scoped(connector.make(config)).pipe(
    Effect.timeoutOption(MAKE_TIMEOUT),
    Effect.exit,
    Effect.map((exit): Found => {
      if (Exit.isSuccess(exit)) {
        if (exit.value._tag === "None") {
          return {
            problems: [],
            warnings: [
              {
                path: where.refPath,
                message: `${plugin}: making its source took over ${Duration.format(MAKE_TIMEOUT)}, so whether it has act for [${declared.join(", ")}] was not checked (a connector should connect in events, not in make)`
              }
            ]
          }
        }
        return exit.value.value.act === undefined
          ? {
              problems: [
                {
                  path: where.refPath,
                  message: `${plugin} declares actions [${declared.join(", ")}] but its source has no act: every such action would fail (a bug in the plugin; the conformance kit's \`actions\` check fails it)`
                }
              ],
              warnings: []
            }
          : none
      }
      const failure = exit.cause.reasons.find(Cause.isFailReason)?.error
      const message = `${plugin}: making its source failed: ${failure?.message ?? Cause.pretty(exit.cause).split("\n")[0]}`
      return failure !== undefined && !failure.retryable
        ? { problems: [{ path: `${where.at}.config`, message }], warnings: [] }
        : {
            problems: [],
            warnings: [{ path: where.refPath, message: `${message}; whether it has act was not checked` }]
          }
    })
  )
}
