/** The listener's OpenAPI document (`GET /openapi.json`) is a valid OpenAPI 3.1 document of its two routes. */
import { validate } from "@readme/openapi-parser"
import { Connector } from "@warden/connector"
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { connector, OpenApi } from "../src/index.ts"

describe("the OpenAPI document", () => {
  it("is valid OpenAPI 3.1, with the two routes, their errors and the source's limits", async () => {
    const config = await Effect.runPromise(
      Connector.decodeConfig(connector, {
        maxItemsPerRequest: 50,
        clients: [{ name: "a", bearer: "a-token-of-at-least-16-characters" }]
      })
    )
    const doc = OpenApi.document(config) as any
    const result = await validate(structuredClone(doc))
    expect(result.valid, JSON.stringify(result)).toBe(true)
    expect(doc.openapi).toBe("3.1.0")
    expect(Object.keys(doc.paths)).toEqual(["/v1/items", "/v1/check"])
    expect(Object.keys(doc.paths["/v1/items"].post.responses)).toEqual(["202", "400", "401", "413", "429", "503"])
    expect(doc.paths["/v1/items"].post.summary).toContain("50")
    expect(doc.components.schemas.Item.required).toEqual(["reference"])
    expect(Object.keys(doc.components.schemas.CheckResult.properties)).toEqual([
      "decision",
      "reference",
      "version",
      "verdict",
      "rule",
      "actions",
      "decidedBy"
    ])
  })
})
