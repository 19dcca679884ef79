import { describe, expect, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import { GUILD } from "./fixtures/FakeDiscord.ts"
import { brief, configOf, ready, fake, GENERAL, OFFTOPIC, run, STAFF, upserts } from "./fixtures/harness.ts"

const ref = (channel: string, id: string) => `discord:${GUILD}/${channel}/${id}`
const BOB = { id: "200000000000000002", username: "bob", global_name: null, avatar: "abc" }
const BOTUSER = { id: "200000000000000009", username: "otherbot", bot: true }

describe("live events", () => {
  it.live("messages, edits, unfurls, deletes, bots, excluded channels and ignored roles", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const f = yield* fake()
        const source = yield* run(configOf(f, { ignoreRoles: ["500000000000000001"] }))
        yield* ready(f)
        const first = f.post(GENERAL, { content: "hello world", author: BOB })
        f.post(GENERAL, { content: "beep", author: BOTUSER })
        f.post(STAFF, { content: "staff only" })
        f.post(OFFTOPIC, { content: "from a staff member", member: { roles: ["500000000000000001"] } })
        f.post(GENERAL, { content: "with a webhook", webhook_id: "900" })
        f.unfurl(GENERAL, first.id)
        f.edit(GENERAL, first.id, "hello edited world")
        f.remove(GENERAL, first.id)
        const last = f.post(OFFTOPIC, { content: "last" })
        yield* source.until(
          (es) => es.some((e) => e.kind === "upsert" && e.reference === ref(OFFTOPIC, last.id)),
          "last"
        )
        const items = source.events.filter((e) => e.kind !== "error")
        expect(items.map(brief)).toEqual([
          `upsert:${ref(GENERAL, first.id)}`,
          `upsert:${ref(GENERAL, first.id)}`,
          `delete:${ref(GENERAL, first.id)}`,
          `upsert:${ref(OFFTOPIC, last.id)}`
        ])
        const [created, edited] = upserts(items)
        expect(created!.content).toEqual({ type: "text", text: "hello world" })
        expect(created!.author).toEqual({
          identifier: BOB.id,
          username: "bob",
          profilePictureUrl: `https://cdn.discordapp.com/avatars/${BOB.id}/abc.png`
        })
        expect(created!.permalink).toBe(`https://discord.com/channels/${GUILD}/${GENERAL}/${first.id}`)
        expect(created!.publishedAt).toBe(first.timestamp)
        expect(edited!.content).toEqual({ type: "text", text: "hello edited world" })
      })
    )
  )

  it.live("attachments, replies, member joins and threads carry their context", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const f = yield* fake()
        const source = yield* run(configOf(f, { memberJoins: true }))
        yield* ready(f)
        const parent = f.post(GENERAL, { content: "question" })
        const reply = f.post(GENERAL, {
          content: "answer",
          type: 19,
          message_reference: { message_id: parent.id, channel_id: GENERAL, guild_id: GUILD }
        })
        const pic = f.post(GENERAL, {
          content: "",
          attachments: [
            {
              id: "700000000000000001",
              url: "https://cdn.example/a.png",
              filename: "a.png",
              content_type: "image/png"
            },
            {
              id: "700000000000000002",
              url: "https://cdn.example/notes.txt",
              filename: "notes.txt",
              content_type: "text/plain"
            }
          ]
        })
        f.memberJoin({ id: "200000000000000005", username: "newbie", global_name: "New Bie" })
        const thread = f.createThread(GENERAL, "Help thread", parent.id)
        const inThread = f.post(thread.id, { content: "in the thread" })
        yield* source.until(
          (es) => es.some((e) => e.kind === "upsert" && e.reference === ref(thread.id, inThread.id)),
          "thread message"
        )
        const byRef = new Map(upserts(source.events).map((e) => [e.reference, e]))
        expect(byRef.get(ref(GENERAL, reply.id))!.thread).toEqual({ parentReference: ref(GENERAL, parent.id) })
        expect(byRef.has(ref(GENERAL, pic.id))).toBe(false)
        const image = byRef.get(`${ref(GENERAL, pic.id)}/attachment/700000000000000001`)!
        expect(image.content).toEqual({ type: "image", url: "https://cdn.example/a.png" })
        expect(image.thread).toEqual({ parentReference: ref(GENERAL, pic.id) })
        expect(byRef.has(`${ref(GENERAL, pic.id)}/attachment/700000000000000002`)).toBe(false)
        const member = byRef.get(`discord:${GUILD}/member/200000000000000005`)!
        expect(member.content).toEqual({ type: "username", username: "New Bie" })
        expect(member.author).toEqual({ identifier: "200000000000000005", username: "newbie" })
        const threaded = byRef.get(ref(thread.id, inThread.id))!
        expect(threaded.thread).toEqual({
          topLevelReference: ref(GENERAL, parent.id),
          parentReference: ref(GENERAL, parent.id)
        })
        expect(threaded.post).toEqual({
          title: "Help thread",
          reference: ref(GENERAL, parent.id),
          permalink: `https://discord.com/channels/${GUILD}/${thread.id}`
        })
      })
    )
  )

  it.live("a malformed payload becomes an error event naming the field, and the stream goes on", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const f = yield* fake()
        const source = yield* run(configOf(f))
        yield* ready(f)
        f.dispatch("MESSAGE_CREATE", {
          id: "1",
          channel_id: GENERAL,
          content: "no author",
          timestamp: "x",
          attachments: []
        })
        const next = f.post(GENERAL, { content: "fine" })
        yield* source.until(
          (es) => es.some((e) => e.kind === "upsert" && e.reference === ref(GENERAL, next.id)),
          "next"
        )
        const error = source.events.find((e) => e.kind === "error")
        expect(error?.kind === "error" && error.message).toMatch(/MESSAGE_CREATE.*author/s)
      })
    )
  )

  it.live("a channel the bot cannot read is one error event naming the permission; the others flow", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const f = yield* fake()
        f.channels.get(OFFTOPIC)!.forbidden = true
        f.post(GENERAL, { content: "before start" })
        const source = yield* run(configOf(f, { history: 10 }))
        // The two channels are read concurrently: wait for both outcomes, whichever comes first.
        yield* source.until(
          (es) => es.some((e) => e.kind === "upsert") && es.some((e) => e.kind === "error"),
          "general history and the off-topic error"
        )
        // One error, not one per retry.
        yield* Effect.sleep("300 millis")
        const errors = source.events.filter((e) => e.kind === "error")
        expect(errors).toHaveLength(1)
        expect(errors[0]!.kind === "error" && errors[0]!.message).toMatch(
          /off-topic.*View Channel and Read Message History.*permissions=\d+/s
        )
        expect(source.exit()).toBeUndefined()
      })
    )
  )
})

