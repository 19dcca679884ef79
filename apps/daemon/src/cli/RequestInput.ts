/**
 * A request the user built from flags and files, decoded as `@warden/core`'s request type before the
 * call: the CLI then hands the client a typed body. Every violation is reported at once, each naming its
 * field, as the API's 400 would (REQUEST_VALIDATION_ERROR: exit 2, no call), with those the client adds
 * (the reseller fields a standard key may not send), which it checks again on a body that decodes.
 */
import {
  type EndpointName,
  endpointLabel,
  type FieldViolation,
  FieldViolations,
  RequestValidationError
} from "@warden/core/client"
import { Effect, Schema } from "effect"

/**
 * Decodes `input` as `schema` (a request of `endpoint`), refused with every violation when it is not
 * one, followed by `refused` (what the client would refuse besides).
 */
export const decode =
  <S extends Schema.Top & { readonly DecodingServices: never }>(
    schema: S,
    endpoint: EndpointName,
    refused: ReadonlyArray<FieldViolation> = []
  ) =>
  (input: unknown): Effect.Effect<S["Type"], RequestValidationError> =>
    Schema.decodeUnknownEffect(schema)(input, { errors: "all", onExcessProperty: "error" }).pipe(
      Effect.mapError(
        (error) =>
          new RequestValidationError({
            endpoint: endpointLabel(endpoint),
            fieldViolations: [...FieldViolations.fromSchemaError(error), ...refused]
          })
      )
    )
