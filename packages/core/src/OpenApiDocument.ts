/**
 * The OpenAPI 3.1 document of the contract, as checked in at `packages/core/openapi.json`.
 * Regenerate with `pnpm --filter @warden/core openapi`; a test fails when the file drifts.
 */
import { OpenApi } from "effect/http-api"
import { ContentAnalysisApi } from "./Contract.ts"

const server = (name: string, description: string) => ({
  url: `{${name}}`,
  description,
  variables: { [name]: { default: "http://127.0.0.1:8080", description: `${description}: set by your contract` } }
})

/** The OpenAPI 3.1 document generated from `ContentAnalysisApi`. */
export const make = (): OpenApi.OpenAPISpec => {
  const spec = OpenApi.fromApi(ContentAnalysisApi)
  return {
    ...spec,
    // The spec publishes no real addresses: each is a variable set by the operator's contract.
    servers: [
      server("base_url", "Global endpoint, the default (hosted in a Belgian area)"),
      server("base_url_us_east", "Regional endpoint, Northern Virginia, USA"),
      server("base_url_us_west", "Regional endpoint, California, USA"),
      server("legacy_base_url", "Host of the legacy batch endpoint (/api/analyze)")
    ]
  } as OpenApi.OpenAPISpec
}

/** The document as the checked-in file holds it: 2-space JSON with a final newline. */
export const render = (): string => `${JSON.stringify(make(), null, 2)}\n`
