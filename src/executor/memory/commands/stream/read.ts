/**
 * XRANGE, XREVRANGE, XREAD and XREADGROUP (Redis 7.0).
 *
 * BLOCK: a read that finds nothing blocks the client on its streams (`../../blocking.ts`) when
 * it may block, that is on a connection's session outside MULTI/EXEC and scripts; elsewhere (a
 * REST call, a transaction, a script) it answers the null array at once, as Redis answers a
 * client that may not block. A blocked reader is served from the one stream that got new
 * entries, as Redis 7.0 serves it (`serveClientsBlockedOnStreamKey`); a blocked XREADGROUP whose
 * group or stream goes away gets Redis's error.
 */
import { NULL_ARRAY, ReplyError } from '../../../../reply.js'
import type { CommandContext, CommandTable, Out } from '../../command.js'
import { NOT_INTEGER, SYNTAX, TIMEOUT_NEGATIVE } from '../../errors.js'
import { readInteger } from '../../lib/numbers.js'
import { idOf, type StreamEntry, type StreamValue } from '../../types/stream.js'
import { countDelivery, type Consumer, type ConsumerGroup, type PendingEntry } from '../../types/stream-group.js'
import {
  compareIds,
  formatId,
  isSymbol,
  MAX_ID,
  MIN_ID,
  nextId,
  parseStrictId,
  type StreamId,
} from '../../types/stream-id.js'
import {
  activeConsumer,
  deliveryCountReply,
  entriesReply,
  entryReply,
  INVALID_ID,
  keyword,
  noKeyOrGroup,
  parseIntervalEnd,
  parseIntervalStart,
  readStream,
} from './common.js'
import { blockClient, mayBlock, readMillisecondsTimeout } from '../blocking/common.js'
import { type BlockedClient, type BlockSpec, GROUP_DELETED, STREAM_DELETED } from '../../blocking.js'
import { StreamValue as StreamClass } from '../../types/stream.js'

const UNBALANCED = new ReplyError(
  "ERR Unbalanced XREAD list of streams: for each stream key an ID or '$' must be specified.",
)
const GROUP_ONLY_XREADGROUP = new ReplyError(
  'ERR The GROUP option is only supported by XREADGROUP. You called XREAD instead.',
)
const NOACK_ONLY_XREADGROUP = new ReplyError(
  'ERR The NOACK option is only supported by XREADGROUP. You called XREAD instead.',
)
const CLAIM_ONLY_XREADGROUP = new ReplyError(
  'ERR The CLAIM option is only supported by XREADGROUP. You called XREAD instead.',
)
const NEGATIVE_MIN_IDLE = new ReplyError('ERR min-idle-time must be a positive integer')
const MISSING_GROUP = new ReplyError('ERR Missing GROUP option for XREADGROUP')
const DOLLAR_IN_XREADGROUP = new ReplyError(
  'ERR The $ ID is meaningless in the context of XREADGROUP: you want to read the history of this consumer by specifying a proper ID, or use the > ID to get new messages. The $ ID would just return an empty result set.',
)
const GREATER_ONLY_XREADGROUP = new ReplyError(
  'ERR The > ID can be specified only when calling XREADGROUP using the GROUP <group> <consumer> option.',
)

/**
 * XRANGE key start end [COUNT n] / XREVRANGE key end start [COUNT n]: entries between the bounds
 * (`-`, `+`, partial IDs, `(` for exclusive). COUNT 0 (or negative) answers the null array when the
 * key exists, as Redis does.
 */
function rangeCommand(ctx: CommandContext, argv: readonly string[], reverse: boolean): Out {
  const start = parseIntervalStart(reverse ? argv[3] : argv[2])
  if (start instanceof ReplyError) return start
  const end = parseIntervalEnd(reverse ? argv[2] : argv[3])
  if (end instanceof ReplyError) return end
  let count = -1
  for (let j = 4; j < argv.length; j++) {
    if (keyword(argv[j]) === 'count' && j + 1 < argv.length) {
      const parsed = readInteger(argv[++j])
      if (parsed === null) return NOT_INTEGER
      count = Math.max(0, parsed)
    } else return SYNTAX
  }
  const stream = readStream(ctx, argv[1])
  if (stream instanceof ReplyError) return stream
  if (stream === undefined) return []
  if (count === 0) return NULL_ARRAY
  return entriesReply(stream.range(start, end, count === -1 ? 0 : count, reverse))
}

function xrange(ctx: CommandContext, argv: readonly string[]): Out {
  return rangeCommand(ctx, argv, false)
}

function xrevrange(ctx: CommandContext, argv: readonly string[]): Out {
  return rangeCommand(ctx, argv, true)
}

