/**
 * XCLAIM and XAUTOCLAIM (Redis 7.0): moving pending entries to another consumer.
 *
 * In 7.0 the claiming consumer is created (or its seen-time refreshed) only when an entry is
 * actually claimed; 7.2+ does it up front. Entries deleted from the stream are dropped from the
 * PEL on the way (XAUTOCLAIM lists them in its third reply element).
 */
import { ReplyError } from '../../../../reply.js'
import type { CommandContext, CommandTable, Out } from '../../command.js'
import { SYNTAX } from '../../errors.js'
import { readInt64, readInteger } from '../../lib/numbers.js'
import type { StreamValue } from '../../types/stream.js'
import { countDelivery, type Consumer, type ConsumerGroup, type PendingEntry } from '../../types/stream-group.js'
import {
  compareIds,
  exact,
  formatId,
  MIN_ID,
  nextId,
  parseStrictId,
  type StreamId,
  type U64,
} from '../../types/stream-id.js'
import { activeConsumer, entryReply, errorArg, INVALID_ID, keyword, noKeyOrGroup, parseIntervalStart, readStream } from './common.js'

const XCLAIM_MIN_IDLE = new ReplyError('ERR Invalid min-idle-time argument for XCLAIM')
const XCLAIM_IDLE = new ReplyError('ERR Invalid IDLE option argument for XCLAIM')
const XCLAIM_TIME = new ReplyError('ERR Invalid TIME option argument for XCLAIM')
const XCLAIM_RETRYCOUNT = new ReplyError('ERR Invalid RETRYCOUNT option argument for XCLAIM')
const XAUTOCLAIM_MIN_IDLE = new ReplyError('ERR Invalid min-idle-time argument for XAUTOCLAIM')
const XAUTOCLAIM_COUNT = new ReplyError('ERR COUNT must be > 0')
const XAUTOCLAIM_TOO_MANY = new ReplyError(
  'ERR Insufficient memory, failed allocating transient memory, COUNT too high.',
)

/** XAUTOCLAIM scans at most this many PEL entries per entry it may claim. */
const ATTEMPTS_FACTOR = 10
/** COUNT's upper bound: LONG_MAX / max(sizeof(streamID), ATTEMPTS_FACTOR). */
const XAUTOCLAIM_MAX_COUNT = 576460752303423487n
/**
 * Largest COUNT for which a 64-bit Linux redis-server 7.0 obtains the `COUNT * 16` bytes it
 * allocates up front for the deleted IDs (80 TiB of address space); above it, it answers
 * "Insufficient memory". Platform-dependent in Redis; this engine allocates nothing up front and
 * only reproduces the answer.
 */
const XAUTOCLAIM_ALLOCATABLE_COUNT = 5497558138880

/** The stream and group a claim works on, or NOGROUP / WRONGTYPE. */
function claimTarget(ctx: CommandContext, argv: readonly string[]): [StreamValue, ConsumerGroup] | ReplyError {
  const stream = readStream(ctx, argv[1])
  if (stream instanceof ReplyError) return stream
  const group = stream?.groups.get(argv[2])
  if (stream === undefined || group === undefined) return noKeyOrGroup(argv[1], argv[2])
  return [stream, group]
}

/** XCLAIM's options after the IDs. */
interface ClaimOptions {
  force: boolean
  justId: boolean
  /** Delivery time to set: null for now. */
  deliveryTime: number | null
  /** RETRYCOUNT, or null to count one more delivery (unless JUSTID). */
  retryCount: U64 | null
  lastId: StreamId
}

function parseClaimOptions(argv: readonly string[], from: number, now: number): ClaimOptions | ReplyError {
  const options: ClaimOptions = { force: false, justId: false, deliveryTime: null, retryCount: null, lastId: MIN_ID }
  for (let j = from; j < argv.length; j++) {
    const moreArgs = argv.length - 1 - j
    const word = keyword(argv[j])
    if (word === 'force') options.force = true
    else if (word === 'justid') options.justId = true
    else if (word === 'idle' && moreArgs > 0) {
      const idle = readInteger(argv[++j])
      if (idle === null) return XCLAIM_IDLE
      options.deliveryTime = now - idle
    } else if (word === 'time' && moreArgs > 0) {
      const time = readInteger(argv[++j])
      if (time === null) return XCLAIM_TIME
      options.deliveryTime = time
    } else if (word === 'retrycount' && moreArgs > 0) {
      const count = readInt64(argv[++j])
      if (count === null) return XCLAIM_RETRYCOUNT
      options.retryCount = count < 0n ? null : exact(count)
    } else if (word === 'lastid' && moreArgs > 0) {
      const id = parseStrictId(argv[++j])
      if (id === null) return INVALID_ID
      options.lastId = id
    } else return new ReplyError(`ERR Unrecognized XCLAIM option '${errorArg(argv[j])}'`)
  }
  return options
}

/**
 * XCLAIM key group consumer min-idle-time id … [IDLE ms] [TIME ms] [RETRYCOUNT n] [FORCE] [JUSTID]
 * [LASTID id]: gives the listed pending entries idle for at least min-idle-time to `consumer` and
 * answers them (or their IDs with JUSTID). The first argument that is not an ID starts the options.
 */
