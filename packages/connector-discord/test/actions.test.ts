import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { maxTimeoutSeconds } from "../src/DiscordActions.ts"
import { GUILD } from "./fixtures/FakeDiscord.ts"
import { configOf, fake, GENERAL, MOD_ROLE, MODLOG, ready, run, readySource, upserts } from "./fixtures/harness.ts"

const ref = (channel: string, id: string) => `discord:${GUILD}/${channel}/${id}`
const ALICE = "200000000000000001"
const MOD = { id: "200000000000000007", username: "mod" }
const MEMBER = { id: "200000000000000008", username: "member" }
const verdict = { type: "harmful", severity: "high", classifications: [{ name: "insult", score: 0.97 }, "threat"] }

describe("actions", () => {
  it.live("delete, timeoutAuthor, react, modLog and kick are recorded by Discord with their reason", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const { f, source } = yield* readySource()
        const m1 = f.post(GENERAL, { content: "you are awful" })
        const m2 = f.post(GENERAL, { content: "borderline" })
        yield* source.until((es) => upserts(es).length >= 2, "two messages")
        const reason = "harmful: insult (0.97)"

        expect(yield* source.act({ kind: "delete", reference: ref(GENERAL, m1.id), reason })).toEqual({
          status: "done"
        })
        const timeout = yield* source.act({
          kind: "timeoutAuthor",
          reference: ref(GENERAL, m2.id),
          reason,
          params: { durationSeconds: 600 }
        })
        expect(timeout).toEqual({ status: "done" })
        const capped = yield* source.act({
          kind: "timeoutAuthor",
          reference: `discord:${GUILD}/member/${ALICE}`,
          params: { durationSeconds: 60 * 24 * 3600 }
        })
        expect(capped.detail).toMatch(/28 days/)
        expect(yield* source.act({ kind: "react", reference: ref(GENERAL, m2.id), params: { emoji: "⚠️" } })).toEqual({
          status: "done"
        })
        const log = yield* source.act({ kind: "modLog", reference: ref(GENERAL, m2.id), reason, params: { verdict } })
        expect(log.status).toBe("done")
        expect(log.platformReference).toMatch(/^\d+$/)
        expect(yield* source.act({ kind: "kick", reference: `discord:${GUILD}/member/${ALICE}`, reason })).toEqual({
          status: "done"
        })

        const [del, patch, patchCapped, put, post, kick] = f.recorded
        expect(del).toMatchObject({
          method: "DELETE",
          path: `/channels/${GENERAL}/messages/${m1.id}`,
          reason: `Warden: ${reason}`
        })
        expect(patch).toMatchObject({
          method: "PATCH",
          path: `/guilds/${GUILD}/members/${ALICE}`,
          reason: `Warden: ${reason}`
        })
        const until = Date.parse((patch!.body as { communication_disabled_until: string }).communication_disabled_until)
        expect(until - Date.now()).toBeGreaterThan(590_000)
        expect(until - Date.now()).toBeLessThan(610_000)
        const cappedUntil = Date.parse(
          (patchCapped!.body as { communication_disabled_until: string }).communication_disabled_until
        )
        expect(Math.abs(cappedUntil - Date.now() - maxTimeoutSeconds * 1000)).toBeLessThan(10_000)
        expect(put).toMatchObject({ method: "PUT", path: `/channels/${GENERAL}/messages/${m2.id}/reactions/⚠️/@me` })
        expect(post).toMatchObject({ method: "POST", path: `/channels/${MODLOG}/messages` })
        const text = (post!.body as { content: string }).content
        expect(text).toContain("harmful (severity high)")
        expect(text).toContain("Classifications: insult (0.97), threat")
        expect(text).toContain(`https://discord.com/channels/${GUILD}/${GENERAL}/${m2.id}`)
        expect(text).toContain(`Reference: ${ref(GENERAL, m2.id)}`)
        expect(text).toContain(`Reason: ${reason}`)
        expect(kick).toMatchObject({
          method: "DELETE",
          path: `/guilds/${GUILD}/members/${ALICE}`,
          reason: `Warden: ${reason}`
        })
        // The deleted message comes back as a delete event.
        yield* source.until(
          (es) => es.some((e) => e.kind === "delete" && e.reference === ref(GENERAL, m1.id)),
          "delete event"
        )
      })
    )
  )

  it.live("a 429 is retried after Retry-After; a 403 names the missing permission; a 404 is notFound", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const { f, source } = yield* readySource()
        const m = f.post(GENERAL, { content: "x" })
        f.faults.push({ method: "DELETE", path: /\/messages\//, status: 429, times: 1, retryAfterSeconds: 1 })
        const started = Date.now()
        expect(yield* source.act({ kind: "delete", reference: ref(GENERAL, m.id) })).toEqual({ status: "done" })
        expect(Date.now() - started).toBeGreaterThanOrEqual(900)
        expect(f.requests.filter((r) => r.method === "DELETE").map((r) => r.status)).toEqual([429, 204])

        const other = f.post(GENERAL, { content: "y" })
        f.faults.push({
          method: "DELETE",
          path: /\/messages\//,
          status: 403,
          times: 1,
          code: 50013,
          message: "Missing Permissions"
        })
        const denied = yield* Effect.flip(source.act({ kind: "delete", reference: ref(GENERAL, other.id) }))
        expect(denied.reason).toBe("PermissionDenied")
        expect(denied.retryable).toBe(false)
        expect(denied.message).toMatch(/Manage Messages \(MANAGE_MESSAGES\)/)
        f.faults.push({
          method: "PATCH",
          path: /\/members\//,
          status: 403,
          times: 1,
          code: 50013,
          message: "Missing Permissions"
        })
        const timeout = yield* Effect.flip(source.act({ kind: "timeoutAuthor", reference: ref(GENERAL, other.id) }))
        expect(timeout.message).toMatch(/MODERATE_MEMBERS/)

        expect(yield* source.act({ kind: "delete", reference: ref(GENERAL, "999") })).toMatchObject({
          status: "notFound"
        })
        const unsupported = yield* Effect.flip(source.act({ kind: "hide", reference: ref(GENERAL, other.id) }))
        expect(unsupported.reason).toBe("Unsupported")
        const invalid = yield* Effect.flip(source.act({ kind: "delete", reference: "rss:x/y" }))
        expect(invalid.reason).toBe("Invalid")
      })
    )
  )
})

