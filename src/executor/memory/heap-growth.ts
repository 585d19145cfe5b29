/**
 * What makes `maxmemory` bound the process and not only the dataset: V8's heap growth.
 *
 * Eviction keeps the live data near the limit, but V8 collects the old generation only once it
 * has grown by a factor of what was live after the last full collection, a factor its heuristics
 * set between 1.1 and 4 (higher the faster the process allocates). An engine whose values
 * keep being replaced and evicted allocates fast, so by default the RSS reached 3.8x the limit
 * (peak 5.3x) after writing 10x maxmemory (docs/benchmarks.md, memory bound). V8's
 * `--heap-growing-percent` fixes the factor, and V8 reads it at each collection, so setting it at
 * run time (`v8.setFlagsFromString`) takes effect from the next one.
 *
 * Measured and left to the operator as node flags (README): `--semi-space-growth-factor=1` (a young generation
 * that keeps its size) takes the RSS further down but costs SET a fifth of its speed;
 * `--optimize-for-size` further still, for more.
 *
 * While any engine of the process has a `maxmemory`, the flag is set; when none has one any
 * more, V8's default is restored. A flag the process was started with (in its arguments or in
 * NODE_OPTIONS) is left alone: the operator chose it.
 */
import { setFlagsFromString } from 'node:v8'

interface Tuning {
  /** The flag's name, dashes. */
  readonly flag: string
  /** Its value while an engine has a limit. */
  readonly bounded: number
  /** V8's default, restored after. */
  readonly unbounded: number
}

/**
 * Chosen with `bench/memory-bound.mjs` and `bench/access-clock.mjs` (docs/benchmarks.md): the
 * old generation is collected at 1.2x what was live, for no measurable cost on GET or SET.
 */
export const HEAP_TUNING: readonly Tuning[] = [{ flag: '--heap-growing-percent', bounded: 20, unbounded: 0 }]

/** Engines with a memory limit in force. */
const bounded = new Set<object>()

/** Whether the process was started with `flag` (V8 takes dashes or underscores). */
function givenAtStart(flag: string): boolean {
  const spellings = [flag, `--${flag.slice(2).replaceAll('-', '_')}`]
  const given = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)]
  return given.some((arg) => spellings.some((spelling) => arg === spelling || arg.startsWith(`${spelling}=`)))
}

const tunable = HEAP_TUNING.filter((tuning) => !givenAtStart(tuning.flag))

/** Notes whether `engine` has a memory limit, and sets V8's heap growth to match. */
export function boundHeapGrowth(engine: object, limited: boolean): void {
  const wasBounded = bounded.size !== 0
  if (limited) bounded.add(engine)
  else bounded.delete(engine)
  const isBounded = bounded.size !== 0
  if (wasBounded === isBounded) return
  for (const tuning of tunable) setFlagsFromString(`${tuning.flag}=${isBounded ? tuning.bounded : tuning.unbounded}`)
}

/** The flags this module has set now (tests, INFO): none while no engine has a limit. */
export function heapFlagsInForce(): string[] {
  return bounded.size === 0 ? [] : tunable.map((tuning) => `${tuning.flag}=${tuning.bounded}`)
}
