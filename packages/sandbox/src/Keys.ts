/**
 * API keys the sandbox accepts: the four built-in keys plus any from the configuration file, each
 * with its organisation (quotas are counted per organisation), its kind (standard or reseller) and
 * its status (active, expired, disabled). Keys are held `Redacted` and never logged in clear.
 */
import { Redacted, Schema } from "effect"

/** Whether a key may send the reseller-only fields. */
export const KeyKind = Schema.Literals(["standard", "reseller"])
export type KeyKind = typeof KeyKind.Type

/** A key's state: only `active` keys authenticate. */
export const KeyStatus = Schema.Literals(["active", "expired", "disabled"])
export type KeyStatus = typeof KeyStatus.Type

/** A key as written in the configuration file. */
export const KeyConfig = Schema.Struct({
  key: Schema.String.check(Schema.isPattern(/^\S+$/u, { message: "must be a non-empty string without spaces" })),
  organisation: Schema.String.check(Schema.isNonEmpty({ message: "must not be empty" })),
  kind: Schema.optionalKey(KeyKind),
  status: Schema.optionalKey(KeyStatus)
}).annotate({ identifier: "KeyConfig" })
export type KeyConfig = typeof KeyConfig.Type

/** A key the sandbox knows. */
export interface ApiKey {
  readonly key: Redacted.Redacted<string>
  readonly organisation: string
  readonly kind: KeyKind
  readonly status: KeyStatus
}

/** The built-in keys, always present. */
export const BUILT_IN_KEYS: ReadonlyArray<KeyConfig> = [
  { key: "sandbox-standard-key", organisation: "sandbox-org", kind: "standard", status: "active" },
  { key: "sandbox-reseller-key", organisation: "sandbox-reseller-org", kind: "reseller", status: "active" },
  { key: "sandbox-expired-key", organisation: "sandbox-org", kind: "standard", status: "expired" },
  { key: "sandbox-disabled-key", organisation: "sandbox-org", kind: "standard", status: "disabled" }
]

/** The `reason` of each authentication failure (spec, Authentication rule 6). */
export const REASONS = {
  invalid: "REASON_INVALID_CREDENTIALS",
  expired: "REASON_EXPIRED_CREDENTIALS",
  disabled: "REASON_DISABLED_CREDENTIALS"
} as const

/** The outcome of authenticating a request. */
export type AuthResult =
  | { readonly _tag: "Authenticated"; readonly key: ApiKey }
  | { readonly _tag: "Refused"; readonly reason: string }

const AUTHORIZATION = /^ApiKey +(\S+)$/

/** A key registry: built-in keys plus extra ones (an extra key replaces a built-in key of the same value). */
export class KeyRing {
  private readonly byValue = new Map<string, ApiKey>()
  constructor(extra: ReadonlyArray<KeyConfig> = []) {
    for (const k of [...BUILT_IN_KEYS, ...extra]) {
      this.byValue.set(k.key, {
        key: Redacted.make(k.key),
        organisation: k.organisation,
        kind: k.kind ?? "standard",
        status: k.status ?? "active"
      })
    }
  }
  /** Every known key. */
  all(): ReadonlyArray<ApiKey> {
    return [...this.byValue.values()]
  }
  /** Looks a raw key up: unknown, expired and disabled keys are refused with the spec's reason. */
  check(raw: string | undefined): AuthResult {
    if (raw === undefined || raw === "") return { _tag: "Refused", reason: REASONS.invalid }
    const key = this.byValue.get(raw)
    if (key === undefined) return { _tag: "Refused", reason: REASONS.invalid }
    if (key.status === "expired") return { _tag: "Refused", reason: REASONS.expired }
    if (key.status === "disabled") return { _tag: "Refused", reason: REASONS.disabled }
    return { _tag: "Authenticated", key }
  }
  /** `Authorization: ApiKey <key>`: the scheme is matched case-sensitively. */
  checkAuthorization(header: string | undefined): AuthResult {
    const match = header === undefined ? null : AUTHORIZATION.exec(header)
    return this.check(match?.[1])
  }
  /** Legacy `X-Api-Key: <key>`. */
  checkLegacy(header: string | undefined): AuthResult {
    return this.check(header?.trim())
  }
}
