/**
 * Who a token belongs to (issue 36): a named moderator of the config file (in memory), one added with
 * `warden moderator add` (`warden_moderators`, by the SHA-256 of their token), or the shared
 * `admin.token` (`admin-token`, role admin, for automation). Every comparison is of SHA-256 digests with
 * `timingSafeEqual` against every candidate, so neither the time taken nor the order of the list tells
 * how close a guess came. A name in the config file and in the state: the config's wins (the stored one
 * is ignored, and `warden run` warns at start).
 */
import { createHash, timingSafeEqual } from "node:crypto"
import { Context, Effect, Layer, Redacted } from "effect"
import type { SqlError } from "effect/sql"
import { ModeratorStore } from "../state/ModeratorStore.ts"
import { ADMIN_TOKEN_NAME, type Moderator, ROLES, type Role } from "./ModeratorRole.ts"

export { ADMIN_TOKEN_NAME, allows, type Moderator, ROLES, type Role } from "./ModeratorRole.ts"

/** The SHA-256 of a token, hex (what `warden_moderators.token_hash` holds). */
export const hashToken = (token: string): string => createHash("sha256").update(token, "utf8").digest("hex")

const sameDigest = (a: Buffer, b: Buffer) => a.length === b.length && timingSafeEqual(a, b)

/** A moderator of the config file. */
export interface ConfiguredModerator {
  readonly name: string
  readonly role: Role
  readonly token: Redacted.Redacted<string>
}

/** Who tokens belong to. */
export interface ModeratorsShape {
  /** The moderator a token belongs to, or undefined (a wrong token, a disabled moderator). */
  readonly identify: (token: string) => Effect.Effect<Moderator | undefined, SqlError.SqlError>
  /** Whether a moderator is still active (a session's on each request: a disabled one is signed out). */
  readonly stillActive: (moderator: Moderator) => Effect.Effect<boolean, SqlError.SqlError>
  /** The configured names (`warden moderator add` refuses them). */
  readonly configured: ReadonlyArray<string>
}

const isRole = (role: string): role is Role => (ROLES as ReadonlyArray<string>).includes(role)

/** Who tokens belong to: the shared token, the config's moderators, the stored ones. */
export const make = (adminToken: Redacted.Redacted<string>, configured: ReadonlyArray<ConfiguredModerator>) =>
  Effect.gen(function* () {
    const store = yield* ModeratorStore
    const shared = Buffer.from(hashToken(Redacted.value(adminToken)), "hex")
    const fromConfig = configured.map((m) => ({
      moderator: { name: m.name, role: m.role, from: "config" } satisfies Moderator,
      digest: Buffer.from(hashToken(Redacted.value(m.token)), "hex")
    }))
    const names = new Set(configured.map((m) => m.name))
    // A name in the file and in the state: the file's wins; say so once, at start.
    const shadowed = yield* store.active.pipe(
      Effect.map((rows) => rows.filter((r) => names.has(r.name)).map((r) => r.name)),
      Effect.catch(() => Effect.succeed([] as Array<string>))
    )
    if (shadowed.length > 0)
      yield* Effect.logWarning(
        `moderators ${shadowed.join(", ")} are defined in the config file and were added with warden moderator add: the config file's token and role apply`
      )

    /** The stored moderators that count: active, of a known role, not shadowed by the config. */
    const stored = Effect.map(store.active, (rows) =>
      rows.flatMap((r) =>
        names.has(r.name) || !isRole(r.role)
          ? []
          : [
              {
                moderator: { name: r.name, role: r.role, from: "state" } satisfies Moderator,
                digest: Buffer.from(r.tokenHash, "hex")
              }
            ]
      )
    )

    /** The candidate whose digest is `digest`, comparing every one of them whichever matches. */
    const among = (
      digest: Buffer,
      candidates: ReadonlyArray<{ readonly moderator: Moderator; readonly digest: Buffer }>
    ) => {
      let found: Moderator | undefined
      for (const c of candidates) if (sameDigest(digest, c.digest)) found ??= c.moderator
      return found
    }
    const inMemory = [
      { moderator: { name: ADMIN_TOKEN_NAME, role: "admin", from: "token" } satisfies Moderator, digest: shared },
      ...fromConfig
    ]

    // The shared token and the config's moderators are known without the database: /readyz answers
    // (503) with the shared token while the state store is down.
    const identify = (token: string) =>
      Effect.gen(function* () {
        const digest = Buffer.from(hashToken(token), "hex")
        return among(digest, inMemory) ?? among(digest, yield* stored)
      }).pipe(Effect.withSpan("Moderators.identify"))

    const stillActive = (moderator: Moderator) =>
      moderator.from !== "state"
        ? Effect.succeed(true)
        : Effect.map(stored, (list) => list.some((c) => c.moderator.name === moderator.name))

    return Moderators.of({ identify, stillActive, configured: [...names] })
  })

/** Who tokens belong to. */
export class Moderators extends Context.Service<Moderators, ModeratorsShape>()("@warden/daemon/Moderators") {
  /** From the shared token and the config's moderators, on the state's ModeratorStore. */
  static readonly layer = (adminToken: Redacted.Redacted<string>, configured: ReadonlyArray<ConfiguredModerator>) =>
    Layer.effect(Moderators, make(adminToken, configured))
}
