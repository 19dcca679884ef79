/**
 * The body of `POST /analyze/v1/image`: the image by URL or as inline base64 bytes (exactly one),
 * plus the reseller fields. The spec leaves further image fields "not shown", so unknown fields are
 * kept and passed through rather than refused (see docs/ASSUMPTIONS.md).
 */
import * as Schema from "effect/Schema"
import { Base64, ChannelId, IsoDateTime, Uri } from "./Primitives.ts"
import { ImageResellerFields } from "./ResellerFields.ts"

const exclusive = (other: string) =>
  Schema.optionalKey(
    Schema.Never.annotate({
      message: `must not be sent together with ${other}: give the image either by URL (imageUrl) or as bytes (imageData)`
    })
  )

const common = {
  channelId: ChannelId,
  publishedAt: Schema.optionalKey(IsoDateTime),
  ...ImageResellerFields
} as const

/** Fields not shown in the spec are kept as they are. */
const unknownFields = [Schema.Record(Schema.String, Schema.Unknown)] as const

/** An image analyze request giving the image by URL. */
export const ImageByUrlRequest = Schema.StructWithRest(
  Schema.Struct({ ...common, imageUrl: Uri, imageData: exclusive("imageUrl") }),
  unknownFields
).annotate({ identifier: "ImageByUrlRequest", description: "The image is given by URL" })

/** An image analyze request giving the image as inline base64 bytes. */
export const ImageByDataRequest = Schema.StructWithRest(
  Schema.Struct({ ...common, imageData: Base64, imageUrl: exclusive("imageData") }),
  unknownFields
).annotate({ identifier: "ImageByDataRequest", description: "The image is given as inline bytes, base64-encoded" })

/** Body of `POST /analyze/v1/image`: by URL or by inline bytes. */
export const ImageAnalyzeRequest = Schema.Union([ImageByUrlRequest, ImageByDataRequest]).annotate({
  identifier: "ImageAnalyzeRequest",
  description: "Body of POST /analyze/v1/image: exactly one of imageUrl and imageData"
})
export type ImageAnalyzeRequest = typeof ImageAnalyzeRequest.Type
