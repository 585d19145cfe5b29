import { ReplyError } from '../../../../reply.js'
import { NOTIFY_GENERIC, NOTIFY_LIST, notify } from '../../notify.js'
import type { CommandContext, CommandTable, Out } from '../../command.js'
import { NOT_INTEGER, SYNTAX, WRONGTYPE } from '../../errors.js'
import type { TypedValue } from '../../keyspace.js'
import { readDouble, readInteger } from '../../lib/numbers.js'
import { HashValue } from '../../types/hash.js'
import { ListValue } from '../../types/list.js'
import { SetValue } from '../../types/set.js'
import { partialSort } from '../../lib/pqsort.js'
import { chargedReply, checkElements } from '../../reply-budget.js'

/**
 * SORT and SORT_RO (Redis 7.0 `sort.c`) over lists, sets and sorted sets:
 * BY pattern (a pattern without `*`, such as `nosort`, skips sorting), `->field` hash lookups,
 * LIMIT, GET (with `#` for the element itself), ASC/DESC, ALPHA and STORE.
 *
 * Orders follow Redis exactly: numeric sorts break ties by comparing the elements as bytes;
 * ALPHA compares bytes (strings are C strings there, so they end at a NUL byte, except with
 * STORE); equal keys keep their input order (glibc's qsort is a stable merge sort), except under
 * BY … LIMIT, which uses Redis's partial quicksort (`pqsort.ts`). ALPHA compares with `strcoll`
 * in Redis, i.e. in the server's locale; this engine compares bytes, which is the C locale.
 */

const SCORE_NOT_DOUBLE = new ReplyError("ERR One or more scores can't be converted into double")

/** What SORT needs from a sorted set: its members in ascending score order. */
interface SortedMembers extends TypedValue {
  forEach(visit: (member: string) => void): void
  convertToSkiplist(): void
}

interface SortOptions {
  desc: boolean
  alpha: boolean
  /** LIMIT offset and count (count -1: no limit). */
  offset: number
  count: number
  /** The BY pattern, or null. */
  by: string | null
  /** True when a BY pattern has no `*`: keep the stored order. */
  dontSort: boolean
  gets: string[]
  store: string | null
}

/** One element being sorted, with what it sorts by. */
interface SortEntry {
  readonly element: string
  score: number
  /** The BY value for ALPHA sorts, null when the looked-up key or field is missing. */
  weight: string | null
}

/** `s` as C sees it: up to the first NUL byte. */
function cString(s: string): string {
  const nul = s.indexOf('\0')
  return nul === -1 ? s : s.slice(0, nul)
}

/** memcmp, then the shorter first: JS comparison of binary strings is exactly that. */
function compareBytes(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}

function parseSortOptions(argv: readonly string[], readOnly: boolean): SortOptions | ReplyError {
  const options: SortOptions = { desc: false, alpha: false, offset: 0, count: -1, by: null, dontSort: false, gets: [], store: null }
  for (let i = 2; i < argv.length; i++) {
    const option = argv[i].toLowerCase()
    const left = argv.length - i - 1
    if (option === 'asc') options.desc = false
    else if (option === 'desc') options.desc = true
    else if (option === 'alpha') options.alpha = true
    else if (option === 'limit' && left >= 2) {
      const offset = readInteger(argv[i + 1])
      const count = readInteger(argv[i + 2])
      if (offset === null || count === null) return NOT_INTEGER
      options.offset = offset
      options.count = count
      i += 2
    } else if (option === 'store' && !readOnly && left >= 1) {
      options.store = argv[++i]
    } else if (option === 'by' && left >= 1) {
      const pattern = argv[++i]
      options.by = pattern
      // Redis only ever sets this flag: a later BY with a `*` does not clear it.
      if (!cString(pattern).includes('*')) options.dontSort = true
    } else if (option === 'get' && left >= 1) {
      options.gets.push(argv[++i])
    } else {
      return SYNTAX
    }
  }
  return options
}

/** Reads the value a BY or GET pattern names for one element; null when there is none. */
type PatternLookup = (ctx: CommandContext, element: string) => string | null

const noValue: PatternLookup = () => null
const elementItself: PatternLookup = (_ctx, element) => element

