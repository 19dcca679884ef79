/**
 * `warden feedback --reference R`: feedback on an item the daemon analysed, by its reference. The
 * running daemon owns the state, so this asks its admin API (`POST /api/feedback`), which sends the
 * exact request stored for that item version as `analyzeRequest`. The admin URL and token come from
 * the flags, else `WARDEN_ADMIN_URL` / `WARDEN_ADMIN_TOKEN`, else the config file's `admin` section.
 */
import { Console, Effect, Option, Redacted } from "effect"
import { Flag } from "effect/cli"
import { loadConfig } from "../../config/index.ts"
import { refuser } from "../Refusal.ts"
import * as Writable from "../Writable.ts"

const fail = refuser("feedback")

/** The flags of the by-reference form (on `warden feedback` itself). */
export const referenceFlags = {
  reference: Flag.String("reference").pipe(
    Flag.withDescription("The item's reference, as the daemon recorded it (feedback through the running daemon)"),
    Flag.optional
  ),
  version: Flag.Int("item-version").pipe(Flag.withDescription("The item version (default: the latest)"), Flag.optional),
  source: Flag.String("source").pipe(Flag.withDescription("The source id, when references repeat"), Flag.optional),
  add: Flag.String("add").pipe(Flag.withDescription("Comma-separated classifications to add"), Flag.optional),
  remove: Flag.String("remove").pipe(Flag.withDescription("Comma-separated classifications to remove"), Flag.optional),
  notes: Flag.String("notes").pipe(Flag.withDescription("A free comment (enough on its own)"), Flag.optional),
  confidence: Flag.Literals("confidence", ["LOW", "MEDIUM", "HIGH", "VERY_HIGH"]).pipe(Flag.optional),
  adminUrl: Flag.String("admin-url").pipe(
    Flag.withDescription(
      "The daemon's admin API (env WARDEN_ADMIN_URL; default from --config, else http://127.0.0.1:8787)"
    ),
    Flag.optional
  ),
  adminToken: Flag.Redacted("admin-token").pipe(
    Flag.withDescription("The admin token (env WARDEN_ADMIN_TOKEN; default from --config)"),
    Flag.optional
  ),
  config: Flag.String("config").pipe(
    Flag.withDescription("The daemon's warden.yaml (admin address and token)"),
    Flag.optional
  )
} as const

type FlagValue<F> = F extends Flag.Flag<infer A> ? A : never
type Flags = {
  readonly [K in keyof typeof referenceFlags]: FlagValue<(typeof referenceFlags)[K]>
}

const list = (value: Option.Option<string>) =>
  Option.map(value, (s) =>
    s
      .split(",")
      .map((x) => x.trim())
      .filter((x) => x !== "")
  )

/** A field of a failure, whatever it is. */
const fieldOf = (value: unknown, key: string): unknown =>
  typeof value === "object" && value !== null ? Reflect.get(value, key) : undefined

/** Why `fetch` failed, as a phrase: its "fetch failed" hides the system error (`ECONNREFUSED`) in its cause. */
const networkReason = (error: unknown): string => {
  const inner = fieldOf(error, "cause")
  const code = fieldOf(inner, "code")
  const message = fieldOf(inner, "message")
  if (typeof code === "string") return Writable.describeErrno(code, typeof message === "string" ? message : code)
  if (typeof message === "string" && message !== "") return message
  return error instanceof Error ? error.message : String(error)
}

/**
 * The admin API's refusal as the user reads it (`CODE: message`, exit 2 for bad input), or, when the
 * daemon could not be reached or gave no envelope, why.
 */
const refusal = (url: string, error: unknown) => {
  const envelope = fieldOf(error, "error")
  const code = fieldOf(envelope, "code")
  if (typeof code === "string") {
    return fail(`${code}: ${String(fieldOf(envelope, "message"))}`, fieldOf(error, "_tag") === "BadRequest" ? 2 : 1)
  }
  const reason = fieldOf(error, "reason")
  if (fieldOf(reason, "_tag") === "TransportError") {
    return fail(`cannot reach the daemon's admin API at ${url}: ${networkReason(fieldOf(reason, "cause"))}`, 1)
  }
  return fail(
    `the daemon's admin API at ${url} answered what it does not declare: ${String(fieldOf(error, "message") ?? error)}`,
    1
  )
}

/** Sends feedback by reference through the daemon's admin API and prints its answer. */
export const byReference = (f: Flags) =>
  Effect.gen(function* () {
    const reference = Option.getOrUndefined(f.reference)
    if (reference === undefined) {
      return yield* fail("give a subcommand (text | image) with --request FILE, or --reference REF", 2)
    }
    const file = Option.getOrUndefined(f.config)
    const fromFile =
      file === undefined
        ? undefined
        : // Only the admin section is used: the API key and the database URL are not demanded.
          yield* loadConfig(file, { sections: ["admin"] }).pipe(
            Effect.catch((e) => fail(`${file}: ${e.problems.map((p) => `${p.path}: ${p.message}`).join("; ")}`, 78))
          )
    const listen = fromFile?.admin.listen
    const url =
      Option.getOrUndefined(f.adminUrl) ??
      process.env.WARDEN_ADMIN_URL ??
      (listen === undefined ? "http://127.0.0.1:8787" : `http://${listen.host}:${listen.port}`)
    const token =
      Option.getOrUndefined(f.adminToken) ??
      (process.env.WARDEN_ADMIN_TOKEN === undefined ? undefined : Redacted.make(process.env.WARDEN_ADMIN_TOKEN)) ??
      fromFile?.admin.token
    if (token === undefined)
      return yield* fail("the admin token is needed: --admin-token, WARDEN_ADMIN_TOKEN or --config", 2)
    const payload = {
      reference,
      ...Option.match(f.version, { onNone: () => ({}), onSome: (version) => ({ version }) }),
      ...Option.match(f.source, { onNone: () => ({}), onSome: (source) => ({ source }) }),
      ...Option.match(list(f.add), { onNone: () => ({}), onSome: (add) => ({ classificationsToAdd: add }) }),
      ...Option.match(list(f.remove), {
        onNone: () => ({}),
        onSome: (remove) => ({ classificationsToRemove: remove })
      }),
      ...Option.match(f.notes, { onNone: () => ({}), onSome: (notes) => ({ notes }) }),
      ...Option.match(f.confidence, { onNone: () => ({}), onSome: (confidence) => ({ confidence }) })
    }
    const AdminClient = yield* Effect.promise(() => import("../AdminClient.ts"))
    const admin = yield* AdminClient.make(url, token)
    const sent = yield* admin.decisions.feedback({ payload }).pipe(Effect.catch((error) => refusal(url, error)))
    yield* Console.log(JSON.stringify(sent))
  })
