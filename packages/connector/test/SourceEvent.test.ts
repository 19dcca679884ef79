import { assert, describe, it } from "@effect/vitest"
import { Action, ConnectorError, SourceEvent } from "@warden/connector"
import { Exit, Schema } from "effect"

const checkpoint = { v: 1, seen: ["a"] }

describe("SourceEvent", () => {
  it("accepts every kind", () => {
    const events: Array<SourceEvent.SourceEvent> = [
      SourceEvent.upsertText({ reference: "rss:f/1", checkpoint, text: "hi", permalink: "https://x/1" }),
      { kind: "upsert", reference: "r", checkpoint, content: { type: "image", url: "https://x/a.png" } },
      { kind: "upsert", reference: "r", checkpoint: null, content: { type: "image", data: "aGk=" } },
      {
        kind: "upsert",
        reference: "r",
        checkpoint: 3,
        content: { type: "username", username: "bob" },
        author: { username: "bob" },
        post: { title: "t" },
        thread: { parentReference: "p" }
      },
      { kind: "delete", reference: "r", checkpoint },
      { kind: "reversal", reference: "r", checkpoint, action: "hide", by: { username: "mod" } },
      { kind: "report", reference: "r", checkpoint, note: "missed" },
      { kind: "progress", checkpoint },
      { kind: "error", source: "rss", reason: "Unavailable", message: "503", attempt: 1, retryInMillis: 1000 }
    ]
    for (const e of events) assert.isTrue(Exit.isSuccess(SourceEvent.decodeUnknownExit(e)), JSON.stringify(e))
    const not = (is: (e: SourceEvent.SourceEvent) => boolean) => events.filter((e) => !is(e)).map((e) => e.kind)
    assert.deepStrictEqual(not(SourceEvent.isItemEvent), ["progress", "error"])
    // `progress` carries a checkpoint to commit, and no item.
    assert.deepStrictEqual(not(SourceEvent.isPositioned), ["error"])
  })

  it("a progress event needs its checkpoint, as JSON", () => {
    assert.deepStrictEqual(
      SourceEvent.problems({ kind: "progress" }).map((p) => p.field),
      ["checkpoint"]
    )
    assert.deepStrictEqual(SourceEvent.problems({ kind: "progress", checkpoint: { seq: 1n } }), [
      { field: "checkpoint.seq", message: "a bigint is not JSON" }
    ])
  })

  it("rejects a reference over 256 characters, naming the field", () => {
    const exit = SourceEvent.decodeUnknownExit({
      kind: "delete",
      reference: "x".repeat(257),
      checkpoint
    })
    assert.isTrue(Exit.isFailure(exit))
    assert.include(String(exit), "reference")
    assert.isTrue(
      Exit.isSuccess(SourceEvent.decodeUnknownExit({ kind: "delete", reference: "x".repeat(256), checkpoint }))
    )
  })

  it("rejects a non-JSON checkpoint and unknown content", () => {
    assert.isTrue(
      Exit.isFailure(SourceEvent.decodeUnknownExit({ kind: "delete", reference: "r", checkpoint: () => 1 }))
    )
    assert.isTrue(
      Exit.isFailure(
        SourceEvent.decodeUnknownExit({ kind: "upsert", reference: "r", checkpoint, content: { type: "video" } })
      )
    )
  })
})

describe("Action", () => {
  it("kinds are an open enum", () => {
    const decode = Schema.decodeUnknownSync(Action.Action)
    assert.strictEqual(decode({ kind: "hide", reference: "r" }).kind, "hide")
    assert.strictEqual(decode({ kind: "pin", reference: "r", params: { x: 1 } }).kind, "pin")
  })

  it("ActionError carries retryable and a message naming the permission", () => {
    const e = new Action.ActionError({
      kind: "delete",
      reference: "r",
      reason: "PermissionDenied",
      retryable: false,
      message: "needs the MANAGE_MESSAGES permission"
    })
    assert.strictEqual(e._tag, "ActionError")
    assert.strictEqual(e.message, "needs the MANAGE_MESSAGES permission")
  })
})

describe("ConnectorError", () => {
  it("redactUrl drops credentials and the query", () => {
    assert.strictEqual(
      ConnectorError.redactUrl("https://user:secret@example.com/feed?token=abc"),
      "https://example.com/feed?…"
    )
  })
})
