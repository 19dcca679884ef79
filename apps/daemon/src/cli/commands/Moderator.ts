/**
 * `warden moderator add NAME --role ROLE --config FILE [--url URL]`, `warden moderator list` and
 * `warden moderator disable NAME` (issue 36): named moderators without editing the config file, kept
 * in the state (`warden_moderators`, the token as its SHA-256 only). `add` prints the token once, and
 * the console's sign-in link (`http://HOST:PORT/?token=...`: `admin.listen`, or `--url` for the address
 * moderators reach, behind a proxy). A name the config file defines is refused (the file's wins).
 * Each change writes its audit row (`moderator.add`, `moderator.disable`) in the same transaction.
 * Safe while the daemon runs: it reads the stored moderators on each sign-in.
 */
import { randomBytes } from "node:crypto"
import { Clock, Console, Effect, Layer, Option, Schema } from "effect"
import { Argument, Command, Flag } from "effect/cli"
import { SqlClient, type SqlError } from "effect/sql"
import { hashToken } from "../../admin/Moderators.ts"
import { type Checked, checkConfig, formatProblem, ModeratorName } from "../../config/index.ts"
import { inert } from "../../domain/TerminalText.ts"
import { AuditStore } from "../../state/AuditStore.ts"
import { ModeratorStore, type ModeratorStoreShape } from "../../state/ModeratorStore.ts"
import * as StateStore from "../../state/StateStore.ts"
import { operator } from "../Operator.ts"
import { configFlag, refuser } from "../Refusal.ts"
import * as StateFromConfig from "../StateFromConfig.ts"

const refuse = refuser("moderator")

/** The config file's state and moderators (its other sections are not needed here). */
const loaded = (file: string) =>
  checkConfig(file, { sections: ["state", "admin", "moderators"] }).pipe(
    Effect.catchTag("ConfigError", (error) => refuse(error.problems.map(formatProblem).join("\n"), 78))
  )

/** Runs `effect` on the config's state store (migrated first). */
const onState = <A, R>(checked: Checked, effect: Effect.Effect<A, SqlError.SqlError, R>) =>
  effect.pipe(
    Effect.provide(StateStore.layer.pipe(Layer.provideMerge(StateFromConfig.sql(checked.config.state)))),
    Effect.catchTag("SqlError", (e) => refuse(`cannot use the state database: ${e.message}`, 1))
  )

/**
 * Runs `change` on the moderators in one transaction with its audit row (`cli` role), written only
 * when the change took (`true`): an add of a taken name, a disable of nobody, audits nothing.
 */
const changeAudited = (
  checked: Checked,
  audit: {
    readonly actor: string
    readonly action: "moderator.add" | "moderator.disable"
    readonly detail: Record<string, unknown>
  },
  change: (store: ModeratorStoreShape, at: number) => Effect.Effect<boolean, SqlError.SqlError>
) =>
  onState(
    checked,
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const store = yield* ModeratorStore
      const audits = yield* AuditStore
      const at = yield* Clock.currentTimeMillis
      return yield* sql.withTransaction(
        Effect.gen(function* () {
          const changed = yield* change(store, at)
          if (changed)
            yield* audits.record({ at, actor: audit.actor, role: "cli", action: audit.action, detail: audit.detail })
          return changed
        })
      )
    })
  )

const name = Argument.String("name").pipe(
  Argument.withDescription("the moderator's name (letters, digits, '-', '_', '.')")
)

/** The sign-in link's base: `--url`, else `admin.listen` (a wildcard address shown as loopback). */
const baseUrl = (checked: Checked, url: Option.Option<string>) => {
  if (Option.isSome(url)) return url.value.replace(/\/+$/u, "")
  const { host, port } = checked.config.admin.listen
  const shown = host === "0.0.0.0" || host === "::" ? "127.0.0.1" : host.includes(":") ? `[${host}]` : host
  return `http://${shown}:${port}`
}

