/**
 * What a write command logs in the append-only file: the form Redis 7.0 propagates (its
 * `rewriteClientCommandVector` / `alsoPropagate` calls), so that a replay at any later time
 * rebuilds the same keyspace. Relative times become absolute ones (a restart never extends a
 * TTL), commands whose effect depends on chance or on the clock log their outcome (SPOP logs the
 * members it removed, XADD `*` the ID it chose, INCRBYFLOAT the value it stored), and a command
 * whose reply proves it changed nothing logs nothing (Redis logs only when `server.dirty` moved).
 *
 * The function runs only when an AOF is on (the engine checks first), after the handler.
 */
import { NULL_ARRAY, ReplyError } from '../../../reply.js'
import type { CommandContext, Out } from '../command.js'
import type { ConsumerGroup } from '../types/stream-group.js'
import { formatId, parseId } from '../types/stream-id.js'
import { StreamValue } from '../types/stream.js'

/** Commands to log for one write: none (`null`), or one or more argv. */
export type Propagated = readonly (readonly string[])[] | null

type Rewrite = (ctx: CommandContext, argv: readonly string[], reply: Out) => Propagated

const AS_SENT = (argv: readonly string[]): Propagated => [argv]

/** Replies that prove nothing changed, for the commands whose reply counts what they changed. */
function changedNothing(reply: Out): boolean {
  return reply === 0 || reply === null || reply === NULL_ARRAY || (Array.isArray(reply) && reply.length === 0)
}

/** Logged as sent unless the reply shows no change (0, nil, empty array). */
const UNLESS_NOTHING: Rewrite = (_ctx, argv, reply) => (changedNothing(reply) ? null : [argv])

/**
 * The blocking list and sorted-set commands change data only through the non-blocking command
 * they run (LPOP, LMOVE, ZMPOP …, see `commands/blocking/`), which is logged itself.
 */
const VIA_NON_BLOCKING_FORM: Rewrite = () => null

/** The key's TTL after the command, logged as PEXPIREAT; a key the command deleted logs DEL. */
function absoluteExpiry(ctx: CommandContext, key: string): readonly string[] {
  if (ctx.db.data.get(key) === undefined) return ['DEL', key]
  const at = ctx.db.getExpire(key)
  return at === undefined ? ['PERSIST', key] : ['PEXPIREAT', key, String(at)]
}

const expireFamily: Rewrite = (ctx, argv, reply) => (reply === 1 ? [absoluteExpiry(ctx, argv[1])] : null)

const TIME_OPTIONS = new Set(['ex', 'px', 'exat', 'pxat'])

/** Index of the SET option word `option` (lowercase) after key and value, or -1. */
function setOption(argv: readonly string[], option: string): number {
  for (let i = 3; i < argv.length; i++) {
    const word = argv[i].toLowerCase()
    if (word === option) return i
    if (TIME_OPTIONS.has(word)) i++
  }
  return -1
}

/**
 * SET: logged only when it stored the value. With EX/PX/EXAT it logs `SET key value PXAT ms`;
 * otherwise as sent without GET (the old value is the client's business, not the log's).
 */
const set: Rewrite = (ctx, argv, reply) => {
  const get = setOption(argv, 'get') !== -1
  const nx = setOption(argv, 'nx') !== -1
  const xx = setOption(argv, 'xx') !== -1
  const stored = !get ? reply !== null : nx ? reply === null : xx ? reply !== null : true
  if (!stored) return null
  let timed = false
  for (let i = 3; i < argv.length; i++) {
    const word = argv[i].toLowerCase()
    if (word === 'ex' || word === 'px' || word === 'exat') timed = true
    if (TIME_OPTIONS.has(word)) i++
  }
  if (timed) return [setWithDeadline(ctx, argv[1], argv[2])]
  if (!get) return [argv]
  const at = setOption(argv, 'get')
  return [[...argv.slice(0, at), ...argv.slice(at + 1)]]
}

function setWithDeadline(ctx: CommandContext, key: string, value: string): readonly string[] {
  const at = ctx.db.getExpire(key)
  // A deadline already due deleted the key at once: the log says so.
  if (ctx.db.data.get(key) === undefined || at === undefined) return ['DEL', key]
  return ['SET', key, value, 'PXAT', String(at)]
}