/** The options of XREAD / XREADGROUP before STREAMS. */
interface ReadOptions {
  readonly count: number
  readonly streamsAt: number
  readonly streamCount: number
  readonly groupName: string | undefined
  readonly consumerName: string
  readonly noAck: boolean
  /** BLOCK's milliseconds (0: forever), undefined without BLOCK. */
  readonly block: number | undefined
  /** CLAIM's min-idle-time in milliseconds (Redis 8.4), undefined without CLAIM. */
  readonly claim: number | undefined
}

function parseReadOptions(argv: readonly string[], groupMode: boolean, inScript: boolean): ReadOptions | ReplyError {
  let count = 0
  let streamsAt = 0
  let streamCount = 0
  let groupName: string | undefined
  let consumerName = ''
  let noAck = false
  let block: number | undefined
  let claim: number | undefined
  for (let i = 1; i < argv.length; i++) {
    const moreArgs = argv.length - 1 - i
    const word = keyword(argv[i])
    if (word === 'block' && moreArgs > 0) {
      // Redis refuses BLOCK in scripts outright (not just answering as timed out), for compatibility.
      if (inScript) return new ReplyError(`ERR ${argv[0]} command is not allowed with BLOCK option from scripts`)
      const timeout = readMillisecondsTimeout(argv[++i])
      if (timeout instanceof ReplyError) return timeout
      block = timeout
    } else if (word === 'count' && moreArgs > 0) {
      const parsed = readInteger(argv[++i])
      if (parsed === null) return NOT_INTEGER
      count = Math.max(0, parsed)
    } else if (word === 'streams' && moreArgs > 0) {
      streamsAt = i + 1
      const rest = argv.length - streamsAt
      if (rest % 2 !== 0) return UNBALANCED
      streamCount = rest / 2
      break
    } else if (word === 'group' && moreArgs >= 2) {
      if (!groupMode) return GROUP_ONLY_XREADGROUP
      groupName = argv[i + 1]
      consumerName = argv[i + 2]
      i += 2
    } else if (word === 'noack') {
      if (!groupMode) return NOACK_ONLY_XREADGROUP
      noAck = true
    } else if (word === 'claim' && moreArgs > 0) {
      if (!groupMode) return CLAIM_ONLY_XREADGROUP
      const parsed = readInteger(argv[++i])
      if (parsed === null) return NOT_INTEGER
      if (parsed < 0) return NEGATIVE_MIN_IDLE
      claim = parsed
    } else return SYNTAX
  }
  if (streamsAt === 0) return SYNTAX
  if (groupMode && groupName === undefined) return MISSING_GROUP
  return { count, streamsAt, streamCount, groupName, consumerName, noAck, block, claim }
}

/** One stream to read: `after` is the ID to read past (MAX_ID stands for XREADGROUP's `>`). */
interface ReadTarget {
  readonly key: string
  readonly group: ConsumerGroup | undefined
  readonly after: StreamId
}

/**
 * XREAD [COUNT n] [BLOCK ms] STREAMS key … id … and XREADGROUP GROUP group consumer [COUNT n]
 * [BLOCK ms] [NOACK] STREAMS key … id …: for each stream with something to serve, `[key, entries]`;
 * the null array when none has (see the file comment about BLOCK).
 */
function readCommand(ctx: CommandContext, argv: readonly string[], groupMode: boolean): Out {
  const options = parseReadOptions(argv, groupMode, ctx.session.script !== undefined)
  if (options instanceof ReplyError) return options
  const { streamsAt, streamCount, groupName } = options
  const targets: ReadTarget[] = []
  for (let k = 0; k < streamCount; k++) {
    const key = argv[streamsAt + k]
    const idArg = argv[streamsAt + streamCount + k]
    const stream = readStream(ctx, key)
    if (stream instanceof ReplyError) return stream
    let group: ConsumerGroup | undefined
    if (groupName !== undefined) {
      group = stream?.groups.get(groupName)
      if (group === undefined) return noKeyOrGroup(key, groupName, ' in XREADGROUP with GROUP option')
    }
    let after: StreamId
    if (isSymbol(idArg, '$')) {
      if (groupMode) return DOLLAR_IN_XREADGROUP
      after = stream?.lastId ?? MIN_ID
    } else if (isSymbol(idArg, '>')) {
      if (!groupMode) return GREATER_ONLY_XREADGROUP
      after = MAX_ID
    } else {
      const parsed = parseStrictId(idArg)
      if (parsed === null) return INVALID_ID
      after = parsed
    }
    targets.push({ key, group, after })
  }
  const reply: Out[] = []
  for (const target of targets) {
    // Types were checked above and nothing ran since: a stream or nothing.
    const stream = readStream(ctx, target.key) as StreamValue | undefined
    if (stream === undefined) continue
    const served =
      target.group === undefined
        ? readPlain(stream, target.after, options.count)
        : readGroup(ctx, target.key, stream, target.group, target.after, options)
    if (served !== null) reply.push([target.key, served])
  }
  if (reply.length !== 0) return reply
  if (options.block === undefined || !mayBlock(ctx)) return NULL_ARRAY
  return blockReader(ctx, targets, options)
}

