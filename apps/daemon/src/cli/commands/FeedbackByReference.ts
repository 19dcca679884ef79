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

/** Why `fetch` failed, as a phrase: its "fetch failed" hides the system error (`ECONNREFUSED`) in its cause. */
const networkReason = (error: unknown): string => {
  const inner = (error as { cause?: { code?: string; message?: string } } | undefined)?.cause
  if (inner?.code !== undefined) return Writable.describeErrno(inner.code, inner.message ?? inner.code)
  if (inner?.message !== undefined && inner.message !== "") return inner.message
  return error instanceof Error ? error.message : String(error)
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
    const body: Record<string, unknown> = { reference }
    if (Option.isSome(f.version)) body.version = f.version.value
    if (Option.isSome(f.source)) body.source = f.source.value
    const add = list(f.add)
    const remove = list(f.remove)
    if (Option.isSome(add)) body.classificationsToAdd = add.value
    if (Option.isSome(remove)) body.classificationsToRemove = remove.value
    if (Option.isSome(f.notes)) body.notes = f.notes.value
    if (Option.isSome(f.confidence)) body.confidence = f.confidence.value
    const answer = yield* Effect.tryPromise(async () => {
      const res = await fetch(`${url.replace(/\/+$/, "")}/api/feedback`, {
        method: "POST",
        headers: { authorization: `Bearer ${Redacted.value(token)}`, "content-type": "application/json" },
        body: JSON.stringify(body)
      })
      return { status: res.status, body: (await res.json().catch(() => ({}))) as Record<string, any> }
    }).pipe(Effect.catch((e) => fail(`cannot reach the daemon's admin API at ${url}: ${networkReason(e.cause)}`, 1)))
    if (answer.status !== 200) {
      // The admin API's envelope: { error: { code, message } } (`reason` from daemons before it).
      const error = answer.body.error as { code?: string; message?: string; reason?: string } | string | undefined
      const text =
        typeof error === "string"
          ? error
          : `${error?.code ?? answer.status}: ${error?.message ?? error?.reason ?? "refused"}`
      return yield* fail(text, answer.status === 400 ? 2 : 1)
    }
    yield* Console.log(JSON.stringify(answer.body))
  })
