/**
 * Builds the review console into `dist/console/`: `app.js` (one minified ES module: the console and
 * Preact, nothing fetched at run time), `app.css` and `index.html`, which the admin server serves.
 * Run by `pnpm build` after tsc (well under a second), and by the console's tests.
 */
import { copyFileSync, mkdirSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { build } from "rolldown"

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url))

/** Bundles the console; returns the output folder. */
export const buildConsole = async (): Promise<string> => {
  const out = here("../dist/console/")
  mkdirSync(out, { recursive: true })
  await build({
    input: here("./src/main.ts"),
    platform: "browser",
    // Workspace packages from their sources: the console builds without @warden/core's dist.
    resolve: { conditionNames: ["@warden/source", "browser", "import", "default"] },
    logLevel: "warn",
    output: { file: `${out}app.js`, format: "esm", minify: true }
  })
  copyFileSync(here("./index.html"), `${out}index.html`)
  copyFileSync(here("./app.css"), `${out}app.css`)
  return out
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const started = performance.now()
  const out = await buildConsole()
  console.log(`console built into ${out} in ${Math.round(performance.now() - started)} ms`)
}
