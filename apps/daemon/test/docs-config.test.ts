/**
 * Every YAML block in docs/ (but Docker Compose files: a top-level `services:` key) is a config that
 * `warden config check` accepts, as a reader would copy it:
 * each `${env:NAME}` set to a placeholder, each `${file:PATH}` present, each `module:` plugin a stub
 * that accepts any config and every action. First-party connectors load by `type:` in the repository.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join, relative } from "node:path"
import { describe, expect, it } from "vitest"
import { warden } from "./support/WardenCli.ts"

const docs = new URL("../../../docs/", import.meta.url).pathname

const markdownFiles = (dir: string): Array<string> =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? markdownFiles(join(dir, entry.name))
      : entry.name.endsWith(".md")
        ? [join(dir, entry.name)]
        : []
  )

const blocks = markdownFiles(docs).flatMap((file) =>
  [...readFileSync(file, "utf8").matchAll(/^```ya?ml\n([\s\S]*?)^```/gmu)]
    .map((m, i) => ({ name: `${relative(docs, file)} #${i + 1}`, yaml: m[1]! }))
    .filter((block) => !/^services:/mu.test(block.yaml))
)

// A plugin as `module:` names it: any config, every action kind (the docs' plugins are hypothetical).
// It imports `effect` and `@warden/connector` from a folder that has neither: the daemon shares its own.
const stubPlugin = `import { Effect, Schema, Stream } from "effect"
import { Action } from "@warden/connector"
export const connector = {
  type: "docs-stub",
  configSchema: Schema.Record(Schema.String, Schema.Unknown),
  capabilities: { actions: [...Action.knownActionKinds], duplicates: "never", contentTypes: ["text", "image", "username"] },
  // config check makes the source (to see its act) and closes it; nothing runs
  make: () => Effect.succeed({ events: () => Stream.never, act: () => Effect.succeed({ status: "done" }) })
}
`

const check = async (yaml: string) => {
  const dir = mkdtempSync(join(tmpdir(), "warden-docs-"))
  writeFileSync(join(dir, "warden.yaml"), yaml)
  const env: Record<string, string> = {}
  for (const [, name] of yaml.matchAll(/\$\{env:([A-Za-z_][A-Za-z0-9_]*)/gu)) {
    // A URL-valued variable gets a URL, as a reader would set it; anything else an opaque string.
    // A Standard Webhooks signing secret (the http source's) gets one in its format.
    env[name!] = name!.endsWith("_URL")
      ? "https://placeholder.example.com"
      : name!.endsWith("SIGNING_SECRET")
        ? `whsec_${Buffer.from(`placeholder-${name}`).toString("base64")}`
        : `placeholder-${name}`
  }
  for (const [, path] of yaml.matchAll(/\$\{file:([^}]+)\}/gu)) {
    mkdirSync(dirname(join(dir, path!)), { recursive: true })
    writeFileSync(join(dir, path!), "placeholder-secret-value")
  }
  for (const [, path] of yaml.matchAll(/^\s*module:\s*(\S+)/gmu)) {
    mkdirSync(dirname(join(dir, path!)), { recursive: true })
    writeFileSync(join(dir, path!), stubPlugin)
  }
  return warden(["config", "check", "warden.yaml"], { cwd: dir, env })
}

describe("the YAML examples in docs/", () => {
  it("are found (the docs have config examples)", () => {
    expect(blocks.map((b) => b.name)).toEqual(
      expect.arrayContaining([
        "configuration.md #1",
        "connectors/discord.md #1",
        "connectors/youtube.md #1",
        "operations.md #1"
      ])
    )
  })

  it.each(blocks)("$name passes warden config check with placeholder env", async ({ yaml }) => {
    const r = await check(yaml)
    expect(r.stderr).toBe("")
    expect(r.code).toBe(0)
    expect(r.stdout).toContain("OK")
  })
})