const add = Command.make(
  "add",
  {
    name,
    role: Flag.Literals("role", ["viewer", "moderator", "admin"]).pipe(
      Flag.withDescription(
        "viewer (reads), moderator (decides reviews, sends feedback), admin (acts on platforms, erases)"
      )
    ),
    config: configFlag("the daemon's warden.yaml (its state section is used)"),
    url: Flag.String("url").pipe(
      Flag.withDescription("the address moderators open the console at (default: admin.listen)"),
      Flag.optional
    )
  },
  ({ name, role, config: file, url }) =>
    Effect.gen(function* () {
      if (Option.isNone(Schema.decodeUnknownOption(ModeratorName)(name)) || name === "admin-token")
        return yield* refuse(
          `'${name}' cannot be a moderator's name: letters, digits, '-', '_' or '.', at most 64, not admin-token`,
          2
        )
      const checked = yield* loaded(file)
      const configured = checked.config.moderators.findIndex((m) => m.name === name)
      if (configured !== -1)
        return yield* refuse(
          `${file} defines moderator ${name} (moderators.${configured}), and the file's wins: choose another name`,
          1
        )
      const token = randomBytes(24).toString("base64url")
      const by = `cli:${operator()}`
      const added = yield* changeAudited(
        checked,
        { actor: by, action: "moderator.add", detail: { name, role } },
        (store, at) => store.add({ name, role, tokenHash: hashToken(token), createdAt: at, createdBy: by })
      )
      if (!added)
        return yield* refuse(`a moderator named ${name} exists already (a name stays bound to who held it)`, 1)
      // The token is shown once, here, on stdout; the state keeps only its SHA-256.
      yield* Console.log(
        [
          `moderator ${name} added (${role})`,
          `  token    ${token}`,
          `  sign in  ${baseUrl(checked, url)}/?token=${token}`,
          "  the token is shown once: the state keeps only its SHA-256"
        ].join("\n")
      )
    })
).pipe(
  Command.withDescription("Add a named moderator and print their token and sign-in link (once)"),
  Command.withExamples([
    {
      command: "warden moderator add alice --role moderator --config warden.yaml",
      description: "a moderator who decides reviews"
    },
    {
      command: "warden moderator add bob --role viewer -c warden.yaml --url https://warden.example.org",
      description: "a link for the address behind a proxy"
    }
  ])
)

const list = Command.make(
  "list",
  { config: configFlag("the daemon's warden.yaml (its state and moderators sections are used)") },
  ({ config: file }) =>
    Effect.gen(function* () {
      const checked = yield* loaded(file)
      const stored = yield* onState(
        checked,
        Effect.flatMap(Effect.service(ModeratorStore), (s) => s.list)
      )
      const rows = [
        ...checked.config.moderators.map((m) => [m.name, m.role, "config file", "", ""]),
        ...stored.map((m) => [
          m.name,
          m.role,
          m.createdBy,
          new Date(m.createdAt).toISOString(),
          m.disabledAt === null ? "" : `disabled ${new Date(m.disabledAt).toISOString()}`
        ])
      ]
      const header = ["NAME", "ROLE", "ADDED BY", "ADDED", "STATE"]
      const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)))
      const line = (cells: ReadonlyArray<string>) =>
        cells
          .map((c, i) => c.padEnd(widths[i]!))
          .join("  ")
          .trimEnd()
      yield* Console.log(inert([line(header), ...rows.map(line)].join("\n"), { lines: true }))
    })
).pipe(Command.withDescription("List the moderators: the config file's and those added with moderator add"))

const disable = Command.make(
  "disable",
  { name, config: configFlag("the daemon's warden.yaml (its state section is used)") },
  ({ name, config: file }) =>
    Effect.gen(function* () {
      const checked = yield* loaded(file)
      if (checked.config.moderators.some((m) => m.name === name))
        return yield* refuse(`${file} defines moderator ${name}: remove them from the file instead`, 1)
      const by = `cli:${operator()}`
      const done = yield* changeAudited(
        checked,
        { actor: by, action: "moderator.disable", detail: { name } },
        (store, at) => store.disable(name, at)
      )
      if (!done) return yield* refuse(`no active moderator named ${name}`, 1)
      yield* Console.log(`moderator ${name} disabled: their token and sessions no longer sign in`)
    })
).pipe(Command.withDescription("Disable a moderator added with moderator add (their token stops working)"))

/** The `moderator` command. */
export const moderator = Command.make("moderator").pipe(
  Command.withDescription("Named moderators of the review console and the admin API"),
  Command.withSubcommands([add, list, disable])
)
