import { defineConfig, mergeConfig, type ViteUserConfig } from "vitest/config"

/**
 * The shared vitest settings of every Warden package.
 *
 * - `@warden/source` resolves workspace packages to their `src/` so tests never need a build first.
 * - Each run writes `.vitest-report.json`: turbo caches it with the task, and the CI summary
 *   (`tooling/scripts/test-summary.ts`) adds the counts of every package into one closing line.
 */
export const wardenVitest = (overrides: ViteUserConfig = {}): ViteUserConfig =>
  mergeConfig(
    defineConfig({
      resolve: {
        conditions: ["@warden/source", "module", "node", "import", "default"]
      },
      ssr: {
        resolve: {
          conditions: ["@warden/source", "module", "node", "import", "default"],
          externalConditions: ["@warden/source"]
        }
      },
      test: {
        include: ["test/**/*.test.ts"],
        testTimeout: 30_000,
        hookTimeout: 30_000,
        reporters: ["default", ["json", { outputFile: ".vitest-report.json" }]]
      }
    }),
    overrides
  )
