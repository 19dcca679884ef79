/**
 * What `import("@warden/v1")` loads: the Promise client and the Effect services' declarations, not
 * their code, core's schemas (`effect/Schema`), `effect/Config` or undici, which a Promise client
 * loads in the background once made (an Effect layer when built). The import is what every process using the client pays at start
 * (docs/BENCHMARKS.md); this keeps a static import of a heavy module from creeping back in.
 */
import { execFileSync } from "node:child_process"
import { assert, describe, it } from "vitest"

/** The URLs of the modules a fresh Node process loads for `script` (an ES module body). */
const modulesLoadedBy = (script: string): Array<string> => {
  const hooks = [
    'import { registerHooks } from "node:module"',
    "globalThis.loaded = []",
    "registerHooks({ load: (url, context, next) => (globalThis.loaded.push(url), next(url, context)) })"
  ].join("\n")
  const out = execFileSync(
    process.execPath,
    [
      "--conditions=@warden/source",
      "--import",
      `data:text/javascript,${encodeURIComponent(hooks)}`,
      "--input-type=module",
      "-e",
      `${script}\nconsole.log(JSON.stringify(globalThis.loaded))`
    ],
    { cwd: new URL("..", import.meta.url), encoding: "utf8" }
  )
  return JSON.parse(out.trim().split("\n").at(-1)!)
}

const heavy =
  /\/effect\/dist\/(Schema|Config|SchemaAST)\.js$|\/undici\/|\/core\/src\/(Contract|TextAnalyzeRequest|Analysis)\.ts$|\/transport\/src\/(Transport|ApiConfig)\.ts$/u

describe('import("@warden/v1")', () => {
  it("loads neither the schemas, effect/Config, the transport nor undici; new Warden() loads them in the background", () => {
    const atImport = modulesLoadedBy('await import("@warden/v1")')
    assert.isAbove(atImport.length, 10, "the hook saw the import")
    assert.deepStrictEqual(
      atImport.filter((url) => heavy.test(url)),
      []
    )
    // a client, made and not called, loads them in the background, so its first call does not wait
    const afterNew = modulesLoadedBy(
      [
        'const { Warden } = await import("@warden/v1")',
        'const warden = new Warden({ apiKey: "k", baseUrl: "http://127.0.0.1:9", env: {} })',
        "const loaded = () => globalThis.loaded.some((url) => url.includes('/undici/'))",
        // up to a minute: on a loaded CI machine those ~350 modules have taken 10 s
        "for (let i = 0; i < 1200 && !loaded(); i++) await new Promise((r) => setTimeout(r, 50))",
        "await warden.close()"
      ].join("\n")
    )
    assert.includeMembers(
      afterNew
        .filter((url) => heavy.test(url))
        .map((url) => url.replace(/^.*\/(effect\/dist|core\/src|transport\/src)\//u, "")),
      ["Schema.js", "TextAnalyzeRequest.ts", "Transport.ts"]
    )
    assert.isTrue(
      afterNew.some((url) => url.includes("/undici/")),
      "undici loaded without a call"
    )
  }, 120_000)
})
