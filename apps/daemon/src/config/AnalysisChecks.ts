/**
 * The checks `config check` runs on a source's `analysis` (the spec's reseller-only request fields)
 * beyond their schema: a standard key may not send them (the API answers 403), `customerContext`
 * outside the recommended 512-1024 characters deserves a warning, and a field that applies to none
 * of the endpoints the source uses would never be sent.
 */
import { Characters, Limits, RESELLER_FIELD_NAMES, RESELLER_FIELDS_BY_ENDPOINT } from "@warden/core"
import type { ConfigProblem } from "./ConfigError.ts"
import type { SourceAnalysis } from "./SourceSection.ts"

/** What the checks read of one source. */
export interface Input {
  /** The source's path, `sources.N`. */
  readonly at: string
  /** `analysis` as written (to find the fields set even when one of them does not decode). */
  readonly raw: unknown
  /** `analysis` decoded, when it decodes. */
  readonly decoded: SourceAnalysis | undefined
  /** `api.keyKind` as written (after `WARDEN_KEY_KIND`); absent means `standard`. */
  readonly keyKind: unknown
  readonly mode: "v1" | "legacy"
  readonly analyse: ReadonlyArray<"text" | "image" | "username">
}

/** Problems (the file is refused) and warnings of one source's `analysis`. */
export interface Result {
  readonly problems: ReadonlyArray<ConfigProblem>
  readonly warnings: ReadonlyArray<ConfigProblem>
}

const isRecord = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

/** The endpoints a reseller field is sent to. */
export const endpointsOf = (field: string): ReadonlyArray<"text" | "image" | "username"> =>
  (["text", "image", "username"] as const).filter((e) =>
    (RESELLER_FIELDS_BY_ENDPOINT[e] as ReadonlyArray<string>).includes(field)
  )

/** Checks one source's `analysis`. */
export const check = (input: Input): Result => {
  const problems: Array<ConfigProblem> = []
  const warnings: Array<ConfigProblem> = []
  if (!isRecord(input.raw)) return { problems, warnings }
  const set = RESELLER_FIELD_NAMES.filter((name) => Object.hasOwn(input.raw as object, name))
  const keyKind = typeof input.keyKind === "string" ? input.keyKind : "standard"
  if (keyKind !== "reseller") {
    for (const field of set) {
      problems.push({
        path: `${input.at}.analysis.${field}`,
        message: `reseller-only field, but api.keyKind is ${keyKind} (the API refuses it with 403 for a standard key); set api.keyKind: reseller if the key is a reseller key, or remove the field`
      })
    }
  }
  const context = input.decoded?.customerContext
  if (context !== undefined) {
    const length = Characters.count(context)
    const { min, max } = Limits.CUSTOMER_CONTEXT_RECOMMENDED
    if (length < min || length > max) {
      warnings.push({
        path: `${input.at}.analysis.customerContext`,
        message: `${length} characters; the spec recommends ${min} to ${max} (describe the platform, audience and conventions)`
      })
    }
  }
  for (const field of set) {
    const endpoints = endpointsOf(field)
    const used = input.mode === "legacy" ? [] : endpoints.filter((e) => input.analyse.includes(e))
    if (used.length > 0) continue
    warnings.push({
      path: `${input.at}.analysis.${field}`,
      message:
        input.mode === "legacy"
          ? "never sent: the legacy batch endpoint takes no reseller fields (mode: legacy)"
          : `never sent: it applies to ${endpoints.join(", ")} and this source analyses ${input.analyse.join(", ")}`
    })
  }
  return { problems, warnings }
}
