import { describe, expect, it } from "@effect/vitest"
import type { SourceEvent } from "@warden/connector"
import { Effect, Option } from "effect"
import { sortPage } from "../src/Backfill.ts"
import { GUILD } from "./fixtures/FakeDiscord.ts"
import { configOf, fake, GENERAL, lastCheckpoint, OFFTOPIC, ready, run, upserts } from "./fixtures/harness.ts"

const ref = (channel: string, id: string) => `discord:${GUILD}/${channel}/${id}`
const idOf = (e: SourceEvent.Upsert) => e.reference.split("/").at(-1)!

describe("backfill", () => {
  it("sorts pages by id and drops repeated ids", () => {
    expect(sortPage([{ id: "30" }, { id: "100" }, { id: "9" }, { id: "30" }]).map((m) => m.id)).toEqual([
      "9",
      "30",
      "100"
    ])
  })

  it.live(
    "messages posted while stopped arrive after restart (session resumed, then backfill), once, in id order, threads included",
    () =>
      Effect.scoped(
        Effect.gen(function* () {
          const f = yield* fake()
          const config = configOf(f)
          const thread = f.createThread(GENERAL, "old thread")
          // First run: sees live messages, then stops.
          const checkpoint = yield* Effect.scoped(
            Effect.gen(function* () {
              const first = yield* run(config)
              yield* ready(f)
              const a = f.post(GENERAL, { content: "before stop" })
              f.post(thread.id, { content: "thread before stop" })
              yield* first.until(
                (es) => upserts(es).some((e) => e.reference === ref(GENERAL, a.id)) && upserts(es).length >= 2,
                "first run"
              )
              expect(upserts(first.events)).toHaveLength(2)
              return lastCheckpoint(first.events)
            })
          )
          // While stopped: 230 messages in general (three pages), some in off-topic, the old and a new thread.
          const general = Array.from({ length: 230 }, (_, i) => f.post(GENERAL, { content: `missed ${i}` }).id)
          const offtopic = [f.post(OFFTOPIC, { content: "missed ot" }).id]
          const inOld = [f.post(thread.id, { content: "missed in old thread" }).id]
          const fresh = f.createThread(OFFTOPIC, "new thread")
          const inNew = [f.post(fresh.id, { content: "missed in new thread" }).id]
          // The gateway session of the first run was closed with 4200: the fake replays these on RESUME too.
          const second = yield* run(config, Option.some(JSON.parse(JSON.stringify(checkpoint))))
          const total = general.length + offtopic.length + inOld.length + inNew.length
          yield* second.until((es) => upserts(es).length >= total, `${total} backfilled`)
          yield* Effect.sleep("500 millis")
          const got = upserts(second.events)
          expect(got).toHaveLength(total)
          expect(new Set(got.map((e) => e.reference)).size).toBe(total)
          const ids = (channel: string) =>
            got.filter((e) => e.reference.startsWith(`discord:${GUILD}/${channel}/`)).map(idOf)
          expect(ids(GENERAL)).toEqual(general)
          expect(ids(OFFTOPIC)).toEqual(offtopic)
          expect(ids(thread.id)).toEqual(inOld)
          expect(ids(fresh.id)).toEqual(inNew)
          expect(f.stats.resumes).toBe(1)
        })
      )
  )

  it.live("without a resumable session (invalid session), a restart backfills by REST alone, paged", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const f = yield* fake()
        const config = configOf(f)
        const checkpoint = yield* Effect.scoped(
          Effect.gen(function* () {
            const first = yield* run(config)
            yield* ready(f)
            f.post(GENERAL, { content: "seen" })
            yield* first.until((es) => upserts(es).length >= 1, "first run")
            return lastCheckpoint(first.events) as { session?: { id: string } }
          })
        )
        const general = Array.from({ length: 230 }, () => f.post(GENERAL).id)
        const offtopic = [f.post(OFFTOPIC).id]
        const fresh = f.createThread(OFFTOPIC, "new thread")
        const inNew = [f.post(fresh.id).id, f.post(fresh.id).id]
        const broken = { ...checkpoint, session: { ...checkpoint.session!, id: "session-unknown" } }
        const pagesBefore = f.requests.filter((r) => r.path === `/channels/${GENERAL}/messages`).length
        const second = yield* run(config, Option.some(broken))
        const total = general.length + offtopic.length + inNew.length
        yield* second.until((es) => upserts(es).length >= total, "backfill")
        yield* Effect.sleep("300 millis")
        const got = upserts(second.events)
        expect(got).toHaveLength(total)
        const ids = (channel: string) =>
          got.filter((e) => e.reference.startsWith(`discord:${GUILD}/${channel}/`)).map(idOf)
        expect(ids(GENERAL)).toEqual(general)
        expect(ids(OFFTOPIC)).toEqual(offtopic)
        expect(ids(fresh.id)).toEqual(inNew)
        // 230 messages after the high-water: pages of 100, 100 and 30.
        expect(f.requests.filter((r) => r.path === `/channels/${GENERAL}/messages`).length - pagesBefore).toBe(3)
        expect(f.stats.identifies).toBe(2)
      })
    )
  )

  it.live("live messages queued while a backfill reads the same messages are not emitted twice", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const f = yield* fake()
        f.post(GENERAL, { content: "history" })
        f.delays.push({ method: "GET", path: new RegExp(`^/channels/${GENERAL}/messages$`), ms: 400 })
        const source = yield* run(configOf(f, { history: 5 }))
        // Posted while the backfill request waits: dispatched live (queued) and also in the REST answer.
        yield* source.until(() => f.stats.identifies >= 1, "identify")
        yield* Effect.sleep("150 millis")
        const during = [f.post(GENERAL).id, f.post(GENERAL).id]
        const after = f.post(OFFTOPIC).id
        yield* source.until((es) => upserts(es).some((e) => idOf(e) === after), "the message after")
        yield* Effect.sleep("300 millis")
        const ids = upserts(source.events).map(idOf)
        expect(ids.filter((id) => during.includes(id))).toEqual(during)
        expect(new Set(ids).size).toBe(ids.length)
      })
    )
  )

  it.live("a fresh start (history 0) emits what is posted after READY, even while the first REST read is pending", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const f = yield* fake()
        const old = f.post(GENERAL, { content: "before the start" }).id
        f.delays.push({ method: "GET", path: new RegExp(`^/channels/${GENERAL}/messages$`), ms: 400 })
        const source = yield* run(configOf(f))
        yield* ready(f)
        const during = f.post(GENERAL).id
        yield* source.until((es) => upserts(es).some((e) => idOf(e) === during), "the message posted during the read")
        yield* Effect.sleep("500 millis")
        expect(upserts(source.events).map(idOf)).toEqual([during])
        expect(old).not.toBe(during)
      })
    )
  )

  it.live("a failing channel read is retried with error events counting up, then the messages come", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const f = yield* fake()
        const ids = [f.post(GENERAL).id, f.post(GENERAL).id]
        // @discordjs/rest retries a 5xx once by itself: 4 faults = 2 failed reads.
        f.faults.push({ method: "GET", path: new RegExp(`^/channels/${GENERAL}/messages$`), status: 500, times: 4 })
        const source = yield* run(configOf(f, { history: 5 }))
        yield* source.until((es) => upserts(es).length >= 2, "the messages")
        const errors = source.events.filter((e) => e.kind === "error")
        expect(errors.map((e) => (e.kind === "error" ? [e.reason, e.attempt] : []))).toEqual([
          ["Unavailable", 1],
          ["Unavailable", 2]
        ])
        expect(upserts(source.events).map(idOf)).toEqual(ids)
      })
    )
  )

  it.live("a forced gateway close resumes: messages posted meanwhile are replayed, none lost or doubled", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const f = yield* fake()
        const source = yield* run(configOf(f))
        yield* ready(f)
        const posted = [f.post(GENERAL).id]
        f.closeGateway(4000)
        posted.push(f.post(GENERAL).id, f.post(OFFTOPIC).id)
        yield* source.until(() => f.stats.resumes >= 1, "a RESUME")
        posted.push(f.post(GENERAL).id)
        yield* source.until((es) => upserts(es).length >= posted.length, "all messages")
        yield* Effect.sleep("500 millis")
        expect(upserts(source.events).map(idOf)).toEqual(posted)
        expect(f.stats.identifies).toBe(1)
        expect(source.events.some((e) => e.kind === "error" && /4000/.test(e.message))).toBe(true)
      })
    )
  )

  it.live("history: starting without a checkpoint reads the last N messages of each channel", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const f = yield* fake()
        const all = Array.from({ length: 7 }, () => f.post(GENERAL).id)
        const source = yield* run(configOf(f, { history: 3 }))
        yield* source.until((es) => upserts(es).length >= 3, "history")
        yield* Effect.sleep("300 millis")
        expect(upserts(source.events).map(idOf)).toEqual(all.slice(4))
      })
    )
  )
})
