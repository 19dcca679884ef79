import { describe, expect, it } from "vitest"
import { placeholder } from "../src/index.ts"

describe("placeholder", () => {
  it("loads", () => expect(placeholder).toBe(true))
})
