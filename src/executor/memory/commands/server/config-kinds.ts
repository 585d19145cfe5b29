/**
 * The kinds of CONFIG parameters and the checks CONFIG SET applies to each, with Redis 7.0's
 * error texts (the part after `CONFIG SET failed (possibly related to argument '…') - `): yes/no
 * booleans, strict integers with bounds, memory values with units, enums, free text, and the
 * parameters with a syntax of their own (save, notify-keyspace-events, client-output-buffer-limit …).
 */
import { formatEventClasses, parseEventClasses } from '../../notify.js'
import { readInt64 } from '../../lib/numbers.js'

/** Why CONFIG SET refused a value: the text after `CONFIG SET failed (…) - `. */
export class InvalidValue {
  constructor(readonly reason: string) {}
}

/** How a parameter may be changed at run time (Redis's IMMUTABLE_CONFIG / PROTECTED_CONFIG). */
export type Access = 'mutable' | 'immutable' | 'protected'

export interface Parameter {
  /** The canonical (lowercase) name, the key in `engine.config`. */
  readonly name: string
  /** The older name Redis still accepts and lists (`slave-priority` for `replica-priority`). */
  readonly alias?: string
  readonly defaultValue: string
  readonly access: Access
  /** Checks a CONFIG SET value: the text CONFIG GET will show, or why it is refused. */
  readonly parse: (value: string, current: string) => string | InvalidValue
}

export const INT_MAX = 2147483647n
export const INT_MIN = -2147483648n
export const LLONG_MAX = 9223372036854775807n
export const ULLONG_MAX = 18446744073709551615n
export const UINT_MAX = 4294967295n

export function define(name: string, defaultValue: string, parse: Parameter['parse'], alias?: string, access: Access = 'mutable'): Parameter {
  return alias === undefined ? { name, defaultValue, access, parse } : { name, alias, defaultValue, access, parse }
}

const acceptAny = (value: string): string => value
const refuse = (): InvalidValue => new InvalidValue('unreachable')

export function bool(name: string, defaultValue: 'yes' | 'no', alias?: string): Parameter {
  return define(name, defaultValue, (value) => {
    const lower = value.toLowerCase()
    return lower === 'yes' || lower === 'no' ? lower : new InvalidValue("argument must be 'yes' or 'no'")
  }, alias)
}

export function text(name: string, defaultValue: string, alias?: string): Parameter {
  return define(name, defaultValue, acceptAny, alias)
}

/** Parameters CONFIG SET refuses outright; their values only change with a restart in Redis. */
export function immutable(name: string, defaultValue: string, alias?: string): Parameter {
  return define(name, defaultValue, refuse, alias, 'immutable')
}

/** Parameters Redis refuses unless `enable-protected-configs` allows it (never, here). */
export function protectedParameter(name: string, defaultValue: string): Parameter {
  return define(name, defaultValue, refuse, undefined, 'protected')
}

export function oneOf(name: string, defaultValue: string, values: readonly string[]): Parameter {
  const reason = `argument(s) must be one of the following: ${values.join(', ')}`
  return define(name, defaultValue, (value) => {
    const lower = value.toLowerCase()
    return values.includes(lower) ? lower : new InvalidValue(reason)
  })
}

function outOfRange(min: bigint, max: bigint): InvalidValue {
  return new InvalidValue(`argument must be between ${min} and ${max} inclusive`)
}

/** A plain integer: string2ll's strict syntax, then the parameter's bounds. */
export function integer(name: string, defaultValue: string, min: bigint, max: bigint, alias?: string): Parameter {
  return define(name, defaultValue, (value) => {
    const parsed = readInt64(value)
    if (parsed === null) return new InvalidValue("argument couldn't be parsed into an integer")
    if (parsed < min || parsed > max) return outOfRange(min, max)
    return parsed.toString()
  }, alias)
}

/**
 * `busy-reply-threshold` (alias `lua-time-limit`): Redis's range, except 0. The in-memory engine
 * stops a script at the limit, so 0 would stop every script.
 */
