import { ReplyError } from '../../../../reply.js'
import { NOTIFY_GENERIC, NOTIFY_SET, notify } from '../../notify.js'
import type { CommandTable, CommandContext, Out } from '../../command.js'
import {
  NOT_INTEGER,
  NOT_POSITIVE,
  NUMKEYS_NOT_POSITIVE,
  OUT_OF_LONG_RANGE,
  SYNTAX,
  WRONGTYPE,
} from '../../errors.js'
import { readInt64, readInteger } from '../../lib/numbers.js'
import { DEFAULT_MAX_INTSET_ENTRIES, SetValue } from '../../types/set.js'
import { stringMatch as globMatch } from '../../lib/glob.js'
import { EMPTY_SCAN, INVALID_CURSOR, parseScanCursor, parseScanOptions } from '../generic/scan-options.js'
import { derivedFromConfig } from '../server/config-parameters.js'
import { chargedReply, chargedSample, checkElements } from '../../reply-budget.js'

/**
 * Set commands (t_set.c), with Redis 7.0.15's replies, errors and argument order. Results are
 * built as sets and returned in their iteration order, so results made only of integers come
 * back sorted exactly as Redis's intsets do.
 */

const INT64_MIN = -(2n ** 63n)
/** SPOP with a count keeps the survivors in a new set when count ≥ 5 × survivors (t_set.c). */
const SPOP_MOVE_STRATEGY_MUL = 5
const TOO_MANY_KEYS = new ReplyError("ERR Number of keys can't be greater than number of args")
const LIMIT_NEGATIVE = new ReplyError("ERR LIMIT can't be negative")

/** The set at `key`, undefined when missing, or WRONGTYPE. */
function readSet(ctx: CommandContext, key: string): SetValue | undefined | ReplyError {
  const value = ctx.db.read(key, ctx)
  if (value === undefined || value instanceof SetValue) return value
  return WRONGTYPE
}

/** `set-max-intset-entries` in force (RESTORE encodes restored sets by it too). */
export function intsetLimit(ctx: Pick<CommandContext, 'engine'>): number {
  return configuredIntsetLimit(ctx.engine.config)
}

const configuredIntsetLimit = derivedFromConfig((config) => {
  const text = config.get('set-max-intset-entries')
  const value = text === undefined ? NaN : Number(text)
  return Number.isFinite(value) ? value : DEFAULT_MAX_INTSET_ENTRIES
})

/** Deletes `key` when its set has no member left (Redis never keeps empty collections). */
function deleteIfEmpty(ctx: CommandContext, key: string, set: SetValue): void {
  if (set.size === 0) {
    ctx.db.remove(key)
    notify(ctx, NOTIFY_GENERIC, 'del', key)
  }
}

function sadd(ctx: CommandContext, argv: readonly string[]): Out {
  let set = readSet(ctx, argv[1])
  if (set instanceof ReplyError) return set
  if (set === undefined) ctx.db.set(argv[1], (set = new SetValue()))
  const limit = intsetLimit(ctx)
  let added = 0
  for (let i = 2; i < argv.length; i++) if (set.add(argv[i], limit)) added++
  if (added > 0) notify(ctx, NOTIFY_SET, 'sadd', argv[1])
  return added
}

function srem(ctx: CommandContext, argv: readonly string[]): Out {
  const set = readSet(ctx, argv[1])
  if (set instanceof ReplyError) return set
  if (set === undefined) return 0
  let removed = 0
  for (let i = 2; i < argv.length; i++) if (set.delete(argv[i])) removed++
  if (removed > 0) notify(ctx, NOTIFY_SET, 'srem', argv[1])
  deleteIfEmpty(ctx, argv[1], set)
  return removed
}

function scard(ctx: CommandContext, argv: readonly string[]): Out {
  const set = readSet(ctx, argv[1])
  if (set instanceof ReplyError) return set
  return set?.size ?? 0
}

function sismember(ctx: CommandContext, argv: readonly string[]): Out {
  const set = readSet(ctx, argv[1])
  if (set instanceof ReplyError) return set
  return set?.has(argv[2]) ? 1 : 0
}

