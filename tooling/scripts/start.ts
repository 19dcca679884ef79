// `pnpm start`: builds what `warden demo` needs, then becomes the demo. Turbo's own lines (its banner,
// "Finishing writing to cache...") went to the terminal between pnpm's and the demo's; they are kept
// and shown only when the build fails, so the demo's banner is the first thing a newcomer reads.
import { spawnSync } from "node:child_process"
import { join } from "node:path"

const root = join(import.meta.dirname, "..", "..")
process.stderr.write("building the daemon (cached after the first time)...\n")
const build = spawnSync(
  join(root, "node_modules", ".bin", "turbo"),
  ["run", "build", "--filter=@warden/daemon...", "--output-logs=errors-only"],
  { cwd: root, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }
)
if (build.status !== 0) {
  process.stderr.write(build.stdout ?? "")
  process.stderr.write(build.stderr ?? "")
  process.stderr.write(`pnpm start: the build failed (${build.error?.message ?? `exit ${build.status}`})\n`)
  process.exit(1)
}
// The demo replaces this process: Ctrl-C reaches it directly and its exit code is the command's.
process.execve(process.execPath, [
  process.execPath,
  join(root, "apps", "daemon", "dist", "bin.js"),
  "demo",
  ...process.argv.slice(2)
])
