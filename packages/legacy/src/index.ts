/**
 * `@warden/legacy`: the legacy batch endpoint for any number of messages — local checks, chunks of at
 * most 100, and one merged `{ data, errors }` with positions in the caller's array.
 */
export * as LegacyBatch from "./LegacyBatch.ts"
