/**
 * An author's strike score over time, as a small chart people would rather look at than read: the
 * score over the last 30 days (daily, from the API) and its decay over the next 14 if nothing new
 * comes (every strike halves each half-life, so the whole score does), with the days and the score on
 * labelled axes, today marked, and the same facts in words as the chart's text alternative.
 */
import { html } from "./html.ts"
import type { AuthorHistory } from "./model.ts"

const DAY = 86_400_000
const AHEAD = 14
const UNITS: Record<string, number> = {
  d: DAY,
  h: 3_600_000,
  m: 60_000,
  s: 1000,
  ms: 1,
  us: 0.001,
  µs: 0.001,
  ns: 1e-6
}

/** Milliseconds of a duration as the API formats it ("7d", "1d 12h", "1h"); undefined when unreadable. */
export const millisOf = (text: string): number | undefined => {
  let total = 0
  let parts = 0
  for (const m of text.matchAll(/(\d+(?:\.\d+)?)\s*(ms|us|µs|ns|d|h|m|s)\b/gu)) {
    total += Number(m[1]) * UNITS[m[2]!]!
    parts++
  }
  return parts === 0 || total <= 0 ? undefined : total
}

const day = (at: number) => new Date(at).toISOString().slice(5, 10)
const fixed = (n: number) => n.toFixed(1)

/** The points of the chart: the past as given, then the decay ahead (days from now, score). */
export const points = (strikes: AuthorHistory["strikes"], now: number) => {
  const past = strikes.series.map((p) => ({ days: (Date.parse(p.at) - now) / DAY, score: p.score }))
  const halfLife = millisOf(strikes.halfLife)
  const ahead =
    halfLife === undefined
      ? []
      : Array.from({ length: AHEAD }, (_, i) => ({
          days: i + 1,
          score: strikes.score * 0.5 ** (((i + 1) * DAY) / halfLife)
        }))
  return { past, ahead }
}

/** The chart's words: what a screen reader reads instead of the picture. */
export const describeDecay = (strikes: AuthorHistory["strikes"], now: number): string => {
  const { past, ahead } = points(strikes, now)
  const peak = past.reduce((a, b) => (b.score > a.score ? b : a), past[0] ?? { days: 0, score: 0 })
  const in7 = ahead[6]
  const in14 = ahead[13]
  const peakWords =
    peak.score > 0 ? `highest ${fixed(peak.score)} on ${day(now + peak.days * DAY)}` : "no strike in the last 30 days"
  const aheadWords =
    in7 === undefined || in14 === undefined
      ? "."
      : `; ${fixed(in7.score)} in 7 days and ${fixed(in14.score)} in 14 if no new strike comes (half-life ${strikes.halfLife}).`
  return `Strike score over the last 30 days and the next ${AHEAD}: ${peakWords}; now ${fixed(strikes.score)}${aheadWords}`
}

/** The chart of `strikes` at `now`. */
export const StrikeChart = (props: { strikes: AuthorHistory["strikes"]; now: number }) => {
  const { past, ahead } = points(props.strikes, props.now)
  const W = 560
  const H = 150
  const L = 36
  const B = 24
  const first = Math.min(-30, ...past.map((p) => p.days))
  const span = AHEAD - first
  const top = Math.max(1, ...past.map((p) => p.score), props.strikes.score)
  const R = 24
  const x = (days: number) => L + ((days - first) / span) * (W - L - R)
  const y = (score: number) => 8 + (1 - score / top) * (H - 8 - B)
  const line = (ps: ReadonlyArray<{ days: number; score: number }>) =>
    ps.map((p) => `${x(p.days).toFixed(1)},${y(p.score).toFixed(1)}`).join(" ")
  const ticks = [-30, -20, -10, 0, 7, 14]
  const words = describeDecay(props.strikes, props.now)
  return html`<figure class="chart strike-chart">
    <svg viewBox=${`0 0 ${W} ${H}`} role="img" aria-labelledby="strike-chart-title strike-chart-desc">
      <title id="strike-chart-title">Strike score, past 30 days and next ${AHEAD}</title>
      <desc id="strike-chart-desc">${words}</desc>
      <line x1=${L} y1=${y(0)} x2=${W - R} y2=${y(0)} class="axis" />
      <line x1=${L} y1="8" x2=${L} y2=${y(0)} class="axis" />
      ${[0, top / 2, top].map(
        (s) => html`<text x=${L - 4} y=${y(s) + 4} text-anchor="end" class="tick">${fixed(s)}</text>`
      )}
      ${ticks.map(
        (d) =>
          html`<text x=${x(d)} y=${H - 6} text-anchor="middle" class="tick">${d === 0 ? "today" : day(props.now + d * DAY)}</text>`
      )}
      <line x1=${x(0)} y1="8" x2=${x(0)} y2=${y(0)} class="now" />
      <polyline points=${line(past)} class="score" />
      ${ahead.length === 0 ? null : html`<polyline points=${line([{ days: 0, score: props.strikes.score }, ...ahead])} class="score ahead" />`}
    </svg>
    <figcaption>Solid: the score as it was; dashed: its decay ahead if no new strike comes. Days on the bottom axis, score on the left.</figcaption>
  </figure>`
}