describe("feedback from the community", () => {
  it.live("a moderator's not-harmful reaction on an acted message or its mod-log post is a reversal", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const { f, source } = yield* readySource()
        const m1 = f.post(GENERAL, { content: "flagged one" })
        const m2 = f.post(GENERAL, { content: "flagged two" })
        const kept = f.post(GENERAL, { content: "never acted on" })
        yield* source.until((es) => upserts(es).length >= 3, "messages")
        yield* source.act({ kind: "react", reference: ref(GENERAL, m1.id), params: { emoji: "⚠️" } })
        const log = yield* source.act({ kind: "modLog", reference: ref(GENERAL, m2.id), params: { verdict } })
        f.react(GENERAL, kept.id, MOD, "✅", [MOD_ROLE])
        f.react(GENERAL, m1.id, MEMBER, "✅", [])
        f.react(GENERAL, m1.id, MOD, "✅", [MOD_ROLE])
        f.react(MODLOG, log.platformReference!, MOD, "✅", [MOD_ROLE])
        yield* source.until((es) => es.filter((e) => e.kind === "reversal").length >= 2, "two reversals")
        yield* Effect.sleep("300 millis")
        const reversals = source.events.filter((e) => e.kind === "reversal")
        expect(reversals).toHaveLength(2)
        expect(reversals[0]).toMatchObject({
          reference: ref(GENERAL, m1.id),
          action: "react",
          by: { identifier: MOD.id, username: "mod" }
        })
        expect(reversals[1]).toMatchObject({ reference: ref(GENERAL, m2.id), by: { identifier: MOD.id } })
      })
    )
  )

  it.live("a reversal on a mod-log post Warden no longer remembers reads the reference from the post", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const f = yield* fake()
        const m = f.post(GENERAL, { content: "flagged" })
        const post = yield* Effect.scoped(
          Effect.gen(function* () {
            const first = yield* run(configOf(f))
            yield* ready(f)
            return yield* first.act({ kind: "modLog", reference: ref(GENERAL, m.id), params: { verdict } })
          })
        )
        const source = yield* run(configOf(f))
        yield* ready(f)
        yield* source.until(() => f.stats.identifies >= 2, "second session")
        f.react(MODLOG, post.platformReference!, MOD, "✅", [MOD_ROLE])
        yield* source.until((es) => es.some((e) => e.kind === "reversal"), "reversal")
        expect(source.events.find((e) => e.kind === "reversal")).toMatchObject({ reference: ref(GENERAL, m.id) })
      })
    )
  )

  it.live("a member's report reaction on a kept message is one report per item", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const { f, source } = yield* readySource()
        const kept = f.post(GENERAL, { content: "slipped through" })
        const acted = f.post(GENERAL, { content: "already handled" })
        yield* source.until((es) => upserts(es).length >= 2, "messages")
        yield* source.act({ kind: "react", reference: ref(GENERAL, acted.id), params: { emoji: "⚠️" } })
        f.react(GENERAL, kept.id, MEMBER, "🚩")
        f.react(GENERAL, kept.id, { id: "200000000000000010", username: "other" }, "🚩")
        f.react(GENERAL, acted.id, MEMBER, "🚩")
        f.react(GENERAL, kept.id, MEMBER, "👍")
        const marker = f.post(GENERAL, { content: "marker" })
        yield* source.until(
          (es) => es.some((e) => e.kind === "upsert" && e.reference === ref(GENERAL, marker.id)),
          "marker"
        )
        const reports = source.events.filter((e) => e.kind === "report")
        expect(reports).toHaveLength(1)
        expect(reports[0]).toMatchObject({ reference: ref(GENERAL, kept.id), by: { identifier: MEMBER.id } })
        expect(reports[0]!.kind === "report" && reports[0]!.note).toMatch(/🚩.*#general/)
      })
    )
  )
})
