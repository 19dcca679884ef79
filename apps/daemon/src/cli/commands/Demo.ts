/**
 * `warden demo` (what `pnpm start` runs): the whole pipeline on this machine with nothing to set up.
 * See `demo/Demo.ts`.
 */
import { Command, Flag } from "effect/cli"
import { Effect } from "effect"

/** The `demo` subcommand. */
export const demo = Command.make(
  "demo",
  {
    adminPort: Flag.Int("admin-port").pipe(
      Flag.withDescription("port of the admin API on 127.0.0.1 (default: a free one)"),
      Flag.withDefault(0)
    ),
    format: Flag.Literals("format", ["auto", "json", "pretty"]).pipe(
      Flag.withDescription("verdict lines: pretty on a terminal, JSON otherwise (auto)"),
      Flag.withDefault("auto")
    )
  },
  ({ adminPort, format }) =>
    // Loaded on use: the demo brings the sandbox, which every other command would pay for at start.
    Effect.flatMap(
      Effect.promise(() => import("../../demo/Demo.ts")),
      (Demo) => Demo.run({ adminPort, format })
    )
).pipe(
  Command.withDescription(
    "Run the whole pipeline locally: sandbox API + demo comments feed + RSS source + stdout sink + admin API"
  ),
  Command.withExamples([
    { command: "warden demo", description: "everything on loopback, verdicts on stdout; the console link on stderr" },
    { command: "warden demo --format json", description: "verdicts as JSON lines, for jq" }
  ])
)