function xclaim(ctx: CommandContext, argv: readonly string[]): Out {
  const target = claimTarget(ctx, argv)
  if (target instanceof ReplyError) return target
  const [stream, group] = target
  const minIdleParsed = readInteger(argv[4])
  if (minIdleParsed === null) return XCLAIM_MIN_IDLE
  const minIdle = Math.max(0, minIdleParsed)
  const ids: StreamId[] = []
  let j = 5
  for (; j < argv.length; j++) {
    const id = parseStrictId(argv[j])
    if (id === null) break
    ids.push(id)
  }
  const now = ctx.now
  const options = parseClaimOptions(argv, j, now)
  if (options instanceof ReplyError) return options
  if (compareIds(options.lastId, group.lastId) > 0) group.lastId = options.lastId
  // A delivery time in the future or before the epoch is taken as now, not refused.
  let deliveryTime = options.deliveryTime ?? now
  if (deliveryTime < 0 || deliveryTime > now) deliveryTime = now
  let consumer: Consumer | undefined
  const out: Out[] = []
  for (const id of ids) {
    let entry = group.pending.get(id)
    const streamEntry = stream.get(id)
    if (streamEntry === undefined) {
      if (entry !== undefined) group.acknowledge(id)
      continue
    }
    if (options.force && entry === undefined) {
      entry = { id, consumer: null, deliveryTime: now, deliveryCount: 1 }
      group.pending.set(entry)
    }
    if (entry === undefined) continue
    // An entry FORCE just created has no owner yet and no idle time to check.
    if (entry.consumer !== null && minIdle !== 0 && now - entry.deliveryTime < minIdle) continue
    consumer ??= activeConsumer(ctx, argv[1], group, argv[3], now)
    entry.deliveryTime = deliveryTime
    if (options.retryCount !== null) entry.deliveryCount = options.retryCount
    else if (!options.justId) countDelivery(entry)
    group.assign(entry, consumer)
    out.push(options.justId ? formatId(id) : entryReply(streamEntry))
  }
  return out
}

/**
 * XAUTOCLAIM key group consumer min-idle-time start [COUNT count] [JUSTID]: claims up to `count`
 * pending entries from `start` on that are idle long enough, scanning at most `count * 10` of them.
 * Answers `[next-start (0-0 when the scan reached the end), claimed, deleted-ids]`.
 */
function xautoclaim(ctx: CommandContext, argv: readonly string[]): Out {
  const minIdleParsed = readInteger(argv[4])
  if (minIdleParsed === null) return XAUTOCLAIM_MIN_IDLE
  const minIdle = Math.max(0, minIdleParsed)
  const start = parseIntervalStart(argv[5])
  if (start instanceof ReplyError) return start
  let count = 100
  let justId = false
  for (let j = 6; j < argv.length; j++) {
    const moreArgs = argv.length - 1 - j
    const word = keyword(argv[j])
    if (word === 'count' && moreArgs > 0) {
      const parsed = readInt64(argv[++j])
      if (parsed === null || parsed < 1n || parsed > XAUTOCLAIM_MAX_COUNT) return XAUTOCLAIM_COUNT
      count = Number(parsed)
    } else if (word === 'justid') justId = true
    else return SYNTAX
  }
  const target = claimTarget(ctx, argv)
  if (target instanceof ReplyError) return target
  if (count > XAUTOCLAIM_ALLOCATABLE_COUNT) return XAUTOCLAIM_TOO_MANY
  const [stream, group] = target
  const now = ctx.now
  let consumer: Consumer | undefined
  let attempts = count * ATTEMPTS_FACTOR
  const claimed: Out[] = []
  const deleted: Out[] = []
  // The cursor is computed before an entry is dropped or moved: the group's PEL only loses
  // entries deleted from the stream, and the successor of one is the same before and after.
  let cursor = group.pending.ceiling(start)
  while (attempts-- > 0 && count > 0 && cursor !== undefined) {
    const entry: PendingEntry = cursor
    cursor = successor(group, entry)
    const streamEntry = stream.get(entry.id)
    if (streamEntry === undefined) {
      group.acknowledge(entry.id)
      deleted.push(formatId(entry.id))
      count--
      continue
    }
    if (minIdle !== 0 && now - entry.deliveryTime < minIdle) continue
    consumer ??= activeConsumer(ctx, argv[1], group, argv[3], now)
    entry.deliveryTime = now
    if (!justId) countDelivery(entry)
    group.assign(entry, consumer)
    claimed.push(justId ? formatId(entry.id) : entryReply(streamEntry))
    count--
  }
  return [cursor === undefined ? '0-0' : formatId(cursor.id), claimed, deleted]
}

/** The pending entry after `entry` in the group's PEL. */
function successor(group: ConsumerGroup, entry: PendingEntry): PendingEntry | undefined {
  const after = nextId(entry.id)
  return after === null ? undefined : group.pending.ceiling(after)
}

export const claimCommands: CommandTable = { xclaim, xautoclaim }
