/**
 * The records of the legacy batch endpoint: one per (channel, reference). Sending a reference again
 * on the same channel updates that record (its `version` grows) instead of creating one.
 */
import type { LegacyAnalysis, LegacyContext } from "@warden/core"

/** One legacy record. */
export interface LegacyRecord {
  readonly channelUuid: string
  readonly reference: string
  readonly text: string
  readonly context: LegacyContext | undefined
  readonly analysis: (typeof LegacyAnalysis)["Encoded"]
  /** 1 on creation, +1 on each update. */
  readonly version: number
  readonly createdAt: string
  readonly updatedAt: string
}

/** The records, by channel and reference. */
export class LegacyStore {
  private byChannel = new Map<string, Map<string, LegacyRecord>>()
  /** Creates or updates the record of `reference` on `channelUuid`. */
  upsert(
    channelUuid: string,
    reference: string,
    text: string,
    context: LegacyContext | undefined,
    analysis: (typeof LegacyAnalysis)["Encoded"],
    at: string
  ): LegacyRecord {
    let channel = this.byChannel.get(channelUuid)
    if (channel === undefined) {
      channel = new Map()
      this.byChannel.set(channelUuid, channel)
    }
    const previous = channel.get(reference)
    const record: LegacyRecord = {
      channelUuid,
      reference,
      text,
      context,
      analysis,
      version: (previous?.version ?? 0) + 1,
      createdAt: previous?.createdAt ?? at,
      updatedAt: at
    }
    channel.set(reference, record)
    return record
  }
  /** Every record, optionally of one channel. */
  list(channelUuid?: string): ReadonlyArray<LegacyRecord> {
    if (channelUuid !== undefined) return [...(this.byChannel.get(channelUuid)?.values() ?? [])]
    return [...this.byChannel.values()].flatMap((c) => [...c.values()])
  }
  /** Forgets everything. */
  clear(): void {
    this.byChannel = new Map()
  }
}