export function scriptTimeLimit(): Parameter {
  const range = integer('busy-reply-threshold', '5000', 0n, LLONG_MAX, 'lua-time-limit')
  return define(range.name, range.defaultValue, (value, current) => {
    const parsed = range.parse(value, current)
    if (parsed === '0') return new InvalidValue('0 is not supported: the in-memory engine stops a script at this limit, so 0 would stop every script')
    return parsed
  }, range.alias)
}

const MEMORY_UNITS: ReadonlyMap<string, bigint> = new Map([
  ['', 1n], ['b', 1n], ['k', 1000n], ['kb', 1024n], ['m', 1000n ** 2n], ['mb', 1024n ** 2n], ['g', 1000n ** 3n], ['gb', 1024n ** 3n],
])

/**
 * Redis's `memtoull`: digits then an optional unit (`b k kb m mb g gb`, any case). Like the C
 * code, an overlong number saturates (strtoull) and the unit product wraps modulo 2^64; no digits
 * at all reads as 0.
 */
export function parseMemory(value: string): bigint | null {
  let end = 0
  while (end < value.length && value.charCodeAt(end) >= 48 && value.charCodeAt(end) <= 57) end++
  const multiplier = MEMORY_UNITS.get(value.slice(end).toLowerCase())
  if (multiplier === undefined) return null
  let amount = end === 0 ? 0n : BigInt(value.slice(0, end))
  if (amount > ULLONG_MAX) amount = ULLONG_MAX
  return (amount * multiplier) & ULLONG_MAX
}

export function memory(name: string, defaultValue: string, min: bigint, max: bigint, alias?: string): Parameter {
  return define(name, defaultValue, (value) => {
    const parsed = parseMemory(value)
    if (parsed === null) return new InvalidValue('argument must be a memory value')
    if (parsed < min || parsed > max) return outOfRange(min, max)
    return parsed.toString()
  }, alias)
}

/** A memory value or a percentage of maxmemory (`10%`), as maxmemory-clients takes. */
export function memoryOrPercent(name: string, defaultValue: string): Parameter {
  const invalid = new InvalidValue('argument must be a memory or percent value')
  return define(name, defaultValue, (value) => {
    if (value.endsWith('%')) {
      const percent = readInt64(value.slice(0, -1))
      if (percent === null || percent < 0n) return invalid
      if (percent > 100n) return new InvalidValue('percentage argument must be less or equal to 100')
      return percent === 0n ? '0' : `${percent}%`
    }
    const parsed = parseMemory(value)
    return parsed === null ? invalid : parsed.toString()
  })
}

/** `hz`: any int is accepted, then Redis clamps it to 1..500 (CONFIG_MIN_HZ, CONFIG_MAX_HZ). */
export function serverHz(): Parameter {
  const plain = integer('hz', '10', 0n, INT_MAX)
  return define('hz', '10', (value, current) => {
    const parsed = plain.parse(value, current)
    if (parsed instanceof InvalidValue) return parsed
    return String(Math.min(500, Math.max(1, Number(parsed))))
  })
}

/** Splits a multi-word value the way sdssplitargs does for unquoted words. */
export function words(value: string): string[] {
  const trimmed = value.trim()
  return trimmed === '' ? [] : trimmed.split(/\s+/)
}

/** C's strtoll over a whole word: optional leading space and sign, then digits only. */
function readLooseInteger(word: string): number | null {
  return /^\s*[+-]?\d+$/.test(word) ? Number(word) : null
}

/** `save "<seconds> <changes> …"`: pairs of non-negative integers, or empty to disable. */
export function savePoints(): Parameter {
  const invalid = new InvalidValue('Invalid save parameters')
  return define('save', '3600 1 300 100 60 10000', (value) => {
    const parts = words(value)
    if (parts.length % 2 !== 0) return invalid
    const numbers: number[] = []
    for (const part of parts) {
      const parsed = readLooseInteger(part)
      if (parsed === null || parsed < 0) return invalid
      numbers.push(parsed)
    }
    return numbers.join(' ')
  })
}