function smismember(ctx: CommandContext, argv: readonly string[]): Out {
  const set = readSet(ctx, argv[1])
  if (set instanceof ReplyError) return set
  const replies: Out[] = []
  for (let i = 2; i < argv.length; i++) replies.push(set?.has(argv[i]) ? 1 : 0)
  return replies
}

function smembers(ctx: CommandContext, argv: readonly string[]): Out {
  const set = readSet(ctx, argv[1])
  if (set instanceof ReplyError) return set
  if (set === undefined) return []
  // Checked against the engine's reply limits before the members are copied (reply-budget.ts).
  return checkElements(ctx, set.size) ?? chargedReply(ctx, set.members())
}

/** `SMOVE source destination member`: a missing source answers 0 before any type check. */
function smove(ctx: CommandContext, argv: readonly string[]): Out {
  const [, sourceKey, destinationKey, member] = argv
  const source = readSet(ctx, sourceKey)
  const destination = readSet(ctx, destinationKey)
  if (source === undefined) return 0
  if (source instanceof ReplyError) return source
  if (destination instanceof ReplyError) return destination
  if (source === destination) return source.has(member) ? 1 : 0
  if (!source.delete(member)) return 0
  notify(ctx, NOTIFY_SET, 'srem', sourceKey)
  deleteIfEmpty(ctx, sourceKey, source)
  let target = destination
  if (target === undefined) ctx.db.set(destinationKey, (target = new SetValue()))
  if (target.add(member, intsetLimit(ctx))) notify(ctx, NOTIFY_SET, 'sadd', destinationKey)
  return 1
}

/** `SPOP key [count]`: one random member (nil when missing), or up to count of them (an array). */
function spop(ctx: CommandContext, argv: readonly string[]): Out {
  if (argv.length > 3) return SYNTAX
  const key = argv[1]
  if (argv.length === 2) {
    const set = readSet(ctx, key)
    if (set instanceof ReplyError) return set
    if (set === undefined) return null
    const member = set.randomMember()
    set.delete(member)
    notify(ctx, NOTIFY_SET, 'spop', key)
    deleteIfEmpty(ctx, key, set)
    return member
  }
  const count = readInteger(argv[2])
  if (count === null || count < 0) return NOT_POSITIVE
  const set = readSet(ctx, key)
  if (set instanceof ReplyError) return set
  if (set === undefined || count === 0) return []
  notify(ctx, NOTIFY_SET, 'spop', key)
  if (count >= set.size) {
    // The whole set, in its iteration order, and the key is gone.
    const members = set.members()
    ctx.db.remove(key)
    notify(ctx, NOTIFY_GENERIC, 'del', key)
    return members
  }
  const remaining = set.size - count
  if (remaining * SPOP_MOVE_STRATEGY_MUL > count) {
    const popped: string[] = []
    for (let n = 0; n < count; n++) {
      const member = set.randomMember()
      set.delete(member)
      popped.push(member)
    }
    return popped
  }
  // Popping most of the set: like Redis, move the few survivors into a new set (which takes the
  // intset encoding again when they are all integers) and return the rest in the old set's order.
  const survivors = new SetValue()
  const limit = intsetLimit(ctx)
  for (let n = 0; n < remaining; n++) {
    const member = set.randomMember()
    set.delete(member)
    survivors.add(member, limit)
  }
  ctx.db.update(key, survivors)
  return set.members()
}

/**
 * `SRANDMEMBER key [count]`: a negative count may repeat members; a positive count never does
 * and returns the whole set (in its order) when it is at least the set's size; 0 is empty.
 */
