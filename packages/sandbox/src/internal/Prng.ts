/** A small seeded PRNG (mulberry32): reproducible fault decisions from a seed. */
export interface Prng {
  /** A number in [0, 1). */
  readonly next: () => number
}

/** A PRNG from a 32-bit seed. */
export const make = (seed: number): Prng => {
  let state = seed >>> 0
  return {
    next: () => {
      state = (state + 0x6d2b79f5) >>> 0
      let t = state
      t = Math.imul(t ^ (t >>> 15), t | 1)
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296
    }
  }
}
