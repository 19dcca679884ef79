import { readFileSync } from "node:fs"
import { validate } from "@readme/openapi-parser"
import { describe, expect, it } from "vitest"
import { OpenApiDocument, PATHS } from "../src/index.ts"

const checkedIn = readFileSync(new URL("../openapi.json", import.meta.url), "utf8")

describe("openapi.json", () => {
  it("is what the contract generates (run `pnpm --filter @warden/core openapi` after changing it)", () => {
    expect(checkedIn).toBe(OpenApiDocument.render())
  })

  it("is a valid OpenAPI 3.1 document", async () => {
    const result = await validate(JSON.parse(checkedIn))
    expect(result.valid, JSON.stringify(result)).toBe(true)
  })

  it("declares every endpoint and carries the schemas' limits", () => {
    const doc = JSON.parse(checkedIn)
    for (const path of Object.values(PATHS)) expect(doc.paths[path]?.post, path).toBeDefined()
    expect(checkedIn).toContain('"maxLength": 10000')
    expect(checkedIn).toContain('"maxLength": 2048')
    expect(checkedIn).toContain('"format": "uuid"')
    expect(checkedIn).toContain('"format": "date-time"')
    expect(checkedIn).toContain('"format": "uri"')
    expect(checkedIn).toContain('"pattern": "^[A-Z]{2}$"')
    expect(checkedIn).toContain('"INDUSTRY_GAMING"')
    expect(doc.components.securitySchemes).toMatchObject({
      apiKey: { type: "http", scheme: "ApiKey" },
      legacyApiKey: { type: "apiKey", in: "header", name: "X-Api-Key" }
    })
  })
})
