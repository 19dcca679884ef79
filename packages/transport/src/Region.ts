/**
 * The API's regions: the global endpoint (default) and the two US regional endpoints. Each serves the
 * same API; one key works in all of them (spec, "Base addresses").
 */
import * as Schema from "effect/Schema"

/** A region name. */
export const Region = Schema.Literals(["global", "us-east", "us-west"]).annotate({ identifier: "Region" })
/** A region name. */
export type Region = typeof Region.Type

/** Every region, in the order the spec lists them. */
export const REGIONS: ReadonlyArray<Region> = ["global", "us-east", "us-west"]

/** The environment variable holding each region's base URL. */
export const BASE_URL_ENV: Readonly<Record<Region, string>> = {
  global: "WARDEN_BASE_URL",
  "us-east": "WARDEN_BASE_URL_US_EAST",
  "us-west": "WARDEN_BASE_URL_US_WEST"
}

/** A key kind: `reseller` keys unlock the reseller-only request fields. */
export const KeyKind = Schema.Literals(["standard", "reseller"]).annotate({ identifier: "KeyKind" })
/** A key kind. */
export type KeyKind = typeof KeyKind.Type
