/** Schema helpers the domain types share with the config file's schema. */
import { Effect, Schema } from "effect"

/**
 * An optional key decoded to `value` when left out, with the default annotated (the config's JSON
 * Schema and reference docs show it).
 */
export const withDefault =
  <S extends Schema.Top>(value: S["Encoded"]) =>
  (self: S) =>
    (self.annotate({ default: value } as never) as unknown as S).pipe(
      Schema.withDecodingDefaultKey(Effect.succeed(value))
    )
