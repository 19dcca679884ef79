/**
 * The API's regions: the global endpoint (default) and the two US regional endpoints. Each serves the
 * same API; one key works in all of them (spec, "Base addresses").
 */
import * as Schema from "effect/Schema"

/** A region name. */
export const Region = Schema.Literals(["global", "us-east", "us-west"]).annotate({ identifier: "Region" })
/** A region name. */
export type Region = typeof Region.Type

/** Every region (`REGIONS`), and the environment variable of each one's base URL (`BASE_URL_ENV`). */
export { BASE_URL_ENV, REGIONS } from "./internal/regions.ts"

/** A key kind: `reseller` keys unlock the reseller-only request fields. */
export const KeyKind = Schema.Literals(["standard", "reseller"]).annotate({ identifier: "KeyKind" })
/** A key kind. */
export type KeyKind = typeof KeyKind.Type