/**
 * Keyspace notification classes (`notify.ts`). CONFIG GET shows them as Redis 7.0 does: `A` for
 * the whole set (hiding `n`), else each class in Redis's order, then `K`, `E`, `m`.
 */
export function notifyKeyspaceEvents(): Parameter {
  const invalid = new InvalidValue("Invalid event class character. Use 'Ag$lshzxeKEtmdn'.")
  return define('notify-keyspace-events', '', (value) => {
    const flags = parseEventClasses(value)
    return flags === null ? invalid : formatEventClasses(flags)
  })
}

export function oomScoreAdjValues(): Parameter {
  return define('oom-score-adj-values', '0 200 800', (value) => {
    const parts = words(value)
    if (parts.length !== 3) return new InvalidValue('wrong number of arguments')
    const numbers = parts.map(readLooseInteger)
    if (numbers.some((n) => n === null || n < -2000 || n > 2000)) {
      return new InvalidValue('Invalid oom-score-adj-values, elements must be between -2000 and 2000.')
    }
    return numbers.join(' ')
  })
}

const BUFFER_CLASSES: ReadonlyMap<string, number> = new Map([['normal', 0], ['slave', 1], ['replica', 1], ['pubsub', 2]])
const BUFFER_CLASS_NAMES = ['normal', 'slave', 'pubsub']

/** `<class> <hard> <soft> <soft-seconds>` groups, merged into the current limits. */
export function clientOutputBufferLimit(): Parameter {
  return define('client-output-buffer-limit', 'normal 0 0 0 slave 268435456 67108864 60 pubsub 33554432 8388608 60', (value, current) => {
    const parts = words(value)
    if (parts.length % 4 !== 0) return new InvalidValue('Wrong number of arguments in buffer limit configuration.')
    const limits = chunk(words(current), 4).map((group) => group.slice(1))
    for (const [name, hard, soft, seconds] of chunk(parts, 4)) {
      const index = BUFFER_CLASSES.get(name.toLowerCase())
      if (index === undefined) return new InvalidValue('Invalid client class specified in buffer limit configuration.')
      const hardBytes = parseMemory(hard)
      const softBytes = parseMemory(soft)
      const softSeconds = readLooseInteger(seconds)
      if (hardBytes === null || softBytes === null || softSeconds === null || softSeconds < 0) {
        return new InvalidValue('Error in hard, soft or soft_seconds setting in buffer limit configuration.')
      }
      limits[index] = [hardBytes.toString(), softBytes.toString(), String(softSeconds)]
    }
    return limits.map((group, i) => `${BUFFER_CLASS_NAMES[i]} ${group.join(' ')}`).join(' ')
  })
}

function chunk<T>(items: readonly T[], size: number): T[][] {
  const groups: T[][] = []
  for (let i = 0; i < items.length; i += size) groups.push(items.slice(i, i + size))
  return groups
}

const DECIMAL = /^\s*[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/
export function latencyPercentiles(): Parameter {
  return define('latency-tracking-info-percentiles', '50 99 99.9', (value) => {
    const shown: number[] = []
    for (const word of words(value)) {
      if (!DECIMAL.test(word)) return new InvalidValue('Invalid latency-tracking-info-percentiles parameters')
      const percentile = Number(word)
      if (percentile < 0 || percentile > 100) {
        return new InvalidValue('latency-tracking-info-percentiles parameters should sit between [0.0,100.0]')
      }
      shown.push(percentile)
    }
    return shown.join(' ')
  })
}

const HOSTNAME = /^[A-Za-z0-9.-]*$/
export function clusterAnnounceHostname(): Parameter {
  return define('cluster-announce-hostname', '', (value) =>
    HOSTNAME.test(value) ? value : new InvalidValue('Hostnames may only contain alphanumeric characters, hyphens or dots'))
}

/** `dir` of the host process when there is one (CONFIG GET dir shows the working directory). */
export function workingDirectory(): string {
  const host = (globalThis as { process?: { cwd?: () => string } }).process
  try {
    return host?.cwd?.() ?? '/'
  } catch {
    return '/'
  }
}
