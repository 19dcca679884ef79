/**
 * The body of `POST /analyze/v1/username`. The spec does not show it: Warden assumes
 * `{ channelId, username }` plus the reseller fields for usernames, and passes unknown fields
 * through (docs/ASSUMPTIONS.md).
 */
import * as Schema from "effect/Schema"
import { USERNAME_MAX_LENGTH } from "./Limits.ts"
import { ChannelId, IsoDateTime, maxLengthString } from "./Primitives.ts"
import { UsernameResellerFields } from "./ResellerFields.ts"

/** Body of `POST /analyze/v1/username` (assumed shape). */
export const UsernameAnalyzeRequest = Schema.StructWithRest(
  Schema.Struct({
    channelId: ChannelId,
    username: maxLengthString(USERNAME_MAX_LENGTH).check(Schema.isNonEmpty({ message: "must not be empty" })),
    publishedAt: Schema.optionalKey(IsoDateTime),
    ...UsernameResellerFields
  }),
  [Schema.Record(Schema.String, Schema.Unknown)]
).annotate({ identifier: "UsernameAnalyzeRequest", description: "Body of POST /analyze/v1/username (assumed)" })
export type UsernameAnalyzeRequest = typeof UsernameAnalyzeRequest.Type
