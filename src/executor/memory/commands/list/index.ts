import { NULL_ARRAY, OK, ReplyError } from '../../../../reply.js'
import { NOTIFY_GENERIC, NOTIFY_LIST, notify } from '../../notify.js'
import type { CommandTable, CommandContext, Out } from '../../command.js'
import {
  COUNT_NOT_POSITIVE,
  INDEX_OUT_OF_RANGE,
  NOT_INTEGER,
  NOT_POSITIVE,
  NO_SUCH_KEY,
  NUMKEYS_NOT_POSITIVE,
  SYNTAX,
  WRONGTYPE,
  wrongArity,
} from '../../errors.js'
import { readInt64, readInteger } from '../../lib/numbers.js'
import { ListValue } from '../../types/list.js'
import { chargedReply, checkElements } from '../../reply-budget.js'

/**
 * List commands (Redis 7.0 `t_list.c`). The blocking forms (BLPOP, BLMOVE, BLMPOP …) are not
 * here: the REST layer refuses them before they reach the engine.
 *
 * Argument checks happen in Redis's order, which is visible: LRANGE parses its indexes before
 * it looks at the key, LINDEX looks at the key first, and so on.
 */

const RANK_ZERO = new ReplyError(
  "ERR RANK can't be zero: use 1 to start from the first match, 2 from the second ... or use negative to start from the end of the list",
)
const LPOS_COUNT_NEGATIVE = new ReplyError("ERR COUNT can't be negative")
const LPOS_MAXLEN_NEGATIVE = new ReplyError("ERR MAXLEN can't be negative")
/** `LONG_MIN`: negating it overflows in Redis, which makes LPOS treat it specially (see lpos). */
const LONG_MIN = -(2n ** 63n)

type End = 'head' | 'tail'

/** The list at `key`: the value, undefined when missing, or WRONGTYPE for another type. */
function readList(ctx: CommandContext, key: string): ListValue | undefined | ReplyError {
  const value = ctx.db.read(key, ctx)
  if (value === undefined) return undefined
  return value instanceof ListValue ? value : WRONGTYPE
}

/** `LEFT` / `RIGHT` as Redis's `getListPositionFromObjectOrReply` reads them. */
function readEnd(text: string): End | null {
  const word = text.toLowerCase()
  return word === 'left' ? 'head' : word === 'right' ? 'tail' : null
}

function pop(list: ListValue, end: End): string {
  return end === 'head' ? list.popHead() : list.popTail()
}

function push(list: ListValue, end: End, element: string): void {
  if (end === 'head') list.pushHead(element)
  else list.pushTail(element)
}

/** Deletes `key` once its list is empty: Redis never keeps an empty list. */
function dropIfEmpty(ctx: CommandContext, key: string, list: ListValue): void {
  if (list.length === 0) {
    ctx.db.remove(key)
    notify(ctx, NOTIFY_GENERIC, 'del', key)
  }
}

/** After elements were popped from `end`: the pop event, then `del` if the list is now empty
 * (Redis's listElementsRemoved). */
function elementsRemoved(ctx: CommandContext, key: string, list: ListValue, end: End): void {
  notify(ctx, NOTIFY_LIST, end === 'head' ? 'lpop' : 'rpop', key)
  dropIfEmpty(ctx, key, list)
}

/** LPUSH / RPUSH / LPUSHX / RPUSHX: `onlyIfExists` is the X forms. */
function pushElements(ctx: CommandContext, argv: readonly string[], end: End, onlyIfExists: boolean): Out {
  const key = argv[1]
  let list = readList(ctx, key)
  if (list instanceof ReplyError) return list
  if (list === undefined) {
    if (onlyIfExists) return 0
    list = new ListValue()
    ctx.db.set(key, list)
  }
  for (let i = 2; i < argv.length; i++) push(list, end, argv[i])
  notify(ctx, NOTIFY_LIST, end === 'head' ? 'lpush' : 'rpush', key)
  return list.length
}

function lpush(ctx: CommandContext, argv: readonly string[]): Out {
  return pushElements(ctx, argv, 'head', false)
}

function rpush(ctx: CommandContext, argv: readonly string[]): Out {
  return pushElements(ctx, argv, 'tail', false)
}

function lpushx(ctx: CommandContext, argv: readonly string[]): Out {
  return pushElements(ctx, argv, 'head', true)
}

function rpushx(ctx: CommandContext, argv: readonly string[]): Out {
  return pushElements(ctx, argv, 'tail', true)
}

/**
 * LPOP / RPOP key [count]. Without count: the element or nil. With count: an array, the null
 * array for a missing key, and an empty array for count 0 on an existing key (Redis checks the
 * key before the zero).
 */
