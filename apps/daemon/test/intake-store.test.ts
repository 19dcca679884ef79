/**
 * The push sources' intake (state/IntakeStore.ts, migration 0018) on SQLite and PostgreSQL: appends
 * from many callers at once land whole, in seq order, each answered once committed; a source reads
 * only its own rows after a seq and forgets up to one; erasure by reference, author id, author key and
 * username deletes the rows of items received and not yet recorded, and is audited even when nothing
 * else of them is stored. On SQLite, a round's callers wait for its fsync while the next round commits.
 */
import { Deferred, Effect, Fiber } from "effect"
import { describe, expect, it } from "vitest"
import { Erasure } from "../src/state/Erasure.ts"
import { IntakeStore } from "../src/state/IntakeStore.ts"
import { wrapDatasync } from "./support/Datasync.ts"
import { onFreshState, stateBackends } from "./support/StateBackends.ts"

const row = (source: string, reference: string, author?: string, authorName?: string) => ({
  source,
  reference,
  event: JSON.stringify({ reference, content: { type: "text", text: `text of ${reference}` } }),
  author,
  authorName
})

const actor = { name: "cli:test", role: "cli" }

for (const [backend, fresh] of stateBackends()) {
  describe(`the intake on ${backend}`, () => {
    it("appends at once from many callers, in seq order per source; reads after a seq; forgets up to one", () =>
      Effect.runPromise(
        onFreshState(
          fresh,
          Effect.gen(function* () {
            const intake = yield* IntakeStore
            yield* Effect.forEach(
              Array.from({ length: 40 }, (_, i) => i),
              (i) => intake.append([row("a", `a-${i}-1`), row("b", `b-${i}`), row("a", `a-${i}-2`)]),
              { concurrency: "unbounded" }
            )
            const a = yield* intake.after("a", 0, 1000)
            expect(a).toHaveLength(80)
            const seqs = a.map((r) => r.seq)
            expect([...seqs].sort((x, y) => x - y)).toEqual(seqs)
            // each caller's two rows of source a are next to each other in its order
            const refs = a.map((r) => (JSON.parse(r.event) as { reference: string }).reference)
            for (let i = 0; i < refs.length; i += 2) {
              expect(refs[i]!.replace(/-1$/u, "")).toBe(refs[i + 1]!.replace(/-2$/u, ""))
            }
            expect(yield* intake.after("b", 0, 1000)).toHaveLength(40)
            const tenth = seqs[9]!
            expect((yield* intake.after("a", tenth, 5)).map((r) => r.seq)).toEqual(seqs.slice(10, 15))
            yield* intake.forget("a", tenth)
            expect((yield* intake.after("a", 0, 1000)).map((r) => r.seq)).toEqual(seqs.slice(10))
            expect(yield* intake.after("b", 0, 1000)).toHaveLength(40)
          })
        )
      ))

    it("erasure deletes the received rows of a reference, an author, an author key, a username", () =>
      Effect.runPromise(
        onFreshState(
          fresh,
          Effect.gen(function* () {
            const intake = yield* IntakeStore
            const erasure = yield* Effect.provide(Effect.service(Erasure), Erasure.layer)
            yield* intake.append([
              row("site", "r-1", "u-1", "ada"),
              row("site", "r-2", "u-2", "bob"),
              row("site", "r-3", "u-3", "cy"),
              row("site", "r-4", "u-4", "dee"),
              row("other", "r-1", "u-9", "eve"),
              row("site", "r-5", "u-5", "fay")
            ])
            const left = (source: string) =>
              Effect.map(intake.after(source, 0, 100), (rows) =>
                rows.map((r) => (JSON.parse(r.event) as { reference: string }).reference)
              )
            const byReference = yield* erasure.erase({ _tag: "Reference", reference: "r-1", source: "site" }, actor)
            expect(byReference.counts.intake).toBe(1)
            expect(byReference.audit).not.toBeNull()
            expect(yield* left("other")).toEqual(["r-1"])
            expect((yield* erasure.erase({ _tag: "Author", author: "u-2" }, actor)).counts.intake).toBe(1)
            expect(
              (yield* erasure.erase({ _tag: "AuthorKey", key: "http:u-3", sources: ["site"] }, actor)).counts.intake
            ).toBe(1)
            expect(
              (yield* erasure.erase({ _tag: "Username", username: "dee", source: "site" }, actor)).counts.intake
            ).toBe(1)
            expect(yield* left("site")).toEqual(["r-5"])
            // nothing stored under a selector: nothing erased, nothing audited
            expect((yield* erasure.erase({ _tag: "Reference", reference: "r-404" }, actor)).audit).toBeNull()
          })
        )
      ))
  })
}

/**
 * Holds every `FileHandle.datasync` of the process (the WAL's group fsync) until `release`; counts the
 * ones started. Undone with the scope.
 */
const heldDatasync = Effect.gen(function* () {
  let release = () => {}
  const gate = new Promise<void>((resolve) => {
    release = resolve
  })
  let started = 0
  yield* wrapDatasync(
    (original) =>
      async function () {
        started++
        await gate
        return original.call(this)
      }
  )
  // Let a held sync end at the scope's close, whatever the test did.
  yield* Effect.addFinalizer(() => Effect.sync(() => release()))
  return { started: () => started, release: () => release() }
})

describe("the intake's writer on SQLite", () => {
  const [, fresh] = stateBackends()[0]!
  it("commits the next round while the last round's fsync runs; each caller is answered after an fsync", () =>
    Effect.runPromise(
      onFreshState(
        fresh,
        Effect.gen(function* () {
          const intake = yield* IntakeStore
          const sync = yield* heldDatasync
          const first = yield* Effect.forkChild(intake.append([row("a", "r-1")]))
          yield* Effect.promise(() => expect.poll(() => sync.started()).toBe(1))
          // The first round's fsync is held: the second round still commits (a reader sees its row).
          const secondAnswered = yield* Deferred.make<void>()
          const second = yield* Effect.forkChild(
            Effect.andThen(intake.append([row("a", "r-2")]), Deferred.succeed(secondAnswered, undefined))
          )
          yield* Effect.promise(() =>
            expect.poll(() => Effect.runPromise(Effect.map(intake.after("a", 0, 10), (rows) => rows.length))).toBe(2)
          )
          expect(yield* Deferred.isDone(secondAnswered), "answered before any fsync ended").toBe(false)
          sync.release()
          yield* Fiber.join(first)
          yield* Fiber.join(second)
          expect(sync.started()).toBe(2)
        })
      )
    ))
})
