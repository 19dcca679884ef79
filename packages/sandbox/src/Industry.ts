/**
 * What `industry` (a reseller field) does in the sandbox: it moves the severity of insults, the
 * category where verticals differ most ("gaming tolerates banter that media does not"). Threats and
 * hatred are never moved: no vertical tolerates them. The recommended action follows the moved
 * severity (`REMOVE` from `MEDIUM`), so a single insult is kept on a gaming channel and removed
 * everywhere else. Deterministic and documented in the package README.
 */
import { SEVERITIES } from "@warden/core"

/** Severity steps an industry applies to insult verdicts: `-1` tolerant, `+1` strict, `0` none. */
export const INSULT_SHIFT: Readonly<Record<string, number>> = {
  INDUSTRY_GAMING: -1,
  INDUSTRY_SPORT: -1,
  INDUSTRY_MEDIA: 1,
  INDUSTRY_BRAND: 1,
  INDUSTRY_SOCIAL_PLATFORM: 0,
  INDUSTRY_TECH_PROVIDER: 0,
  INDUSTRY_OTHER: 0
}

/**
 * The severity of a verdict once `industry` is applied: moved by {@link INSULT_SHIFT} when the
 * verdict is an insult without threat or hatred, kept otherwise (and kept when no industry is sent).
 * Never moves below `LOW` or above `HIGH`: an insult stays an insult.
 */
export const adjustSeverity = (
  severity: string,
  classifications: ReadonlyArray<string>,
  industry: string | undefined
): string => {
  const shift = industry === undefined ? 0 : (INSULT_SHIFT[industry] ?? 0)
  if (shift === 0 || !classifications.includes("INSULT")) return severity
  if (classifications.includes("THREAT") || classifications.includes("HATRED")) return severity
  const rank = (SEVERITIES as ReadonlyArray<string>).indexOf(severity)
  if (rank === -1) return severity
  const low = SEVERITIES.indexOf("LOW")
  const high = SEVERITIES.indexOf("HIGH")
  return SEVERITIES[Math.min(high, Math.max(low, rank + shift))]!
}