describe("gateway down", () => {
  it.live("socket errors are error events counting up; closing the source stops reconnecting", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const f = yield* fake()
        f.gatewayUp = false
        yield* Effect.scoped(
          Effect.gen(function* () {
            const source = yield* run(configOf(f))
            yield* source.until((es) => es.filter((e) => e.kind === "error").length >= 3, "three error events")
            const attempts = source.events.flatMap((e) => (e.kind === "error" ? [e.attempt] : []))
            expect(attempts.slice(0, 3)).toEqual([1, 2, 3])
          })
        )
        const upgrades = f.stats.upgrades
        yield* Effect.sleep("1500 millis")
        f.gatewayUp = true
        yield* Effect.sleep("1000 millis")
        expect(f.stats.upgrades).toBe(upgrades)
        expect(f.liveSockets()).toBe(0)
      })
    )
  )
})

describe("fatal errors name the fix", () => {
  it.live("close 4004 (bad token on the gateway) fails the stream once with Unauthorized", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const f = yield* fake({ gatewayRejectsToken: true })
        const source = yield* run(configOf(f))
        yield* source.until(() => source.exit() !== undefined, "the stream to fail")
        const failure = source.failure()!
        expect(failure.reason).toBe("Unauthorized")
        expect(failure.retryable).toBe(false)
        expect(failure.message).toMatch(/4004.*Reset Token/s)
        expect(failure.message).not.toContain(f.token)
        yield* Effect.sleep("700 millis")
        expect(f.stats.identifies).toBe(1)
      })
    )
  )

  it.live("close 4014 (privileged intents) names the Message Content intent", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const f = yield* fake({ allowedPrivilegedIntents: 0 })
        const source = yield* run(configOf(f, { memberJoins: true }))
        yield* source.until(() => source.exit() !== undefined, "the stream to fail")
        expect(source.failure()!.reason).toBe("InvalidConfig")
        expect(source.failure()!.message).toMatch(/4014.*Message Content Intent and Server Members Intent/s)
        yield* Effect.sleep("700 millis")
        expect(f.stats.identifies).toBe(1)
      })
    )
  )

  it.live("a token rejected by REST (401) fails the stream with Unauthorized, token not shown", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const f = yield* fake()
        const source = yield* run({ ...configOf(f), token: "wrong-token-5678" })
        yield* source.until(() => source.exit() !== undefined, "the stream to fail")
        expect(source.failure()!.reason).toBe("Unauthorized")
        expect(source.failure()!.message).toMatch(/401/)
        expect(String(source.exit())).not.toContain("wrong-token-5678")
        expect(JSON.stringify(source.events)).not.toContain("wrong-token-5678")
      })
    )
  )

  it.live("an unreadable checkpoint fails with InvalidCheckpoint", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const f = yield* fake()
        const source = yield* run(configOf(f), Option.some({ v: 9 }))
        yield* source.until(() => source.exit() !== undefined, "the stream to fail")
        expect(source.failure()!.reason).toBe("InvalidCheckpoint")
      })
    )
  )
})
