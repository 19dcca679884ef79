/**
 * What the engine needs to know of a configured source, independent of how the config file spells it
 * (config/ decodes the file into these; the engine never reads the file's shape).
 */
import { ResellerFields } from "@warden/core"
import { Schema } from "effect"
import { Mode } from "./ItemVersion.ts"
import { Rule } from "./Rule.ts"
import { StrikePolicy } from "./StrikePolicy.ts"

/** What to do while the API cannot be reached for longer than `afterMillis`. */
export const FailurePolicy = Schema.Struct({
  /** `hold`: queue and wait; `allow`: record "unanalysed", act on nothing; `reject`: apply `action`. */
  mode: Schema.Literals(["hold", "allow", "reject"]),
  afterMillis: Schema.Number,
  action: Schema.optionalKey(Schema.UndefinedOr(Schema.String))
})
/** @see {@link FailurePolicy} */
export type FailurePolicy = typeof FailurePolicy.Type

/** A kind of content a source analyses. */
export const ContentKind = Schema.Literals(["text", "image", "username"])

/** A source as the engine runs it. */
export const SourceSettings = Schema.Struct({
  id: Schema.String,
  /** The connector's `type`, or the plugin module path. */
  connector: Schema.String,
  channelId: Schema.String,
  mode: Mode,
  analyse: Schema.ReadonlySet(ContentKind),
  oversize: Schema.Literals(["split", "truncate", "reject"]),
  dryRun: Schema.Boolean,
  rules: Schema.optionalKey(Schema.UndefinedOr(Schema.Array(Rule))),
  failure: Schema.optionalKey(Schema.UndefinedOr(FailurePolicy)),
  autoFeedback: Schema.optionalKey(Schema.UndefinedOr(Schema.Boolean)),
  /** The reseller fields every request of the source carries (those its endpoint takes). */
  analysis: Schema.optionalKey(Schema.UndefinedOr(ResellerFields)),
  /** Stored content older than this is erased in the background (milliseconds); absent: kept. */
  retentionMillis: Schema.optionalKey(Schema.UndefinedOr(Schema.Number)),
  /**
   * The connector's `type` (`rss`, `discord`, `youtube`, a plugin's own type, never its module path):
   * the platform part of author keys (`<platform>:<identifier>`). Absent: `connector`.
   */
  platform: Schema.optionalKey(Schema.UndefinedOr(Schema.String)),
  /** The action kinds the connector declares (a `review: true` rule holds on the platform where `holdForReview` is one). */
  connectorActions: Schema.optionalKey(Schema.UndefinedOr(Schema.Array(Schema.String))),
  /** The strike policy (`authors.strikes`); absent: no strike is recorded for a verdict. */
  strikes: Schema.optionalKey(Schema.UndefinedOr(StrikePolicy))
})
/** @see {@link SourceSettings} */
export type SourceSettings = typeof SourceSettings.Type
