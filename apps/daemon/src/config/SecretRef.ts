/**
 * References in the config file: `${env:NAME}` (an environment variable), `${env:NAME:-default}` (its
 * default when unset or empty, as in a shell) and `${file:path}` (a file's content without its trailing
 * newline; a relative path is against the config file's directory). References may appear in any
 * string value, alone or inside a longer string; `$${` writes a literal `${`. A value that is one
 * reference alone may fill a number or a boolean key (`maxAttempts: ${env:N}`: see `whole`). `${NAME}`
 * without a kind is an error with the fix, never a literal. They are resolved before the file is
 * decoded, so a secret never has to be written inline.
 */
import { readFileSync } from "node:fs"
import { isAbsolute, resolve } from "node:path"
import type { ConfigProblem } from "./ConfigError.ts"

/** Where references are read from. */
export interface Context {
  /** The environment (`process.env` by default). */
  readonly env: Readonly<Record<string, string | undefined>>
  /** Directory of the config file: relative `${file:...}` paths are against it. */
  readonly baseDirectory: string
  /**
   * Paths (dotted) whose references are left unresolved: a command that does not use a secret must
   * not demand it. Such a value becomes {@link UNRESOLVED}, which no API or database accepts.
   */
  readonly skip?: ((path: string) => boolean) | undefined
}

/** The value of a reference a command left unresolved because it does not use it. */
export const UNRESOLVED = "(unresolved: not used by this command)"

/** The result of resolving every reference of a document. */
export interface Resolved {
  /** The document with every resolvable reference replaced by its value. */
  readonly value: unknown
  /** References that could not be resolved, at their path. */
  readonly problems: ReadonlyArray<ConfigProblem>
  /** Dotted paths of the values that contained a reference (to tell inline secrets apart). */
  readonly referenced: ReadonlySet<string>
  /**
   * Dotted paths of the values that were one reference alone (`${env:N}`): where the schema wants a
   * number or a boolean, such a value is read as one (`internal/Decode`), as the operator meant.
   */
  readonly whole: ReadonlySet<string>
}

const REFERENCE = /\$\$\{|\$\{([a-z]+):([^}]*)\}|\$\{([A-Za-z_][A-Za-z0-9_]*)\}/gu
const WHOLE = /^\$\{[a-z]+:[^}]*\}$/u

/** Whether a string contains a reference (or a `${NAME}` meant as one). */
export const hasReference = (s: string): boolean => {
  for (const m of s.matchAll(REFERENCE)) if (m[0] !== "$${") return true
  return false
}

const resolveOne = (
  kind: string,
  arg: string,
  context: Context
): { readonly ok: true; readonly value: string } | { readonly ok: false; readonly message: string } => {
  switch (kind) {
    case "env": {
      // `NAME:-default`: the default when the variable is unset or empty (a shell's `${NAME:-default}`).
      const split = arg.indexOf(":-")
      const name = (split === -1 ? arg : arg.slice(0, split)).trim()
      const fallback = split === -1 ? undefined : arg.slice(split + 2)
      if (!/^[A-Za-z_][A-Za-z0-9_]*$/u.test(name))
        return { ok: false, message: `invalid environment variable name '${name}'` }
      const value = context.env[name]
      if (fallback !== undefined && (value === undefined || value === "")) return { ok: true, value: fallback }
      return value === undefined
        ? {
            ok: false,
            message: `environment variable ${name} is not set (give a default with \${env:${name}:-default})`
          }
        : { ok: true, value }
    }
    case "file": {
      const path = arg.trim()
      if (path === "") return { ok: false, message: "empty file reference" }
      const full = isAbsolute(path) ? path : resolve(context.baseDirectory, path)
      try {
        return { ok: true, value: readFileSync(full, "utf8").replace(/\r?\n$/u, "") }
      } catch (error) {
        const code = (error as { code?: string }).code ?? "error"
        return { ok: false, message: `cannot read secret file ${path} (${full}): ${code}` }
      }
    }
    default:
      return { ok: false, message: `unknown reference kind '${kind}' (use \${env:NAME} or \${file:path})` }
  }
}

/** Resolves every reference of a parsed document. Never fails: unresolvable references are problems. */
export const resolveAll = (document: unknown, context: Context): Resolved => {
  const problems: Array<ConfigProblem> = []
  const referenced = new Set<string>()
  const whole = new Set<string>()
  const walk = (value: unknown, path: ReadonlyArray<string | number>): unknown => {
    if (typeof value === "string") {
      if (!value.includes("${")) return value
      const at = path.join(".")
      let failed = false
      const out = value.replace(REFERENCE, (match, kind?: string, arg?: string, bare?: string) => {
        if (match === "$${") return "${"
        if (bare !== undefined) {
          failed = true
          problems.push({
            path: at,
            message: `\${${bare}} is not a reference: write \${env:${bare}} for the environment variable (or $\${${bare}} for the text itself)`
          })
          return ""
        }
        referenced.add(at)
        if (context.skip?.(at) === true) return UNRESOLVED
        const r = resolveOne(kind!, arg!, context)
        if (r.ok) return r.value
        failed = true
        problems.push({ path: at, message: r.message })
        return ""
      })
      if (!failed && WHOLE.test(value)) whole.add(at)
      return failed ? undefined : out
    }
    if (Array.isArray(value)) return value.map((v, i) => walk(v, [...path, i]))
    if (typeof value === "object" && value !== null) {
      const out: Record<string, unknown> = {}
      for (const [k, v] of Object.entries(value)) {
        const r = walk(v, [...path, k])
        if (r !== undefined || v === undefined) out[k] = r
      }
      return out
    }
    return value
  }
  return { value: walk(document, []), problems, referenced, whole }
}
