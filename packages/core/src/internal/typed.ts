/** Narrowing a lenient wire schema's decoded type, shared by the answer schemas. */
import type * as Schema from "effect/Schema"

/**
 * Gives a lenient wire schema its strict type: the run-time schema (decoding, the contract, OpenAPI)
 * is unchanged; only what TypeScript sees of the decoded value is narrowed to `T`.
 */
export const typed =
  <T>() =>
  <S extends Schema.Top>(schema: S): Schema.Codec<T, S["Encoded"]> =>
    schema as unknown as Schema.Codec<T, S["Encoded"]>
