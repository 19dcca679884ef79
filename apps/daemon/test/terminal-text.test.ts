/**
 * Text from strangers made inert for a terminal (`TerminalText.inert`), and the hidden characters the
 * console marks and the search ignores (`HiddenCharacters`).
 */
import { describe, expect, it } from "vitest"
import * as HiddenCharacters from "../src/domain/HiddenCharacters.ts"
import { inert } from "../src/domain/TerminalText.ts"

// Every character a terminal could act on, or that reads differently from what it is.
// biome-ignore lint/suspicious/noControlCharactersInRegex: what must not reach a terminal
const ACTIVE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u200b-\u200f\u202a-\u202e\u2066-\u2069]/u

describe("TerminalText.inert", () => {
  it("escapes ESC sequences, OSC (window title), BEL and a screen clear: none reaches the terminal", () => {
    const hostile = "Bad Gateway\u001b]0;pwned\u0007\u001b[2J\u001b[H\u001bc done"
    const out = inert(hostile)
    expect(out).not.toMatch(ACTIVE)
    expect(out).toBe("Bad Gateway\\u001b]0;pwned\\u0007\\u001b[2J\\u001b[H\\u001bc done")
  })

  it("escapes every C0 control, DEL and every C1 control (U+0080–U+009F: CSI is U+009B)", () => {
    for (let cp = 0; cp < 0xa0; cp++) {
      if (cp >= 0x20 && cp < 0x7f) continue
      const out = inert(`a${String.fromCharCode(cp)}b`)
      expect(out, `U+${cp.toString(16)}`).not.toMatch(ACTIVE)
      expect(out.startsWith("a\\") && out.endsWith("b"), `U+${cp.toString(16)}`).toBe(true)
    }
    expect(inert("\u009b31mred")).toBe("\\u009b31mred")
    expect(inert("\u007f")).toBe("\\u007f")
    expect(inert("tab\there\nnext\r")).toBe("tab\\there\\nnext\\r")
  })

  it("keeps line feeds with `lines` (tables, indented JSON), nothing else", () => {
    expect(inert("one\ntwo\u001b[2J", { lines: true })).toBe("one\ntwo\\u001b[2J")
  })

  it("escapes bidirectional overrides and zero-width characters: admin\\u202Enimda does not read as adminadmin", () => {
    expect(inert("admin\u202enimda")).toBe("admin\\u202enimda")
    expect(inert("txt\u202eexe.txt")).toBe("txt\\u202eexe.txt")
    expect(inert("id\u200biot")).toBe("id\\u200biot")
    // Tag characters ("ASCII smuggling"): both UTF-16 halves, as JSON writes a character past U+FFFF.
    expect(inert("hi\u{e0041}")).toBe("hi\\udb40\\udc41")
  })

  it("a JSON line stays valid JSON meaning the same once escaped", () => {
    const value = { reason: "Bad\u009b2J\u202e\u2028 Gateway\u{e0041}", n: 1 }
    const line = inert(JSON.stringify(value))
    expect(line).not.toMatch(ACTIVE)
    expect(JSON.parse(line)).toEqual(value)
  })

  it("leaves text that only looks unusual as it is: emoji sequences, Persian joiners, accents", () => {
    for (const text of [
      "👩\u200d💻 ok",
      "🏃🏽\u200d\u2640\ufe0f",
      "می\u200cخواهم",
      "café — naïve",
      "🏴\u{e0067}\u{e0062}\u{e0065}\u{e006e}\u{e0067}\u{e007f}"
    ]) {
      expect(inert(text)).toBe(text)
    }
  })
})

describe("HiddenCharacters", () => {
  it("marks bidirectional controls and zero-width characters, not joiners that write a script or an emoji", () => {
    expect(HiddenCharacters.segments("admin\u202enimda")).toEqual(["admin", 0x202e, "nimda"])
    expect(HiddenCharacters.segments("id\u200ciot")).toEqual(["id", 0x200c, "iot"])
    expect(HiddenCharacters.segments("id\u200diot")).toEqual(["id", 0x200d, "iot"])
    expect(HiddenCharacters.segments("می\u200cخواهم")).toEqual(["می\u200cخواهم"])
    expect(HiddenCharacters.segments("👩\u200d💻")).toEqual(["👩\u200d💻"])
    expect(HiddenCharacters.segments("a\u{e0041}\u{e0042}")).toEqual(["a", 0xe0041, 0xe0042])
    // Controls only when asked.
    expect(HiddenCharacters.segments("a\u0085b")).toEqual(["a\u0085b"])
    expect(HiddenCharacters.segments("a\u0085b", () => true)).toEqual(["a", 0x85, "b"])
  })

  it("the search ignores zero-width and bidirectional characters", () => {
    expect(HiddenCharacters.withoutIgnored("id\u200biot \u202eevil\ufeff")).toBe("idiot evil")
  })

  it("names the code point", () => {
    expect(HiddenCharacters.describe(0x202e)).toBe("U+202E RIGHT-TO-LEFT OVERRIDE")
    expect(HiddenCharacters.describe(0x9b)).toBe("U+009B CONTROL CHARACTER")
  })
})