/** SETEX, PSETEX: `SET key value PXAT ms`. */
const setex: Rewrite = (ctx, argv) => [setWithDeadline(ctx, argv[1], argv[3])]

/** GETEX: a new TTL logs PEXPIREAT (DEL when already due), PERSIST logs PERSIST, no option logs nothing. */
const getex: Rewrite = (ctx, argv, reply) => {
  if (reply === null || argv.length === 2) return null
  const option = argv[2].toLowerCase()
  if (option === 'persist') return [['PERSIST', argv[1]]]
  return [absoluteExpiry(ctx, argv[1])]
}

/** GETDEL: `DEL key` when there was a key. */
const getdel: Rewrite = (_ctx, argv, reply) => (reply === null ? null : [['DEL', argv[1]]])

/** INCRBYFLOAT: the stored value, `SET key value KEEPTTL` (float formatting differs between builds). */
const incrbyfloat: Rewrite = (_ctx, argv, reply) => [['SET', argv[1], reply as string, 'KEEPTTL']]

/** HINCRBYFLOAT: `HSET key field value` with the stored value. */
const hincrbyfloat: Rewrite = (_ctx, argv, reply) => [['HSET', argv[1], argv[2], reply as string]]

/** Members per SREM when SPOP logs its removals, as Redis batches them. */
const SPOP_BATCH = 1024

/**
 * SPOP: the members removed, as SREM (the last member's SREM deletes the set); SPOP with a count
 * that empties the set logs DEL.
 */
const spop: Rewrite = (ctx, argv, reply) => {
  if (reply === null || (Array.isArray(reply) && reply.length === 0)) return null
  const key = argv[1]
  if (typeof reply === 'string') return [['SREM', key, reply]]
  if (ctx.db.data.get(key) === undefined) return [['DEL', key]]
  const members = reply as readonly string[]
  const out: string[][] = []
  for (let i = 0; i < members.length; i += SPOP_BATCH) out.push(['SREM', key, ...members.slice(i, i + SPOP_BATCH)])
  return out
}

/** XADD: the ID it chose instead of `*` or a partial ID; nothing when NOMKSTREAM found no stream. */
const xadd: Rewrite = (_ctx, argv, reply) => {
  if (reply === null || typeof reply !== 'string') return null
  const out = argv.slice()
  const at = xaddIdIndex(argv)
  out[at] = reply
  return [out]
}

/** Where XADD's ID is: after the key and the NOMKSTREAM / MAXLEN / MINID / LIMIT options. */
function xaddIdIndex(argv: readonly string[]): number {
  let i = 2
  while (i < argv.length) {
    const word = argv[i].toLowerCase()
    if (word === 'nomkstream') i++
    else if (word === 'maxlen' || word === 'minid') {
      i++
      if (argv[i] === '~' || argv[i] === '=') i++
      i++
    } else if (word === 'limit') i += 2
    else return i
  }
  return i
}

/**
 * The pending entry `id` of `group` as Redis logs a delivery or a claim: an XCLAIM that forces
 * the entry into the consumer's PEL with its delivery time and count, and the group's last ID
 * (`streamPropagateXCLAIM`). Replayed later, it restores the PEL exactly, whatever the time.
 */
function claimForm(key: string, groupName: string, group: ConsumerGroup, consumer: string, id: string): readonly string[] | undefined {
  const parsed = parseId(id)
  const pending = parsed === null ? undefined : group.pending.get(parsed)
  if (pending === undefined) return undefined
  return [
    'XCLAIM', key, groupName, consumer, '0', id, 'TIME', String(pending.deliveryTime),
    'RETRYCOUNT', String(pending.deliveryCount), 'FORCE', 'JUSTID', 'LASTID', formatId(group.lastId),
  ]
}

function groupOf(ctx: CommandContext, key: string, groupName: string): ConsumerGroup | undefined {
  const stream = ctx.db.data.get(key)
  return stream instanceof StreamValue ? stream.groups.get(groupName) : undefined
}

/** The ID of one entry of a stream reply (`[id, fields]`, or the bare ID under JUSTID); null for a deleted one. */
function entryId(entry: Out): string | undefined {
  if (typeof entry === 'string') return entry
  return Array.isArray(entry) && typeof entry[0] === 'string' ? entry[0] : undefined
}

