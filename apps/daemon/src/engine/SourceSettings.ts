/** What the engine needs to know of a configured source, independent of how the config file spells it. */
export interface SourceSettings {
  readonly id: string
  /** The connector's `type`, or the plugin module path. */
  readonly connector: string
  readonly channelId: string
  readonly mode: "v1" | "legacy"
  readonly analyse: ReadonlySet<"text" | "image" | "username">
  readonly oversize: "split" | "truncate" | "reject"
  readonly dryRun: boolean
}
