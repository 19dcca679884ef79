/**
 * What the console's browser tests read about accessibility: axe-core's WCAG 2.1 A/AA audit of a page
 * (its source injected into a page of a `bypassCSP` context: the console's Content-Security-Policy
 * refuses an injected script, as it should), where keyboard focus is, the focus ring's contrast as the
 * browser computes it, and the console's live region.
 */
import { readFileSync } from "node:fs"
import { createRequire } from "node:module"
import type { Page } from "playwright-core"

const axeSource = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8")

/**
 * The serious and critical WCAG 2.0/2.1 A and AA violations of the page as it is now, one line each
 * (rule, impact, the elements). The page must be of a context made with `bypassCSP: true`.
 */
export const seriousViolations = async (page: Page): Promise<Array<string>> => {
  await page.addScriptTag({ content: axeSource })
  return page.evaluate(async () => {
    type Result = {
      violations: Array<{ id: string; impact: string | null; help: string; nodes: Array<{ target: Array<string> }> }>
    }
    const axe = (window as unknown as { axe: { run: (context: Document, options: object) => Promise<Result> } }).axe
    const result = await axe.run(document, {
      runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"] },
      resultTypes: ["violations"]
    })
    return result.violations
      .filter((v) => v.impact === "serious" || v.impact === "critical")
      .map((v) => `${v.id} (${v.impact}): ${v.help}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`)
  })
}

/** The focused element as "TAG text" (its first 60 characters), or "BODY" when focus is nowhere. */
export const focused = (page: Page): Promise<string> =>
  page.evaluate(() => {
    const e = document.activeElement
    if (e === null || e === document.body) return "BODY"
    return `${e.tagName} ${(e.textContent ?? "").replace(/\s+/gu, " ").trim().slice(0, 60)}`.trim()
  })

/** The `data-key` of the focused element (a row's link in the decisions list). */
export const focusedKey = (page: Page): Promise<string | null> =>
  page.evaluate(() => document.activeElement?.getAttribute("data-key") ?? null)

/** What the console's live region says now. */
export const announced = (page: Page): Promise<string> =>
  page.evaluate(() => document.getElementById("announcer")?.textContent ?? "")

/** The focus ring of the focused element as drawn: style, width, and its contrast with what is behind it. */
export interface FocusRing {
  readonly element: string
  readonly style: string
  readonly width: number
  readonly contrast: number
}

/**
 * The focus ring of the focused element. The ring is drawn outside the element (outline-offset), so
 * the colour it must stand out from is the nearest ancestor's opaque background (white if none).
 */
export const focusRing = (page: Page): Promise<FocusRing> =>
  page.evaluate(() => {
    const rgb = (css: string): [number, number, number, number] => {
      const m = /rgba?\(([^)]+)\)/u.exec(css)
      if (m === null) return [0, 0, 0, 0]
      const [r = 0, g = 0, b = 0, a = 1] = m[1]!.split(/[ ,/]+/u).map(Number)
      return [r, g, b, a]
    }
    const luminance = ([r, g, b]: [number, number, number, number]) => {
      const channel = (c: number) => {
        const s = c / 255
        return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4
      }
      return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b)
    }
    const e = document.activeElement as HTMLElement
    const style = getComputedStyle(e)
    let behind: [number, number, number, number] = [255, 255, 255, 1]
    for (let p = e.parentElement; p !== null; p = p.parentElement) {
      const bg = rgb(getComputedStyle(p).backgroundColor)
      if (bg[3] > 0) {
        behind = bg
        break
      }
    }
    const [a, b] = [luminance(rgb(style.outlineColor)), luminance(behind)]
    return {
      element: `${e.tagName} ${(e.textContent ?? "").trim().slice(0, 30)}`,
      style: style.outlineStyle,
      width: Number.parseFloat(style.outlineWidth),
      contrast: (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05)
    }
  })