/**
 * Redis's `lookupKeyByPattern`, prepared once per pattern: `#` is the element itself; otherwise
 * the first `*` is replaced by the element and the resulting key read, as a string, or, when
 * `->field` follows the `*`, as that field of a hash. Null when the pattern has no `*`, the key
 * is missing, or it has another type. Redis scans the pattern as a C string (up to a NUL byte)
 * for `#`, `*` and `->`, but copies the key's tail and the field name whole.
 */
function compilePattern(pattern: string): PatternLookup {
  if (pattern.charCodeAt(0) === 35 /* # */ && (pattern.length === 1 || pattern.charCodeAt(1) === 0)) return elementItself
  const visible = cString(pattern)
  const star = visible.indexOf('*')
  if (star === -1) return noValue
  const arrow = visible.indexOf('->', star + 1)
  const prefix = pattern.slice(0, star)
  if (arrow === -1 || arrow + 2 >= visible.length) {
    const suffix = pattern.slice(star + 1)
    return (ctx, element) => {
      const value = ctx.db.read(prefix + element + suffix, ctx)
      return typeof value === 'string' ? value : null
    }
  }
  const suffix = pattern.slice(star + 1, arrow)
  const field = pattern.slice(arrow + 2)
  return (ctx, element) => {
    const value = ctx.db.read(prefix + element + suffix, ctx)
    if (!(value instanceof HashValue)) return null
    const deadline = value.deadlineOf(field)
    if (deadline !== undefined && deadline <= ctx.now) return null
    return value.get(field) ?? null
  }
}

/** `DBL_MIN`: below it a double is subnormal, which glibc's strtod reports as a range error. */
const SMALLEST_NORMAL = 2.2250738585072014e-308

/**
 * A weight as SORT reads it: C `strtod` over the C string, which must consume it all and give
 * neither a range error nor NaN. Unlike other commands, leading whitespace is allowed, and the
 * empty string reads as 0 (strtod consumes nothing and stops at the terminator). Decimal values
 * that overflow, underflow to 0 or land among the subnormals are range errors; hexadecimal ones
 * only when they overflow or vanish (glibc flags inexact results only). Null when unreadable.
 */
export function readSortScore(text: string): number | null {
  const visible = cString(text)
  if (visible.length === 0) return 0
  let start = 0
  while (start < visible.length && isSpace(visible.charCodeAt(start))) start++
  const number = start === 0 ? visible : visible.slice(start)
  const value = readDouble(number)
  if (value === null) return null
  const signLength = number.charCodeAt(0) === 43 || number.charCodeAt(0) === 45 ? 1 : 0
  const first = number.charCodeAt(signLength) | 0x20
  if (first === 105 /* i: inf, infinity */) return value
  if (!Number.isFinite(value)) return null
  const hex = (number.charCodeAt(signLength + 1) | 0x20) === 120 /* 0x */
  if (value === 0) return hasNonZeroDigit(number, hex ? signLength + 2 : signLength, hex) ? null : value
  if (!hex && Math.abs(value) < SMALLEST_NORMAL) return null
  return value
}

/** True when the mantissa of a number literal (before its exponent) has a non-zero digit. */
function hasNonZeroDigit(number: string, from: number, hex: boolean): boolean {
  for (let i = from; i < number.length; i++) {
    const code = number.charCodeAt(i)
    const lower = code | 0x20
    if (hex ? lower === 112 /* p */ : lower === 101 /* e */) return false
    if (code >= 49 && code <= 57) return true
    if (hex && lower >= 97 && lower <= 102) return true
  }
  return false
}

/** C `isspace` in the C locale. */
function isSpace(code: number): boolean {
  return code === 32 || (code >= 9 && code <= 13)
}

/** The elements of the value to sort, in its own order (lists head first, sorted sets by score). */
function elementsOf(value: TypedValue): string[] {
  if (value instanceof ListValue) return value.toArray()
  if (value instanceof SetValue) return value.members()
  const out: string[] = []
  // Redis converts a sorted set it sorts to a skip list for good (OBJECT ENCODING shows it).
  ;(value as SortedMembers).convertToSkiplist()
  ;(value as SortedMembers).forEach((member) => out.push(member))
  return out
}

