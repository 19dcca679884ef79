/**
 * Secrets as the file holds them: a field marked `ConfigField.secret` (in the file's own schema, a
 * connector's or a sink's) written inline works, but `config check` warns; and a problem about a value
 * never shows a secret it holds.
 */
import { ConfigField } from "@warden/connector"
import type { Schema } from "effect"
import type { ConfigProblem } from "./ConfigError.ts"
import { isRecord } from "./internal/Decode.ts"

/** The warning on a secret whose value is in the file itself. */
// biome-ignore lint/suspicious/noTemplateCurlyInString: the reference syntax, shown to the user
export const INLINE_SECRET = "secret written inline; prefer ${env:NAME} or ${file:path}"

/** The value at `path` in a value as written (`undefined` when not there). */
const valueAt = (value: unknown, path: ReadonlyArray<string | number>): unknown =>
  path.reduce<unknown>(
    (v, k) => (Array.isArray(v) && typeof k === "number" ? v[k] : isRecord(v) ? v[String(k)] : undefined),
    value
  )

/**
 * A warning for each secret of `schema` in `written` (at `prefix` in the file) that is written inline,
 * that is not a reference (`referenced`: the dotted paths of the values that held one).
 */
export const warnings = (
  schema: Schema.Top,
  written: unknown,
  prefix: ReadonlyArray<string | number>,
  referenced: ReadonlySet<string>
): Array<ConfigProblem> =>
  ConfigField.secretValues(schema, written).flatMap((at) => {
    const path = [...prefix, ...at].join(".")
    return referenced.has(path) ? [] : [{ path, message: INLINE_SECRET }]
  })

/** The secrets of `schema` in `resolved` (the values of the secret fields of `written`, once resolved). */
export const values = (schema: Schema.Top, written: unknown, resolved: unknown): Array<string> =>
  ConfigField.secretValues(schema, written).flatMap((at) => {
    const value = valueAt(resolved, at)
    return typeof value === "string" && value !== "" ? [value] : []
  })

/** `problems` with every secret of `secrets` in their messages replaced by `<redacted>`. */
export const redact = (problems: ReadonlyArray<ConfigProblem>, secrets: ReadonlyArray<string>): Array<ConfigProblem> =>
  problems.map((p) => ({
    ...p,
    message: secrets.reduce((m, secret) => m.replaceAll(secret, "<redacted>"), p.message)
  }))