/**
 * Blocks a reader that found nothing. XREAD waits for entries past the ID it gave (`$` read as
 * the stream's last ID now); XREADGROUP for entries past its group's last delivered one. Served,
 * it runs the read without BLOCK on the one stream that got entries.
 */
function blockReader(ctx: CommandContext, targets: readonly ReadTarget[], options: ReadOptions): Out {
  const { engine, session } = ctx
  const dbIndex = ctx.db.index
  const countWords = options.count > 0 ? ['COUNT', String(options.count)] : []
  const groupName = options.groupName
  const afterByKey = new Map(targets.map((target) => [target.key, formatId(target.after)]))
  const serve = (key: string): Out | undefined => {
    let argv: string[]
    if (groupName === undefined) argv = ['XREAD', ...countWords, 'STREAMS', key, afterByKey.get(key) as string]
    else {
      const stream = engine.databases[dbIndex].data.get(key)
      if (!(stream instanceof StreamClass)) return STREAM_DELETED
      if (!stream.groups.has(groupName)) return GROUP_DELETED
      const claimWords = options.claim !== undefined ? ['CLAIM', String(options.claim)] : []
      argv = ['XREADGROUP', 'GROUP', groupName, options.consumerName, ...countWords, ...claimWords, ...(options.noAck ? ['NOACK'] : []), 'STREAMS', key, '>']
    }
    const out = engine.serveBlocked(session, dbIndex, argv)
    return out === NULL_ARRAY ? undefined : out
  }
  const spec: BlockSpec = {
    kind: 'stream',
    keys: targets.map((target) => target.key),
    timeout: options.block as number,
    timedOut: NULL_ARRAY,
    groupReader: groupName !== undefined,
    serve,
  }
  if (options.claim === undefined) return blockClient(ctx, spec)
  const client = engine.blocking.block(session, dbIndex, spec, ctx.name)
  wakeWhenIdle(ctx, client, targets, options.claim)
  return spec.timedOut
}

/**
 * XREADGROUP … CLAIM with BLOCK: a pending entry may reach min-idle-time while the client waits,
 * which serves it as new entries would. A timer readies the streams when the first pending entry
 * of the groups read becomes claimable, and again after that while the client still waits.
 */
function wakeWhenIdle(ctx: CommandContext, client: BlockedClient, targets: readonly ReadTarget[], minIdle: number): void {
  const { engine } = ctx
  const db = ctx.db
  let earliest = Infinity
  for (const target of targets) {
    target.group?.pending.forEachFrom(null, (pending) => {
      earliest = Math.min(earliest, pending.deliveryTime + minIdle)
      return true
    })
  }
  if (earliest === Infinity) return
  const timer = setTimeout(
    () => {
      if (engine.blocking.blockedCall(client.session.id) !== client) return
      for (const target of targets) engine.blocking.signal(db, target.key)
      engine.blocking.serveReady()
      if (engine.blocking.blockedCall(client.session.id) === client) wakeWhenIdle(ctx, client, targets, minIdle)
    },
    Math.max(1, earliest - engine.clock() + 1),
  )
  timer.unref?.()
}

/** XREAD of one stream: entries after `after`, or null when there are none. */
function readPlain(stream: StreamValue, after: StreamId, count: number): Out[] | null {
  const last = stream.lastEntry()
  if (last === undefined || compareIds(last, after) <= 0) return null
  return entriesReply(stream.range(nextId(after) ?? MIN_ID, MAX_ID, count))
}

/**
 * XREADGROUP of one stream: with `>`, new entries (null when there are none); with an ID, the
 * consumer's own pending entries after it. The consumer is created (or seen) only when served.
 */