function popElements(ctx: CommandContext, argv: readonly string[], end: End): Out {
  // The table's arity (-2) lets more arguments through; Redis's handler refuses them itself.
  if (argv.length > 3) return wrongArity(ctx.name)
  const hasCount = argv.length === 3
  let count = 1
  if (hasCount) {
    const parsed = readInteger(argv[2])
    if (parsed === null || parsed < 0) return NOT_POSITIVE
    count = parsed
  }
  const key = argv[1]
  const list = readList(ctx, key)
  if (list instanceof ReplyError) return list
  if (list === undefined) return hasCount ? NULL_ARRAY : null
  if (!hasCount) {
    const element = pop(list, end)
    elementsRemoved(ctx, key, list, end)
    return element
  }
  if (count === 0) return []
  const popped: string[] = []
  while (popped.length < count && list.length > 0) popped.push(pop(list, end))
  elementsRemoved(ctx, key, list, end)
  return popped
}

function lpop(ctx: CommandContext, argv: readonly string[]): Out {
  return popElements(ctx, argv, 'head')
}

function rpop(ctx: CommandContext, argv: readonly string[]): Out {
  return popElements(ctx, argv, 'tail')
}

function llen(ctx: CommandContext, argv: readonly string[]): Out {
  const list = readList(ctx, argv[1])
  if (list instanceof ReplyError) return list
  return list === undefined ? 0 : list.length
}

function lindex(ctx: CommandContext, argv: readonly string[]): Out {
  const list = readList(ctx, argv[1])
  if (list instanceof ReplyError) return list
  if (list === undefined) return null
  let index = readInteger(argv[2])
  if (index === null) return NOT_INTEGER
  if (index < 0) index += list.length
  return index >= 0 && index < list.length ? list.at(index) : null
}

function lset(ctx: CommandContext, argv: readonly string[]): Out {
  const list = readList(ctx, argv[1])
  if (list instanceof ReplyError) return list
  if (list === undefined) return NO_SUCH_KEY
  let index = readInteger(argv[2])
  if (index === null) return NOT_INTEGER
  if (index < 0) index += list.length
  if (index < 0 || index >= list.length) return INDEX_OUT_OF_RANGE
  list.setAt(index, argv[3])
  notify(ctx, NOTIFY_LIST, 'lset', argv[1])
  return OK
}

/**
 * Redis's range normalisation (LRANGE, LTRIM): negative indexes count from the tail, the start
 * is clamped to 0 and the stop to the last element. Null when the range is empty.
 */
function clampRange(start: number, stop: number, length: number): [number, number] | null {
  if (start < 0) start += length
  if (stop < 0) stop += length
  if (start < 0) start = 0
  if (start > stop || start >= length) return null
  return [start, Math.min(stop, length - 1)]
}

function lrange(ctx: CommandContext, argv: readonly string[]): Out {
  const start = readInteger(argv[2])
  const stop = readInteger(argv[3])
  if (start === null || stop === null) return NOT_INTEGER
  const list = readList(ctx, argv[1])
  if (list instanceof ReplyError) return list
  if (list === undefined) return []
  const range = clampRange(start, stop, list.length)
  if (range === null) return []
  // Checked against the engine's reply limits before the range is copied (reply-budget.ts).
  const tooLarge = checkElements(ctx, range[1] - range[0] + 1)
  return tooLarge ?? chargedReply(ctx, list.range(range[0], range[1]))
}

function ltrim(ctx: CommandContext, argv: readonly string[]): Out {
  const start = readInteger(argv[2])
  const stop = readInteger(argv[3])
  if (start === null || stop === null) return NOT_INTEGER
  const key = argv[1]
  const list = readList(ctx, key)
  if (list instanceof ReplyError) return list
  if (list === undefined) return OK
  const range = clampRange(start, stop, list.length)
  if (range !== null) list.trim(range[0], range[1])
  notify(ctx, NOTIFY_LIST, 'ltrim', key)
  if (range === null) {
    ctx.db.remove(key)
    notify(ctx, NOTIFY_GENERIC, 'del', key)
  }
  return OK
}

/** LREM key count element: count > 0 from the head, < 0 from the tail, 0 all of them. */
function lrem(ctx: CommandContext, argv: readonly string[]): Out {
  const count = readInteger(argv[2])
  if (count === null) return NOT_INTEGER
  const key = argv[1]
  const list = readList(ctx, key)
  if (list instanceof ReplyError) return list
  if (list === undefined) return 0
  const removed = list.removeMatching(argv[3], Math.abs(count), count < 0)
  if (removed > 0) notify(ctx, NOTIFY_LIST, 'lrem', key)
  dropIfEmpty(ctx, key, list)
  return removed
}

/** LINSERT key BEFORE|AFTER pivot element: the new length, 0 without key, -1 without pivot. */
function linsert(ctx: CommandContext, argv: readonly string[]): Out {
  const where = argv[2].toLowerCase()
  if (where !== 'before' && where !== 'after') return SYNTAX
  const list = readList(ctx, argv[1])
  if (list instanceof ReplyError) return list
  if (list === undefined) return 0
  const pivot = argv[3]
  for (let i = 0; i < list.length; i++) {
    if (list.at(i) === pivot) {
      list.insertAt(where === 'after' ? i + 1 : i, argv[4])
      notify(ctx, NOTIFY_LIST, 'linsert', argv[1])
      return list.length
    }
  }
  return -1
}

/**
 * LPOS key element [RANK rank] [COUNT num-matches] [MAXLEN len]. Options are checked as they
 * come, before the key. Without COUNT the reply is an index or nil, with COUNT an array
 * (COUNT 0: every match).
 */
