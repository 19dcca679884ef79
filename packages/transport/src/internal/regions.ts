/**
 * The region names and their variables as plain values, apart from `Region.ts` (which declares them
 * as schemas) so that the Promise clients check their options without loading `effect/Schema`.
 */
import { REGION_BASE_URL } from "../ApiEnv.ts"

/** A region name. */
export type RegionName = "global" | "us-east" | "us-west"

/** Every region, in the order the spec lists them. */
export const REGIONS: ReadonlyArray<RegionName> = ["global", "us-east", "us-west"]

/** The environment variable holding each region's base URL (ApiEnv.ts). */
export const BASE_URL_ENV: Readonly<Record<RegionName, string>> = REGION_BASE_URL
