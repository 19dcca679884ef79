/**
 * A source entry of `warden.yaml`: its id, connector (`type` or `module`), channel, what it analyses,
 * rules, failure mode, reseller analysis fields and retention; and the decoded `Source`.
 */
import { ChannelId, ResellerFields } from "@warden/core"
import { Schema } from "effect"
import { durationAtLeast, durationWithDefault, withDefault } from "../domain/internal/Schemas.ts"
import { Rule } from "../domain/Rule.ts"

/** What to do with an item whose analysis keeps failing: `hold` it, `allow` it, or `reject` it (with `action`) after `after`. */
export const FailureMode = Schema.Struct({
  mode: Schema.Literals(["hold", "allow", "reject"]).pipe(withDefault("hold")),
  after: durationWithDefault("5 minutes", 0),
  action: Schema.optionalKey(Schema.String.check(Schema.isNonEmpty()))
}).check(
  Schema.makeFilter(
    (f) => f.mode !== "reject" || f.action !== undefined || { path: ["action"], issue: "required when mode is reject" }
  )
)
/** @see {@link FailureMode} */
export type FailureMode = typeof FailureMode.Type

/** The id of a source: lower-case letters, digits and `-`. */
export const SourceId = Schema.String.check(
  Schema.isPattern(/^[a-z0-9][a-z0-9-]*$/u, { message: "must match [a-z0-9-]+ (lower-case letters, digits, '-')" }),
  Schema.isMaxLength(64)
)

/**
 * Per-source analysis settings: the spec's reseller-only request fields, decoded with core's schema.
 * Each request of the source carries the fields its endpoint takes; a standard key may not set them.
 */
export const SourceAnalysis = ResellerFields.annotate({
  description:
    "Reseller-only request fields sent with every request of this source (api.keyKind must be reseller): industry, defaultLanguage (text, image, username), customerContext (image, username; 512-1024 characters recommended), classificationsEnabled, ocrEnabled (image)"
})
/** @see {@link SourceAnalysis} */
export type SourceAnalysis = typeof SourceAnalysis.Type

/** A source as written: the connector (`type` or `module`) and its raw `config` (decoded later with the connector's own schema). */
export const SourceEntry = Schema.Struct({
  id: SourceId,
  type: Schema.optionalKey(
    Schema.String.check(Schema.isPattern(/^[a-z0-9][a-z0-9-]*$/u, { message: "must be a connector type such as rss" }))
  ),
  module: Schema.optionalKey(Schema.String.check(Schema.isNonEmpty())),
  channelId: ChannelId,
  mode: Schema.Literals(["v1", "legacy"]).pipe(withDefault("v1")),
  analyse: Schema.Array(Schema.Literals(["text", "image", "username"]))
    .check(Schema.isMinLength(1))
    .pipe(withDefault(["text"])),
  config: Schema.Record(Schema.String, Schema.Unknown).pipe(withDefault({})),
  dryRun: Schema.Boolean.pipe(withDefault(false)),
  oversize: Schema.Literals(["split", "truncate", "reject"]).pipe(withDefault("split")),
  rules: Schema.Array(Rule).pipe(withDefault([])),
  failureMode: FailureMode.pipe(withDefault({})),
  autoFeedback: Schema.Boolean.pipe(withDefault(false)),
  analysis: Schema.optionalKey(SourceAnalysis),
  retention: Schema.optionalKey(
    durationAtLeast("1 minute").annotate({
      description:
        "Erase stored content (texts, requests, responses) older than this, in the background (default: keep); references, hashes, verdict types and outcomes stay"
    })
  )
}).check(
  Schema.makeFilter(
    (s) =>
      (s.type === undefined) !== (s.module === undefined) || {
        path: ["type"],
        issue: "set exactly one of type (an installed connector) or module (a plugin file)"
      },
    { toJsonSchema: () => ({ oneOf: [{ required: ["type"] }, { required: ["module"] }] }) }
  )
)

/** A source, decoded: `config` is the connector's decoded config. */
export type Source = Omit<typeof SourceEntry.Type, "config" | "rules"> & {
  readonly config: unknown
  readonly rules: ReadonlyArray<Rule>
}