function lpos(ctx: CommandContext, argv: readonly string[]): Out {
  let rank = 1
  let rankIsLongMin = false
  let count = -1
  let maxlen = 0
  for (let i = 3; i < argv.length; i++) {
    const option = argv[i].toLowerCase()
    const hasValue = i + 1 < argv.length
    if (option === 'rank' && hasValue) {
      const value = readInt64(argv[++i])
      if (value === null) return NOT_INTEGER
      if (value === 0n) return RANK_ZERO
      rankIsLongMin = value === LONG_MIN
      rank = Number(value)
    } else if (option === 'count' && hasValue) {
      const value = readInteger(argv[++i])
      if (value === null || value < 0) return LPOS_COUNT_NEGATIVE
      count = value
    } else if (option === 'maxlen' && hasValue) {
      const value = readInteger(argv[++i])
      if (value === null || value < 0) return LPOS_MAXLEN_NEGATIVE
      maxlen = value
    } else {
      return SYNTAX
    }
  }
  const list = readList(ctx, argv[1])
  if (list instanceof ReplyError) return list
  const wantsArray = count !== -1
  if (list === undefined) return wantsArray ? [] : null
  const fromTail = rank < 0
  // Redis negates a negative rank in a C long: LONG_MIN stays LONG_MIN, so every match
  // qualifies and the COUNT test (which then overflows) never stops the scan.
  let limit = count
  if (rankIsLongMin) {
    rank = 1
    limit = 0
  } else if (fromTail) {
    rank = -rank
  }
  const element = argv[2]
  const length = list.length
  const scanned = maxlen === 0 ? length : Math.min(maxlen, length)
  const found: number[] = []
  let matches = 0
  for (let step = 0; step < scanned; step++) {
    const index = fromTail ? length - 1 - step : step
    if (list.at(index) !== element) continue
    matches++
    if (matches < rank) continue
    if (!wantsArray) return index
    found.push(index)
    if (limit !== 0 && found.length >= limit) break
  }
  return wantsArray ? found : null
}

/**
 * Pops from `source` and pushes onto `destination` (LMOVE, RPOPLPUSH). The destination's type
 * is checked before anything moves; a same-key move rotates the list.
 */
function moveElement(ctx: CommandContext, sourceKey: string, destinationKey: string, from: End, to: End): Out {
  const source = readList(ctx, sourceKey)
  if (source instanceof ReplyError) return source
  if (source === undefined) return null
  let destination = readList(ctx, destinationKey)
  if (destination instanceof ReplyError) return destination
  const element = pop(source, from)
  if (destination === undefined) {
    destination = new ListValue()
    ctx.db.set(destinationKey, destination)
  }
  push(destination, to, element)
  notify(ctx, NOTIFY_LIST, to === 'head' ? 'lpush' : 'rpush', destinationKey)
  elementsRemoved(ctx, sourceKey, source, from)
  return element
}

function lmove(ctx: CommandContext, argv: readonly string[]): Out {
  const from = readEnd(argv[3])
  const to = readEnd(argv[4])
  if (from === null || to === null) return SYNTAX
  return moveElement(ctx, argv[1], argv[2], from, to)
}

function rpoplpush(ctx: CommandContext, argv: readonly string[]): Out {
  return moveElement(ctx, argv[1], argv[2], 'tail', 'head')
}

/**
 * LMPOP numkeys key [key ...] LEFT|RIGHT [COUNT count]: pops from the first non-empty list,
 * replying `[key, [elements]]`, or the null array when every list is missing.
 */
function lmpop(ctx: CommandContext, argv: readonly string[]): Out {
  const numkeys = readInteger(argv[1])
  if (numkeys === null || numkeys < 1) return NUMKEYS_NOT_POSITIVE
  const whereIndex = 2 + numkeys
  if (whereIndex >= argv.length) return SYNTAX
  const end = readEnd(argv[whereIndex])
  if (end === null) return SYNTAX
  let count = -1
  for (let i = whereIndex + 1; i < argv.length; i++) {
    if (count === -1 && argv[i].toLowerCase() === 'count' && i + 1 < argv.length) {
      const value = readInteger(argv[++i])
      if (value === null || value < 1) return COUNT_NOT_POSITIVE
      count = value
    } else {
      return SYNTAX
    }
  }
  if (count === -1) count = 1
  for (let k = 2; k < whereIndex; k++) {
    const key = argv[k]
    const list = readList(ctx, key)
    if (list instanceof ReplyError) return list
    if (list === undefined) continue
    const popped: string[] = []
    while (popped.length < count && list.length > 0) popped.push(pop(list, end))
    elementsRemoved(ctx, key, list, end)
    return [key, popped]
  }
  return NULL_ARRAY
}

/** List commands. */
export const listCommands: CommandTable = {
  lindex,
  linsert,
  llen,
  lmove,
  lmpop,
  lpop,
  lpos,
  lpush,
  lpushx,
  lrange,
  lrem,
  lset,
  ltrim,
  rpop,
  rpoplpush,
  rpush,
  rpushx,
}