/**
 * XREADGROUP: each delivered entry as an XCLAIM, or under NOACK the group's new last ID as
 * `XGROUP SETID key group id ENTRIESREAD n`, as Redis 7.0 propagates a read; entries taken by
 * CLAIM (Redis 8.4) as XCLAIM either way.
 */
const xreadgroup: Rewrite = (ctx, argv, reply) => {
  if (!Array.isArray(reply) || reply.length === 0) return null
  const groupName = argv[2]
  const consumer = argv[3]
  const noack = argv.some((word, i) => i > 3 && word.toLowerCase() === 'noack')
  const out: (readonly string[])[] = []
  for (const item of reply as readonly Out[]) {
    const [key, entries] = item as readonly [string, readonly Out[]]
    const group = groupOf(ctx, key, groupName)
    if (group === undefined) continue
    for (const entry of entries) {
      const id = entryId(entry)
      // An idle entry taken by CLAIM (reported with its idle time and deliveries) stays pending under NOACK too.
      const claimedIdle = Array.isArray(entry) && entry.length === 4
      const claim = id === undefined || (noack && !claimedIdle) ? undefined : claimForm(key, groupName, group, consumer, id)
      if (claim !== undefined) out.push(claim)
    }
    // Without NOACK the claims carry the group's last ID (LASTID); with it, SETID does.
    if (noack) out.push(['XGROUP', 'SETID', key, groupName, formatId(group.lastId), 'ENTRIESREAD', String(group.entriesRead)])
  }
  return out.length === 0 ? null : out
}

/** XCLAIM: each entry it claimed, in the forced form above. */
const xclaim: Rewrite = (ctx, argv, reply) => claims(ctx, argv[1], argv[2], argv[3], Array.isArray(reply) ? (reply as readonly Out[]) : [])

/** XAUTOCLAIM: the claimed entries, as XCLAIM; entries found deleted leave the PEL, logged as XACK. */
const xautoclaim: Rewrite = (ctx, argv, reply) => {
  if (!Array.isArray(reply)) return null
  const [, claimed, deleted] = reply as unknown as readonly [Out, readonly Out[], readonly Out[] | undefined]
  const out = [...(claims(ctx, argv[1], argv[2], argv[3], claimed) ?? [])]
  if (deleted !== undefined && deleted.length > 0) out.push(['XACK', argv[1], argv[2], ...(deleted as string[])])
  return out.length === 0 ? null : out
}

function claims(ctx: CommandContext, key: string, groupName: string, consumer: string, entries: readonly Out[]): Propagated {
  const group = groupOf(ctx, key, groupName)
  if (group === undefined) return null
  const out: (readonly string[])[] = []
  for (const entry of entries) {
    const id = entryId(entry)
    const claim = id === undefined ? undefined : claimForm(key, groupName, group, consumer, id)
    if (claim !== undefined) out.push(claim)
  }
  return out.length === 0 ? null : out
}

/** RESTORE with a relative TTL: the absolute one, with ABSTTL added, as Redis logs it. */
const restore: Rewrite = (ctx, argv) => {
  const ttl = Number(argv[2])
  if (ttl === 0 || argv.some((word, i) => i > 3 && word.toLowerCase() === 'absttl')) return [argv]
  const out = argv.slice()
  out[2] = String(ctx.now + ttl)
  out.push('ABSTTL')
  return [out]
}

/** HEXPIRE, HPEXPIRE, HEXPIREAT: `HPEXPIREAT key ms …` with the same condition and fields. */
function hashFieldExpiry(unitMs: number, relative: boolean): Rewrite {
  return (ctx, argv, reply) => {
    if (reply instanceof ReplyError) return null
    const at = Math.floor((relative ? ctx.now : 0) + Number(argv[2]) * unitMs)
    return [['HPEXPIREAT', argv[1], String(at), ...argv.slice(3)]]
  }
}

/** The absolute form of an `EX s | PX ms | EXAT s` pair at `i`, as `PXAT ms`. */
function absolutePair(ctx: CommandContext, argv: readonly string[], i: number): readonly string[] | undefined {
  const word = argv[i].toLowerCase()
  const amount = Number(argv[i + 1])
  if (word === 'ex') return ['PXAT', String(ctx.now + amount * 1000)]
  if (word === 'px') return ['PXAT', String(ctx.now + amount)]
  if (word === 'exat') return ['PXAT', String(amount * 1000)]
  return undefined
}