function srandmember(ctx: CommandContext, argv: readonly string[]): Out {
  if (argv.length > 3) return SYNTAX
  if (argv.length === 2) {
    const set = readSet(ctx, argv[1])
    if (set instanceof ReplyError) return set
    return set === undefined ? null : set.randomMember()
  }
  const count = readInt64(argv[2])
  if (count === null) return NOT_INTEGER
  if (count === INT64_MIN) return OUT_OF_LONG_RANGE
  const set = readSet(ctx, argv[1])
  if (set instanceof ReplyError) return set
  if (set === undefined || count === 0n) return []
  // The reply is checked against the engine's reply limits before it is built (reply-budget.ts).
  if (count < 0n) return chargedSample(ctx, Number(-count), 1, (out) => out.push(set.randomMember()))
  const tooLarge = checkElements(ctx, Math.min(Number(count), set.size))
  if (tooLarge !== null) return tooLarge
  return chargedReply(ctx, sampleMembers(set, count))
}

/** SRANDMEMBER's distinct members for a positive count. */
function sampleMembers(set: SetValue, count: bigint): string[] {
  if (count >= BigInt(set.size)) return set.members()
  const wanted = Number(count)
  if (wanted * 3 > set.size) {
    // Close to the whole set: drop random members until `wanted` remain (Redis's CASE 3).
    const members = set.members()
    for (let remaining = members.length; remaining > wanted; remaining--) {
      members[Math.floor(Math.random() * remaining)] = members[remaining - 1]
    }
    members.length = wanted
    return members
  }
  const picked = new Set<string>()
  while (picked.size < wanted) picked.add(set.randomMember())
  return [...picked]
}

// ---- SINTER, SINTERSTORE, SINTERCARD ----

/**
 * The sets named by `keys`, all type-checked: WRONGTYPE wins over a missing key wherever it
 * stands. A missing key is `undefined` (an empty set).
 */
function readSets(ctx: CommandContext, keys: readonly string[]): (SetValue | undefined)[] | ReplyError {
  const sets: (SetValue | undefined)[] = []
  for (const key of keys) {
    const set = readSet(ctx, key)
    if (set instanceof ReplyError) return set
    sets.push(set)
  }
  return sets
}

/**
 * Members common to all `sets`: the smallest set is walked in its order and each member tested
 * against the others, as Redis does. Stops after `limit` members when `limit` > 0.
 */
function intersect(sets: readonly (SetValue | undefined)[], limit: number, visit: (member: string) => void): void {
  if (sets.some((set) => set === undefined)) return
  const ordered = (sets as SetValue[]).slice().sort((a, b) => a.size - b.size)
  const [smallest, ...others] = ordered
  let found = 0
  for (const member of smallest.members()) {
    if (!others.every((set) => set === smallest || set.has(member))) continue
    visit(member)
    if (limit > 0 && ++found >= limit) return
  }
}

function sinter(ctx: CommandContext, argv: readonly string[]): Out {
  const sets = readSets(ctx, argv.slice(1))
  if (sets instanceof ReplyError) return sets
  const members: string[] = []
  intersect(sets, 0, (member) => members.push(member))
  return members
}

function sinterstore(ctx: CommandContext, argv: readonly string[]): Out {
  const sets = readSets(ctx, argv.slice(2))
  if (sets instanceof ReplyError) return sets
  const result = new SetValue()
  const limit = intsetLimit(ctx)
  intersect(sets, 0, (member) => result.add(member, limit))
  return store(ctx, argv[1], result, 'sinterstore')
}

/** `SINTERCARD numkeys key [key ...] [LIMIT limit]`: options are checked before the keys. */
function sintercard(ctx: CommandContext, argv: readonly string[]): Out {
  const numKeys = readInteger(argv[1])
  if (numKeys === null || numKeys < 1) return NUMKEYS_NOT_POSITIVE
  if (numKeys > argv.length - 2) return TOO_MANY_KEYS
  let limit = 0
  for (let i = 2 + numKeys; i < argv.length; i++) {
    if (argv[i].toLowerCase() === 'limit' && i + 1 < argv.length) {
      const value = readInteger(argv[++i])
      if (value === null || value < 0) return LIMIT_NEGATIVE
      limit = value
    } else {
      return SYNTAX
    }
  }
  const sets = readSets(ctx, argv.slice(2, 2 + numKeys))
  if (sets instanceof ReplyError) return sets
  let cardinality = 0
  intersect(sets, limit, () => cardinality++)
  return cardinality
}

