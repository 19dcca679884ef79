/**
 * The admin API's schemas that both the decisions and the review groups answer with: an item's author,
 * a review row, a platform action and the feedback sent. Their own module so `DecisionsApi` and
 * `ReviewApi` both depend on it rather than on each other.
 */
import { Schema } from "effect"
import * as Action from "../domain/Action.ts"

const Text = Schema.String
const OptionalText = Schema.optionalKey(Schema.String)

/** The author of an item, as the review queue and the decisions show it. */
export const ItemAuthor = Schema.Struct({
  /** `<platform>:<identifier>`: the path segment of `GET /api/authors/{author}` (URL-encoded). */
  key: Schema.NullOr(Text),
  identifier: Schema.NullOr(Text),
  username: Schema.NullOr(Text),
  permalink: Schema.NullOr(Text)
}).annotate({ identifier: "ItemAuthor" })

/** An item in the review queue (`kind` item) or an appeal (`kind` appeal). */
export const ReviewItem = Schema.Struct({
  source: Text,
  reference: Text,
  version: Schema.Int,
  kind: Schema.Literals(["item", "appeal"]),
  /** `pending`, `approved`, `rejected`, `superseded` (a newer version came); an appeal's `upheld` / `denied`. */
  state: Text,
  rule: Schema.NullOr(Text),
  verdict: Schema.Unknown,
  createdAt: Text,
  decidedAt: Schema.NullOr(Text),
  decidedBy: Schema.NullOr(Text),
  note: Schema.NullOr(Text),
  classifications: Schema.NullOr(Schema.Array(Text)),
  /** An appeal's statement (the author's words). */
  statement: Schema.NullOr(Text),
  content: Schema.Struct({ type: Text, text: OptionalText, url: OptionalText, username: OptionalText }),
  language: Schema.NullOr(Text),
  permalink: Schema.NullOr(Text),
  author: Schema.NullOr(ItemAuthor),
  post: Schema.NullOr(Schema.Struct({ title: Text, permalink: Schema.NullOr(Text) })),
  /** What Warden holds on the platform, and what a decision can do there. */
  platform: Schema.Struct({
    held: Schema.Boolean,
    canRemove: Schema.Boolean,
    canRestore: Schema.Boolean,
    note: OptionalText
  }),
  /** How many versions the item has (earlier ones: `GET /api/decisions/{reference}`). */
  versions: Schema.Int
}).annotate({ identifier: "ReviewItem" })

/** An action Warden asked the platform to take, and its outcome. */
export const ActionRow = Action.ActionRow.annotate({ identifier: "Action" })

/** Feedback the API recorded. */
export const FeedbackSent = Schema.Struct({
  id: Text,
  source: Text,
  reference: Text,
  version: Schema.Int,
  endpoint: Text
}).annotate({ identifier: "FeedbackSent" })
