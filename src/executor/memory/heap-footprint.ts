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
/** Share of the gap a falling ratio closes per reading (a rising one closes all of it). */
const FALL_RATE = 1 / 16

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
  /** What a byte of the estimate costs the process; 1 until measured. */
  scale = 1
  /** True while a memory limit is set: only then are statistics read. */
  active = false
  private countdown = MEASURE_EVERY

  constructor(
    private readonly startup: number,
    private readonly read: FootprintReader = v8Footprint,
  ) {}

  /** Turns measuring on or off (a limit set or removed); off, the estimate is used as it is. */
  setActive(active: boolean): void {
    if (active === this.active) return
    this.active = active
    this.scale = 1
    this.countdown = MEASURE_EVERY
  }

  /** `datasetBytes` as the process holds it. */
  scaled(datasetBytes: number): number {
    return this.scale === 1 ? datasetBytes : Math.round(datasetBytes * this.scale)
  }

  /** Called before each memory check: every {@link MEASURE_EVERY} calls, measures again. */
  tick(datasetBytes: number): void {
    if (!this.active || --this.countdown > 0) return
    this.countdown = MEASURE_EVERY
    this.measure(datasetBytes)
  }

  /** Reads the footprint and moves the scale towards footprint / estimate. */
  measure(datasetBytes: number): void {
    if (datasetBytes < MIN_CALIBRATION_BYTES) return
    const held = this.read() - this.startup
    const ratio = Math.min(MAX_SCALE, Math.max(1, held / datasetBytes))
    this.scale = ratio >= this.scale ? ratio : this.scale + (ratio - this.scale) * FALL_RATE
  }
}
