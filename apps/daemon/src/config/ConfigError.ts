/**
 * The configuration file is invalid: every problem found, each at a path of the file.
 */
import { Runtime, Schema } from "effect"

/**
 * One problem (or warning) of a config file: `path` is dotted (`sources.0.config.feeds`; empty for a
 * YAML syntax error), `location` is `FILE:LINE:COLUMN` of the key (or of its closest written parent
 * when the key is missing), as editors and compilers print it.
 */
export const ConfigProblem = Schema.Struct({
  path: Schema.String,
  message: Schema.String,
  location: Schema.optionalKey(Schema.String)
})
/** @see {@link ConfigProblem} */
export type ConfigProblem = typeof ConfigProblem.Type

/** Formats a problem without its location: `path: message`. */
export const formatProblem = (problem: ConfigProblem): string =>
  problem.path === "" ? problem.message : `${problem.path}: ${problem.message}`

/**
 * Formats a problem the way `warden config check` prints it: `FILE:LINE:COL: path: message`
 * (`warning: FILE:LINE:COL: path: message` for a warning: scripts filter on the prefix).
 */
export const formatLocated = (problem: ConfigProblem, kind: "problem" | "warning" = "problem"): string => {
  const text =
    problem.location === undefined ? formatProblem(problem) : `${problem.location}: ${formatProblem(problem)}`
  return kind === "warning" ? `warning: ${text}` : text
}

/**
 * The config file cannot be used. `problems` lists every problem found (not only the first), in file
 * order where possible. A process failing with it exits 78 (`EX_CONFIG`).
 */
export class ConfigError extends Schema.TaggedError<ConfigError>()("ConfigError", {
  file: Schema.String,
  problems: Schema.Array(ConfigProblem),
  /** What `config check` also shows beside the problems (inline secrets, a poll under a second...). */
  warnings: Schema.optionalKey(Schema.Array(ConfigProblem))
}) {
  /** Exit code of a process that fails with this error. */
  override readonly [Runtime.errorExitCode] = 78

  override get message(): string {
    return `invalid configuration ${this.file}:\n${this.problems.map((p) => formatLocated(p)).join("\n")}`
  }
}
