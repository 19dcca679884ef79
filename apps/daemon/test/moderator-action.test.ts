/** What the console's Restore / Remove offer, from Warden's recorded actions and the connector's kinds. */
import { describe, expect, it } from "vitest"
import * as ModeratorAction from "../src/admin/ModeratorAction.ts"
import type { ActionRow } from "../src/domain/Action.ts"

const action = (seq: number, kind: string, status = "done", version = 1): ActionRow => ({
  source: "s",
  reference: "r",
  version,
  seq,
  rule: "rule",
  kind,
  params: null,
  reason: null,
  status,
  attempts: 1,
  lastError: null
})

const ALL = ["hide", "delete", "restore", "timeoutAuthor"]

describe("Restore / Remove", () => {
  it("offers Restore after Warden's hide, Remove once restored, and neither after a delete", () => {
    expect(ModeratorAction.available(ALL, [action(1, "hide"), action(2, "timeoutAuthor")], 1)).toEqual(["restore"])
    expect(ModeratorAction.available(ALL, [action(1, "hide"), action(2, "restore")], 1)).toEqual(["remove"])
    expect(ModeratorAction.available(ALL, [action(1, "delete")], 1)).toEqual([])
    expect(ModeratorAction.removalInForce([action(1, "hide"), action(2, "timeoutAuthor")], 1)).toBe("hide")
  })

  it("counts only the item version's done actions, and waits while one is pending", () => {
    expect(ModeratorAction.available(ALL, [action(1, "hide", "failed")], 1)).toEqual(["remove"])
    expect(ModeratorAction.available(ALL, [action(1, "hide", "done", 1)], 2)).toEqual(["remove"])
    expect(ModeratorAction.available(ALL, [action(1, "hide", "pending")], 1)).toEqual([])
  })

  it("offers only what the connector declares; Remove takes the mildest removal", () => {
    expect(ModeratorAction.available(["hide"], [action(1, "hide")], 1)).toEqual([])
    expect(ModeratorAction.available(["timeoutAuthor"], [], 1)).toEqual([])
    expect(ModeratorAction.removalKind(["delete", "holdForReview"])).toBe("holdForReview")
    expect(ModeratorAction.removalKind(["delete"])).toBe("delete")
  })
})