// ---- SUNION, SUNIONSTORE, SDIFF, SDIFFSTORE ----

function union(sets: readonly (SetValue | undefined)[], limit: number): SetValue {
  const result = new SetValue()
  for (const set of sets) set?.forEach((member) => result.add(member, limit))
  return result
}

/**
 * Members of the first set absent from all the others, with Redis's choice of algorithm (it
 * decides the intermediate encoding): walk the first set testing the others when that is
 * cheaper, else copy the first set and remove the others' members.
 */
function difference(sets: readonly (SetValue | undefined)[], limit: number): SetValue {
  const result = new SetValue()
  const [first, ...others] = sets
  if (first === undefined || others.includes(first)) return result
  let walkWork = 0
  let removeWork = 0
  for (const set of sets) {
    if (set === undefined) continue
    walkWork += first.size
    removeWork += set.size
  }
  if (Math.floor(walkWork / 2) <= removeWork) {
    const subtract = others.filter((set): set is SetValue => set !== undefined).sort((a, b) => b.size - a.size)
    first.forEach((member) => {
      if (!subtract.some((set) => set.has(member))) result.add(member, limit)
    })
  } else {
    first.forEach((member) => result.add(member, limit))
    for (const set of others) set?.forEach((member) => result.delete(member))
  }
  return result
}

function sunion(ctx: CommandContext, argv: readonly string[]): Out {
  const sets = readSets(ctx, argv.slice(1))
  if (sets instanceof ReplyError) return sets
  return union(sets, intsetLimit(ctx)).members()
}

function sunionstore(ctx: CommandContext, argv: readonly string[]): Out {
  const sets = readSets(ctx, argv.slice(2))
  if (sets instanceof ReplyError) return sets
  return store(ctx, argv[1], union(sets, intsetLimit(ctx)), 'sunionstore')
}

function sdiff(ctx: CommandContext, argv: readonly string[]): Out {
  const sets = readSets(ctx, argv.slice(1))
  if (sets instanceof ReplyError) return sets
  return difference(sets, intsetLimit(ctx)).members()
}

function sdiffstore(ctx: CommandContext, argv: readonly string[]): Out {
  const sets = readSets(ctx, argv.slice(2))
  if (sets instanceof ReplyError) return sets
  return store(ctx, argv[1], difference(sets, intsetLimit(ctx)), 'sdiffstore')
}

/**
 * The *STORE commands: the result replaces whatever `destination` held (any type, TTL dropped);
 * an empty result deletes it. Replies the result's size.
 */
function store(ctx: CommandContext, destination: string, result: SetValue, event: string): Out {
  if (result.size === 0) {
    if (ctx.db.delete(destination, ctx.now)) notify(ctx, NOTIFY_GENERIC, 'del', destination)
  } else {
    ctx.db.reclaimIfExpired(destination, ctx)
    ctx.db.set(destination, result)
    notify(ctx, NOTIFY_SET, event, destination)
  }
  return result.size
}

// ---- SSCAN ----

function sscan(ctx: CommandContext, argv: readonly string[]): Out {
  const cursor = parseScanCursor(argv[2])
  if (cursor === null) return INVALID_CURSOR
  const set = readSet(ctx, argv[1])
  if (set instanceof ReplyError) return set
  if (set === undefined) return EMPTY_SCAN
  // NOVALUES is HSCAN-only (Redis 7.4); Redis 7.0 answers a syntax error for it everywhere.
  const options = parseScanOptions(argv, 3, false)
  if (options instanceof ReplyError) return options
  const { match, count } = options
  const step = set.scan(cursor, count)
  const members = match === null ? step.members : step.members.filter((member) => globMatch(match, member))
  return [String(step.cursor), members]
}

/** Set commands. */
export const setCommands: CommandTable = {
  sadd,
  scard,
  sdiff,
  sdiffstore,
  sinter,
  sintercard,
  sinterstore,
  sismember,
  smembers,
  smismember,
  smove,
  spop,
  srandmember,
  srem,
  sscan,
  sunion,
  sunionstore,
}