/** HGETEX: a new field TTL logs HPEXPIREAT on the fields, PERSIST logs HPERSIST, no option nothing. */
const hgetex: Rewrite = (ctx, argv) => {
  const option = argv[2].toLowerCase()
  if (option === 'persist') return [['HPERSIST', argv[1], ...argv.slice(3)]]
  const pair = absolutePair(ctx, argv, 2) ?? (option === 'pxat' ? ['PXAT', argv[3]] : undefined)
  if (pair === undefined) return null
  return [['HPEXPIREAT', argv[1], pair[1], ...argv.slice(4)]]
}

/** HSETEX: relative TTLs become `PXAT ms`; logged only when it stored (reply 1). */
const hsetex: Rewrite = (ctx, argv, reply) => {
  if (reply !== 1) return null
  const out: string[] = []
  for (let i = 0; i < argv.length; i++) {
    const pair = i >= 2 ? absolutePair(ctx, argv, i) : undefined
    if (pair !== undefined && !isFieldsStart(argv, i)) {
      out.push(...pair)
      i++
    } else out.push(argv[i])
  }
  return [out]
}

/** True once HSETEX's argv reached FIELDS (field names may spell `EX`). */
function isFieldsStart(argv: readonly string[], i: number): boolean {
  for (let j = 2; j < i; j++) if (argv[j].toLowerCase() === 'fields') return true
  return false
}

/** PFCOUNT of one existing key: logged as sent, since it updated the HLL's cached cardinality. */
const pfcount: Rewrite = (ctx, argv) => (argv.length === 2 && ctx.db.data.get(argv[1]) !== undefined ? [argv] : null)

const REWRITES: ReadonlyMap<string, Rewrite> = new Map<string, Rewrite>([
  ['set', set],
  ['setex', setex],
  ['psetex', setex],
  ['getex', getex],
  ['getdel', getdel],
  ['expire', expireFamily],
  ['pexpire', expireFamily],
  ['expireat', expireFamily],
  ['pexpireat', expireFamily],
  ['incrbyfloat', incrbyfloat],
  ['hincrbyfloat', hincrbyfloat],
  ['spop', spop],
  ['xadd', xadd],
  ['restore', restore],
  ['xreadgroup', xreadgroup],
  ['pfcount', pfcount],
  ['xclaim', xclaim],
  ['xautoclaim', xautoclaim],
  ['hexpire', hashFieldExpiry(1000, true)],
  ['hpexpire', hashFieldExpiry(1, true)],
  ['hexpireat', hashFieldExpiry(1000, false)],
  ['hgetex', hgetex],
  ['hsetex', hsetex],
  ...['blpop', 'brpop', 'blmpop', 'blmove', 'brpoplpush', 'bzpopmin', 'bzpopmax', 'bzmpop'].map(
    (name): [string, Rewrite] => [name, VIA_NON_BLOCKING_FORM],
  ),
  ...[
    'del', 'unlink', 'sadd', 'srem', 'smove', 'zrem', 'zremrangebyscore', 'zremrangebyrank', 'zremrangebylex',
    'hdel', 'lrem', 'persist', 'hsetnx', 'setnx', 'msetnx', 'renamenx', 'move', 'copy', 'pfadd', 'lpushx',
    'rpushx', 'lpop', 'rpop', 'lmove', 'rpoplpush', 'zpopmin', 'zpopmax', 'lmpop', 'zmpop', 'hpersist',
    'xdel', 'xtrim', 'xgroup|destroy', 'xgroup|delconsumer', 'xack', 'zremrangebyscore',
  ].map((name): [string, Rewrite] => [name, UNLESS_NOTHING]),
])

/**
 * The commands to log for a write command that succeeded. `null` when it changed nothing;
 * commands without a rewrite are logged as sent.
 */
export function propagatedForm(ctx: CommandContext, argv: readonly string[], reply: Out): Propagated {
  const rewrite = REWRITES.get(ctx.name)
  return rewrite === undefined ? AS_SENT(argv) : rewrite(ctx, argv, reply)
}
