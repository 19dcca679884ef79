// Writes packages/core/openapi.json from the HttpApi contract. Run: pnpm --filter @warden/core openapi
import { writeFileSync } from "node:fs"
import { render } from "../src/OpenApiDocument.ts"

const target = new URL("../openapi.json", import.meta.url)
writeFileSync(target, render())
console.log(`wrote ${target.pathname}`)
