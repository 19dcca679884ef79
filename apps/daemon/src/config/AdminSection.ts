/**
 * The `admin` section of `warden.yaml`: where the admin HTTP server listens, its shared token and
 * the endpoints left public.
 */
import { Schema } from "effect"
import { hostPortWithDefault, withDefault } from "../domain/internal/Schemas.ts"
import { ConfigSecret } from "./ConfigSecret.ts"

/** The admin HTTP server. */
export const AdminSection = Schema.Struct({
  listen: hostPortWithDefault("127.0.0.1:8787"),
  token: Schema.optionalKey(ConfigSecret),
  public: Schema.Array(Schema.Literals(["healthz", "readyz", "metrics"])).pipe(withDefault([]))
})
/** @see {@link AdminSection} */
export type AdminSection = typeof AdminSection.Type