function readGroup(
  ctx: CommandContext,
  key: string,
  stream: StreamValue,
  group: ConsumerGroup,
  after: StreamId,
  options: ReadOptions,
): Out[] | null {
  const history = compareIds(after, MAX_ID) !== 0
  // CLAIM applies to `>` only: the idle pending entries come first, then the new ones.
  const claimable = history || options.claim === undefined ? [] : idlePending(ctx, stream, group, options.claim, options.count)
  if (!history) {
    const last = stream.lastEntry()
    const hasNew = last !== undefined && compareIds(last, group.lastId) > 0
    if (!hasNew && claimable.length === 0) return null
    after = group.lastId
  }
  const consumer = activeConsumer(ctx, key, group, options.consumerName, ctx.now)
  const start = nextId(after) ?? MIN_ID
  if (history) return readHistory(ctx, stream, consumer, start, options.count)
  const claimed = claimIdle(ctx, stream, group, consumer, claimable)
  const room = options.count === 0 ? 0 : options.count - claimed.length
  if (options.count !== 0 && room === 0) return claimed
  const fresh = deliver(ctx, stream, group, consumer, stream.range(start, MAX_ID, room), options.noAck)
  return claimed.length === 0 ? fresh : [...claimed, ...fresh]
}

/**
 * XREADGROUP … CLAIM min-idle-time (Redis 8.4, from the XREADGROUP page): the group's pending
 * entries idle for at least `minIdle` ms, longest idle first (then by ID), at most `count` (0:
 * all). An entry deleted from the stream is not claimable: it stays pending, as XAUTOCLAIM is
 * what clears those.
 */
function idlePending(ctx: CommandContext, stream: StreamValue, group: ConsumerGroup, minIdle: number, count: number): PendingEntry[] {
  const now = ctx.now
  const idle: PendingEntry[] = []
  group.pending.forEachFrom(null, (pending) => {
    if (now - pending.deliveryTime >= minIdle && stream.get(pending.id) !== undefined) idle.push(pending)
    return true
  })
  // Stable sort: equal idle times keep the PEL's ID order.
  idle.sort((a, b) => a.deliveryTime - b.deliveryTime)
  return count === 0 ? idle : idle.slice(0, count)
}

/**
 * Claims `entries` for `consumer` as XCLAIM would (new owner, delivered now, one more delivery;
 * NOACK does not apply to them). Each is reported as `[id, fields, idle ms, deliveries]`: the
 * milliseconds since its last delivery and the times it was delivered before this one.
 */
function claimIdle(ctx: CommandContext, stream: StreamValue, group: ConsumerGroup, consumer: Consumer, entries: readonly PendingEntry[]): Out[] {
  const now = ctx.now
  return entries.map((pending) => {
    const [id, fields] = entryReply(stream.get(pending.id) as StreamEntry) as [Out, Out]
    const reply: Out[] = [id, fields, Math.max(0, now - pending.deliveryTime), deliveryCountReply(pending)]
    group.assign(pending, consumer)
    pending.deliveryTime = now
    countDelivery(pending)
    return reply
  })
}

/**
 * Delivers new entries to `consumer`: the group's last delivered ID and read counter move on, and
 * each entry enters the PELs unless NOACK. An entry already pending (after XGROUP SETID moved the
 * group back) changes owner and starts over at one delivery.
 */
function deliver(
  ctx: CommandContext,
  stream: StreamValue,
  group: ConsumerGroup,
  consumer: Consumer,
  entries: readonly StreamEntry[],
  noAck: boolean,
): Out[] {
  for (const entry of entries) {
    stream.advanceGroup(group, entry)
    if (noAck) continue
    const pending = group.pending.get(entry)
    if (pending === undefined) {
      const created: PendingEntry = { id: idOf(entry), consumer, deliveryTime: ctx.now, deliveryCount: 1 }
      group.pending.set(created)
      consumer.pending.set(created)
    } else {
      group.assign(pending, consumer)
      pending.deliveryTime = ctx.now
      pending.deliveryCount = 1
    }
  }
  return entriesReply(entries)
}

/**
 * The consumer's pending entries from `start` on (at most `count`, 0: all). Each one counts as
 * delivered again; one whose entry was deleted shows as `[id, nil]` and is left as it is.
 */
function readHistory(ctx: CommandContext, stream: StreamValue, consumer: Consumer, start: StreamId, count: number): Out[] {
  const out: Out[] = []
  consumer.pending.forEachFrom(start, (pending) => {
    if (count !== 0 && out.length >= count) return false
    const entry = stream.get(pending.id)
    if (entry === undefined) {
      out.push([formatId(pending.id), NULL_ARRAY])
      return true
    }
    out.push(entryReply(entry))
    pending.deliveryTime = ctx.now
    countDelivery(pending)
    return true
  })
  return out
}

function xread(ctx: CommandContext, argv: readonly string[]): Out {
  return readCommand(ctx, argv, false)
}

function xreadgroup(ctx: CommandContext, argv: readonly string[]): Out {
  return readCommand(ctx, argv, true)
}

export const readCommands: CommandTable = { xrange, xrevrange, xread, xreadgroup }