function sortGeneric(ctx: CommandContext, argv: readonly string[], readOnly: boolean): Out {
  const options = parseSortOptions(argv, readOnly)
  if (options instanceof ReplyError) return options
  const value = ctx.db.read(argv[1], ctx)
  if (value !== undefined && (typeof value === 'string' || (value.type !== 'list' && value.type !== 'set' && value.type !== 'zset'))) {
    return WRONGTYPE
  }
  const kind = value === undefined ? 'list' : value.type
  let { alpha, by, dontSort } = options
  // Redis sorts a set even under BY nosort when the result is stored or a script asks, so that
  // replicas and scripts see a deterministic order.
  if (dontSort && kind === 'set' && (options.store !== null || ctx.session.script !== undefined)) {
    dontSort = false
    alpha = true
    by = null
  }

  const all = value === undefined ? [] : elementsOf(value)
  const length = all.length
  // LIMIT normalisation, as Redis does it.
  let start = Math.min(Math.max(options.offset, 0), length)
  const count = Math.min(Math.max(options.count, -1), length)
  let end = count < 0 ? length - 1 : start + count - 1
  if (start >= length) {
    start = length - 1
    end = length - 2
  }
  if (end >= length) end = length - 1

  let elements = all
  if (dontSort && kind !== 'set') {
    // Lists and sorted sets keep their own order, reversed by DESC; Redis then loads just the
    // LIMIT range. (A set under BY nosort keeps its order and ignores DESC.)
    if (options.desc) elements.reverse()
    if (start !== 0 || end !== length - 1) {
      elements = end >= start ? elements.slice(start, end + 1) : []
      end -= start
      start = 0
    }
  }

  if (options.store === null) {
    // Each GET pattern multiplies the reply: checked against the engine's reply limits before
    // anything is sorted or looked up (reply-budget.ts).
    const tooLarge = checkElements(ctx, Math.max(0, end - start + 1) * Math.max(1, options.gets.length))
    if (tooLarge !== null) return tooLarge
  }

  const entries: SortEntry[] = elements.map((element) => ({ element, score: 0, weight: null }))
  if (!dontSort) {
    const weightOf = by === null ? elementItself : compilePattern(by)
    let unreadable = false
    for (const entry of entries) {
      const weight = weightOf(ctx, entry.element)
      if (weight === null) continue
      if (alpha) {
        if (by !== null) entry.weight = weight
      } else {
        const score = readSortScore(weight)
        if (score === null) unreadable = true
        else entry.score = score
      }
    }
    if (unreadable) return SCORE_NOT_DOUBLE
    const compare = comparator(options.desc, alpha, by !== null, options.store !== null)
    if (by !== null && (start !== 0 || end !== entries.length - 1)) partialSort(entries, compare, start, end)
    else entries.sort(compare)
  }

  const gets = options.gets.map(compilePattern)
  const output: (string | null)[] = []
  for (let j = start; j <= end; j++) {
    const element = entries[j].element
    if (gets.length === 0) output.push(element)
    for (const get of gets) output.push(get(ctx, element))
  }
  if (options.store === null) return chargedReply(ctx, output)
  const stored = output.map((item) => item ?? '')
  if (stored.length > 0) {
    ctx.db.reclaimIfExpired(options.store, ctx)
    ctx.db.set(options.store, new ListValue(stored))
    notify(ctx, NOTIFY_LIST, 'sortstore', options.store)
  } else if (ctx.db.delete(options.store, ctx.now)) {
    notify(ctx, NOTIFY_GENERIC, 'del', options.store)
  }
  return stored.length
}

/** Redis's `sortCompare`, for one SORT call's settings. */
function comparator(desc: boolean, alpha: boolean, byPattern: boolean, store: boolean): (a: SortEntry, b: SortEntry) => number {
  const strings = store ? compareBytes : (a: string, b: string) => compareBytes(cString(a), cString(b))
  let compare: (a: SortEntry, b: SortEntry) => number
  if (!alpha) {
    compare = (a, b) => (a.score > b.score ? 1 : a.score < b.score ? -1 : compareBytes(a.element, b.element))
  } else if (byPattern) {
    compare = (a, b) => {
      if (a.weight === null || b.weight === null) return a.weight === b.weight ? 0 : a.weight === null ? -1 : 1
      return strings(a.weight, b.weight)
    }
  } else {
    compare = (a, b) => strings(a.element, b.element)
  }
  return desc ? (a, b) => -compare(a, b) : compare
}

function sort(ctx: CommandContext, argv: readonly string[]): Out {
  return sortGeneric(ctx, argv, false)
}

function sortRo(ctx: CommandContext, argv: readonly string[]): Out {
  return sortGeneric(ctx, argv, true)
}

/** SORT and SORT_RO. */
export const sortCommands: CommandTable = { sort, sort_ro: sortRo }
