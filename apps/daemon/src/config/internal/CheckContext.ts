/** What the steps of `config check` share: the file as written and resolved, and what they found. */
import type { ConfigProblem } from "../ConfigError.ts"
import type * as SecretRef from "../SecretRef.ts"

/** See the module documentation. */
export interface CheckContext {
  /** The file as written (secret references unresolved). */
  readonly raw: Record<string, unknown>
  /** The file with its references resolved and the `WARDEN_*` defaults filled in. */
  readonly document: Record<string, unknown>
  /** The references: which paths held one, which were one alone (`whole`), which failed. */
  readonly resolved: SecretRef.Resolved
  /** The config file's directory (relative modules and paths are against it). */
  readonly baseDirectory: string
  /** Whether the command uses the section holding a dotted path (its secrets are resolved). */
  readonly used: (path: string) => boolean
  /** Problems found so far (the file is refused if any). */
  readonly problems: Array<ConfigProblem>
  /** Warnings found so far. */
  readonly warnings: Array<ConfigProblem>
}
