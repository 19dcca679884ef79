/** What the engine needs to know of a configured source, independent of how the config file spells it. */
import type { Rule, SourceAnalysis } from "../config/WardenConfig.ts"

/** What to do while the API cannot be reached for longer than `afterMillis`. */
export interface FailurePolicy {
  /** `hold`: queue and wait; `allow`: record "unanalysed", act on nothing; `reject`: apply `action`. */
  readonly mode: "hold" | "allow" | "reject"
  readonly afterMillis: number
  readonly action?: string | undefined
}

/** A source as the engine runs it. */
export interface SourceSettings {
  readonly id: string
  /** The connector's `type`, or the plugin module path. */
  readonly connector: string
  readonly channelId: string
  readonly mode: "v1" | "legacy"
  readonly analyse: ReadonlySet<"text" | "image" | "username">
  readonly oversize: "split" | "truncate" | "reject"
  readonly dryRun: boolean
  readonly rules?: ReadonlyArray<Rule> | undefined
  readonly failure?: FailurePolicy | undefined
  readonly autoFeedback?: boolean | undefined
  /** The reseller fields every request of the source carries (those its endpoint takes). */
  readonly analysis?: SourceAnalysis | undefined
  /** Stored content older than this is erased in the background (milliseconds); absent: kept. */
  readonly retentionMillis?: number | undefined
}
