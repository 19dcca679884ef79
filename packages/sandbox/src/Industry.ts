/**
 * What `industry` (a reseller field) does in the sandbox: it moves the severity of insults, the
 * category where verticals differ most ("gaming tolerates banter that media does not"). Threats and
 * hatred are never moved: no vertical tolerates them. The recommended action follows the moved
 * severity (`REMOVE` from `MEDIUM`), so a single insult is kept on a gaming channel and removed
 * everywhere else. Deterministic and documented in the package README.
 */
import type { Industry } from "@warden/core"

/** Severity steps an industry applies to insult verdicts: `-1` tolerant, `+1` strict, `0` none. */
export const INSULT_SHIFT: Readonly<Record<Industry, number>> = {
  INDUSTRY_GAMING: -1,
  INDUSTRY_SPORT: -1,
  INDUSTRY_MEDIA: 1,
  INDUSTRY_BRAND: 1,
  INDUSTRY_SOCIAL_PLATFORM: 0,
  INDUSTRY_TECH_PROVIDER: 0,
  INDUSTRY_OTHER: 0
}

/** The severities an insult can have: an industry moves it within them, so an insult stays an insult. */
const INSULT_SEVERITIES = ["LOW", "MEDIUM", "HIGH"] as const

/**
 * The severity of an insult verdict (`MEDIUM` for one insult, `HIGH` for several), moved by
 * {@link INSULT_SHIFT} when an industry is sent; never below `LOW` nor above `HIGH`.
 */
export const insultSeverity = (insults: number, industry: string | undefined): string => {
  const shift = industry === undefined ? 0 : (INSULT_SHIFT[industry as Industry] ?? 0)
  const rank = (insults >= 2 ? 2 : 1) + shift
  return INSULT_SEVERITIES[Math.min(2, Math.max(0, rank))]!
}
