/**
 * The `log` section of `warden.yaml`: whether logs carry content, the format and the level.
 */
import { Schema } from "effect"
import { withDefault } from "../domain/internal/Schemas.ts"

/** Logging. */
export const LogSection = Schema.Struct({
  content: Schema.Boolean.pipe(withDefault(false)),
  format: Schema.Literals(["auto", "json", "logfmt", "pretty"]).pipe(withDefault("auto")),
  level: Schema.Literals(["trace", "debug", "info", "warn", "warning", "error"]).pipe(withDefault("info"))
})
/** @see {@link LogSection} */
export type LogSection = typeof LogSection.Type
