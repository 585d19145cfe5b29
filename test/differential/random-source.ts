/**
 * mulberry32, seeded: a small, fast generator of floats in [0, 1) that gives the same sequence
 * for the same seed on every run, so generated cases are the same each time.
 */
export function mulberry32(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** A deterministic random source over {@link mulberry32}: the same seed gives the same sequence. */
export class Random {
  private readonly source: () => number

  constructor(seed: number) {
    this.source = mulberry32(seed)
  }

  /** A float in [0, 1). */
  next(): number {
    return this.source()
  }

  /** An integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1))
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)]
  }

  chance(probability: number): boolean {
    return this.next() < probability
  }
}
