/**
 * How a `warden` run ends (DESIGN.md): exit 0 ok, 1 runtime failure, 2 usage error, 78 invalid
 * configuration. Every failure is one line on stderr: commands print their own; whatever reaches the
 * top unprinted (a defect included) is printed here as `warden: <message>`, without a stack trace
 * unless `WARDEN_DEBUG` is set, its control characters escaped (a message can quote a stranger).
 */
import { Cause, Console, Effect, Runtime } from "effect"
import { CliError } from "effect/cli"
import { inert } from "../domain/TerminalText.ts"
import { isDebug } from "../Logging.ts"

/** Exit code of a usage error: an unknown command or flag, a missing or invalid argument. */
export const EXIT_USAGE = 2
/** Exit code of an invalid configuration (`EX_CONFIG`). */
export const EXIT_CONFIG = 78
/** Exit code of any other failure. */
export const EXIT_FAILURE = 1

/**
 * A failure already printed on stderr, carrying the process exit code: every command ends with one
 * (see `Refusal.refuser`), so the top level neither prints it again nor maps its code.
 */
export class CliFailure extends Error {
  override readonly [Runtime.errorExitCode]: number
  override readonly [Runtime.errorReported] = false
  constructor(code: number, line: string) {
    super(line)
    this.name = "CliFailure"
    this[Runtime.errorExitCode] = code
  }
}

/** Folds a message onto one line. */
export const oneLine = (text: string): string => text.replace(/\s*\n\s*/g, " ").trim()

/** The exit code a failed run ends with. */
export const exitCodeOf = (cause: Cause.Cause<unknown>): number => {
  const error = Cause.squash(cause)
  if (CliError.isCliError(error)) return EXIT_USAGE
  return Runtime.getErrorExitCode(error)
}

const messageOf = (error: unknown): string => {
  if (error instanceof Error) return error.message === "" ? error.name : error.message
  if (typeof error === "object" && error !== null && "message" in error) return String(error.message)
  return String(error)
}

/** Prints a failure nobody printed yet as one line on stderr (and the cause with `WARDEN_DEBUG`). */
export const reportUnreported = (cause: Cause.Cause<unknown>): Effect.Effect<void> =>
  Effect.gen(function* () {
    if (Cause.hasInterruptsOnly(cause)) return
    const error = Cause.squash(cause)
    // Parse errors were shown by the presenter; commands mark what they printed as reported.
    if (CliError.isCliError(error) && error._tag === "ShowHelp") return
    if (typeof error === "object" && error !== null && !Runtime.getErrorReported(error)) return
    const defect = Cause.hasDies(cause) && !Cause.hasFails(cause)
    yield* Console.error(`warden: ${defect ? "internal error: " : ""}${inert(oneLine(messageOf(error)))}`)
    if (isDebug()) yield* Console.error(inert(Cause.pretty(cause), { lines: true }))
  })
