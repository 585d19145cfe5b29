/**
 * What the dataset really costs the process: the ratio of V8's footprint to the dataset's estimate.
 *
 * The per-key estimate (`memory-accounting.ts`) counts the live bytes of keys and values. The
 * process holds more for them: V8 collects the old generation only once it grew past what was
 * live (by 20% under a limit, `heap-growth.ts`), keeps the young generation's semi-spaces (up to
 * 2 x 16 MB) committed, and hash tables grow in steps. Evicting on the estimate alone let the
 * RSS reach twice `maxmemory`. So while a limit is set, the engine reads V8's heap statistics
 * every {@link MEASURE_EVERY} memory checks (0.5 µs a read) and scales the estimate by what
 * the heap grew since the process's first engine, divided by the estimate: `used_memory` then
 * tracks what the process holds, and eviction bounds the RSS, not only the dataset.
 *
 * The ratio rises at once and falls slowly: between two collections the heap climbs a sawtooth,
 * and the bound must hold at its peaks, not on average. It is clamped to [1, {@link MAX_SCALE}]
 * (a heap that keeps freed pages committed must not make eviction empty the database), and it is
 * measured only once the dataset is at least {@link MIN_CALIBRATION_BYTES}: below that, the
 * heap's own noise (the young generation, other objects of the process) outweighs the data.
 * The heap is the process's: with several limited engines in one process, each weighs all of it
 * against its own dataset, which errs towards evicting more, never towards a larger RSS.
 *
 * Two corrections keep small values within the bound (docs/benchmarks.md, memory bound):
 * - Under a limit each key also counts {@link TABLE_CHURN_BYTES}: a V8 Map keeps a deleted entry's
 *   slot until its table is rebuilt, and rebuilds at twice the size while fewer than half the
 *   slots are deleted, so a keyspace whose keys are replaced holds 2 to 4 slots a key in its key
 *   table where the per-key estimate counts about 1.4. (Value and stamp slots are reused.)
 * - Under an evicting policy the scale starts at {@link MAX_SCALE} and holds there until eviction
 *   has replaced the dataset once. While keys are only added, the heap holds little garbage and
 *   the measured ratio is low; the ratio of a keyspace that evicts on every write comes only
 *   after its garbage and rebuilt tables have piled up. Measured from the start, the dataset grew
 *   to twice what it could keep, and its tables stayed sized for that peak after eviction.
 */
import { getHeapStatistics } from 'node:v8'

/** Bytes V8 holds for the process: the heap's committed physical pages and external memory. */
export type FootprintReader = () => number

/** Memory checks between two readings of V8's statistics. */
export const MEASURE_EVERY = 256
/** Smallest dataset estimate the ratio is measured on. */
export const MIN_CALIBRATION_BYTES = 8 * 1024 * 1024
/** Highest ratio of footprint to estimate applied. */
export const MAX_SCALE = 3
/**
 * Share of the gap a falling ratio closes per reading (a rising one closes all of it). Under
 * eviction the heap's sawtooth (a collection of the old generation, a hash table rebuilt) takes
 * tens of thousands of writes; a faster fall (1/16, 1/256) forgot a peak between two and let the
 * dataset regrow, and the regrown keys' eviction made the next peak (docs/benchmarks.md).
 */
const FALL_RATE = 1 / 1024
/** Bytes a key adds under a limit for the slots replaced keys leave in its key table. */
export const TABLE_CHURN_BYTES = 2 * 28

export function v8Footprint(): number {
  const statistics = getHeapStatistics()
  return statistics.total_physical_size + statistics.external_memory
}

let footprintAtFirstEngine: number | undefined

/**
 * The footprint when the process made its first engine, or when it first asked (its startup: the
 * runtime, the bundle, the command table are not the dataset's).
 */
export function startupFootprint(read: FootprintReader = v8Footprint): number {
  footprintAtFirstEngine ??= read()
  return footprintAtFirstEngine
}

export class HeapFootprint {
  /** What a byte of the estimate costs the process once calibrated: 1, or MAX_SCALE while held, until measured. */
  scale = 1
  /** True while a memory limit is set: only then are statistics read. */
  active = false
  /**
   * False until the dataset has reached {@link MIN_CALIBRATION_BYTES} under the limit: until then
   * used_memory is the bare estimate, as without a limit (small limits count keys as Redis does).
   */
  calibrated = false
  /** True while an evicting limit holds the scale at {@link MAX_SCALE} (no reading taken). */
  holding = false
  /** Evictions left before the hold ends; Infinity until the first one. */
  private evictionsToRelease = Infinity
  private countdown = MEASURE_EVERY

  constructor(
    private readonly startup: number,
    private readonly read: FootprintReader = v8Footprint,
  ) {}

  /**
   * Turns measuring on or off (a limit set or removed); off, the estimate is used as it is. With
   * `evicting` (a policy other than noeviction) the scale starts held at {@link MAX_SCALE}.
   */
  setActive(active: boolean, evicting = false): void {
    const hold = active && evicting
    if (active === this.active && hold === this.holding) return
    this.active = active
    this.holding = hold
    this.evictionsToRelease = Infinity
    this.calibrated = false
    this.scale = hold ? MAX_SCALE : 1
    this.countdown = MEASURE_EVERY
  }

  /**
   * Called after each eviction with the keys left: the first one starts counting a turnover of
   * the dataset, and the hold ends once as many keys have been evicted.
   */
  evicted(keysLeft: number): void {
    if (!this.holding || !this.calibrated) return
    if (this.evictionsToRelease === Infinity) this.evictionsToRelease = keysLeft
    if (--this.evictionsToRelease <= 0) this.holding = false
  }

  /** `datasetBytes` of `keys` keys as the process holds it. */
  scaled(datasetBytes: number, keys: number): number {
    if (!this.calibrated) return datasetBytes
    return Math.round((datasetBytes + keys * TABLE_CHURN_BYTES) * this.scale)
  }

  /** Called before each memory check: every {@link MEASURE_EVERY} calls, measures again. */
  tick(datasetBytes: number, keys: number): void {
    if (!this.active) return
    if (!this.calibrated) {
      if (datasetBytes < MIN_CALIBRATION_BYTES) return
      this.calibrated = true
      this.countdown = 1
    }
    if (--this.countdown > 0) return
    this.countdown = MEASURE_EVERY
    this.measure(datasetBytes, keys)
  }

  /** Reads the footprint and moves the scale towards footprint / estimate. */
  measure(datasetBytes: number, keys: number): void {
    if (this.holding || datasetBytes < MIN_CALIBRATION_BYTES) return
    this.calibrated = true
    const held = this.read() - this.startup
    const ratio = Math.min(MAX_SCALE, Math.max(1, held / (datasetBytes + keys * TABLE_CHURN_BYTES)))
    this.scale = ratio >= this.scale ? ratio : this.scale + (ratio - this.scale) * FALL_RATE
  }
}
