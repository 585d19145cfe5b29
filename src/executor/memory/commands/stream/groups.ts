/**
 * XGROUP (CREATE, SETID, DESTROY, CREATECONSUMER, DELCONSUMER, HELP) and XPENDING (Redis 7.0).
 */
import { NOTIFY_STREAM, notify } from '../../notify.js'
import { OK, ReplyError, Status, NULL_ARRAY } from '../../../../reply.js'
import type { CommandContext, CommandTable, Out } from '../../command.js'
import { NOT_INTEGER, SYNTAX } from '../../errors.js'
import { readInt64, readInteger } from '../../lib/numbers.js'
import { StreamValue } from '../../types/stream.js'
import { ConsumerGroup, ENTRIES_READ_UNKNOWN, sortedByName } from '../../types/stream-group.js'
import {
  compareIds,
  exact,
  formatId,
  isSymbol,
  MIN_ID,
  parseId,
  parseStrictId,
  type StreamId,
  type U64,
} from '../../types/stream-id.js'
import {
  deliveryCountReply,
  INVALID_ID,
  keyword,
  noGroupForKey,
  noKeyOrGroup,
  parseIntervalEnd,
  parseIntervalStart,
  readStream,
  subcommandSyntaxError,
} from './common.js'

const KEY_REQUIRED = new ReplyError(
  'ERR The XGROUP subcommand requires the key to exist. Note that for CREATE you may want to use the MKSTREAM option to create an empty stream automatically.',
)
const BUSYGROUP = new ReplyError('BUSYGROUP Consumer Group name already exists')
const ENTRIES_READ_INVALID = new ReplyError('ERR value for ENTRIESREAD must be positive or -1')

const XGROUP_HELP: readonly Status[] = [
  'XGROUP <subcommand> [<arg> [value] [opt] ...]. Subcommands are:',
  'CREATE <key> <groupname> <id|$> [option]',
  '    Create a new consumer group. Options are:',
  '    * MKSTREAM',
  '      Create the empty stream if it does not exist.',
  '    * ENTRIESREAD entries_read',
  "      Set the group's entries_read counter (internal use).",
  'CREATECONSUMER <key> <groupname> <consumer>',
  '    Create a new consumer in the specified group.',
  'DELCONSUMER <key> <groupname> <consumer>',
  '    Remove the specified consumer.',
  'DESTROY <key> <groupname>',
  '    Remove the specified group.',
  'SETID <key> <groupname> <id|$> [ENTRIESREAD entries_read]',
  '    Set the current group ID and entries_read counter.',
  'HELP',
  '    Prints this help.',
].map((line) => new Status(line))

type Subcommand = 'create' | 'setid' | 'destroy' | 'createconsumer' | 'delconsumer'

/** What every XGROUP subcommand but HELP checks first (`xgroupCommand`'s prelude). */
interface GroupTarget {
  readonly stream: StreamValue | undefined
  readonly group: ConsumerGroup | undefined
  readonly entriesRead: U64
}

/**
 * The prelude: CREATE's and SETID's options (MKSTREAM, ENTRIESREAD), then the key (which must
 * exist unless MKSTREAM) and, for the subcommands that need it, the group.
 */
function groupTarget(ctx: CommandContext, argv: readonly string[], subcommand: Subcommand): GroupTarget | ReplyError {
  let mkStream = false
  let entriesRead: U64 = ENTRIES_READ_UNKNOWN
  for (let i = 5; i < argv.length; ) {
    const word = keyword(argv[i])
    if (subcommand === 'create' && word === 'mkstream') {
      mkStream = true
      i++
    } else if ((subcommand === 'create' || subcommand === 'setid') && word === 'entriesread' && i + 1 < argv.length) {
      const parsed = readInt64(argv[i + 1])
      if (parsed === null) return NOT_INTEGER
      if (parsed < 0n && parsed !== -1n) return ENTRIES_READ_INVALID
      entriesRead = exact(parsed)
      i += 2
    } else return subcommandSyntaxError(argv)
  }
  const stream = readStream(ctx, argv[2])
  if (stream instanceof ReplyError) return stream
  let group: ConsumerGroup | undefined
  if (!mkStream) {
    if (stream === undefined) return KEY_REQUIRED
    group = stream.groups.get(argv[3])
    if (group === undefined && subcommand !== 'create' && subcommand !== 'destroy') {
      return noGroupForKey(argv[2], argv[3])
    }
  }
  return { stream, group, entriesRead }
}

/**
 * XGROUP CREATE key group id|$ [MKSTREAM] [ENTRIESREAD n]: a group whose last delivered ID is
 * `id` (`$`: the stream's last ID). The read counter is unknown unless ENTRIESREAD gives it.
 */
function xgroupCreate(ctx: CommandContext, argv: readonly string[]): Out {
  const target = groupTarget(ctx, argv, 'create')
  if (target instanceof ReplyError) return target
  if (argv.length > 8) return subcommandSyntaxError(argv)
  let stream = target.stream
  let lastId: StreamId
  if (isSymbol(argv[4], '$')) lastId = stream?.lastId ?? MIN_ID
  else {
    const parsed = parseStrictId(argv[4])
    if (parsed === null) return INVALID_ID
    lastId = parsed
  }
  if (stream === undefined) {
    stream = new StreamValue()
    ctx.db.set(argv[2], stream)
  }
  const name = argv[3]
  if (stream.groups.has(name)) return BUSYGROUP
  stream.groups.set(name, new ConsumerGroup(name, lastId, target.entriesRead))
  notify(ctx, NOTIFY_STREAM, 'xgroup-create', argv[2])
  return OK
}

/**
 * XGROUP SETID key group id|$ [ENTRIESREAD n]: moves the last delivered ID (`-` and `+` allowed)
 * and sets the read counter (unknown unless given).
 */
function xgroupSetid(ctx: CommandContext, argv: readonly string[]): Out {
  const target = groupTarget(ctx, argv, 'setid')
  if (target instanceof ReplyError) return target
  if (argv.length !== 5 && argv.length !== 7) return subcommandSyntaxError(argv)
  const group = target.group!
  let lastId: StreamId
  if (isSymbol(argv[4], '$')) lastId = target.stream!.lastId
  else {
    const parsed = parseId(argv[4])
    if (parsed === null) return INVALID_ID
    lastId = parsed
  }
  group.lastId = lastId
  group.entriesRead = target.entriesRead
  notify(ctx, NOTIFY_STREAM, 'xgroup-setid', argv[2])
  return OK
}

/** XGROUP DESTROY key group: 1 when the group existed. */
function xgroupDestroy(ctx: CommandContext, argv: readonly string[]): Out {
  const target = groupTarget(ctx, argv, 'destroy')
  if (target instanceof ReplyError) return target
  if (target.group === undefined) return 0
  target.stream!.groups.delete(target.group.name)
  notify(ctx, NOTIFY_STREAM, 'xgroup-destroy', argv[2])
  return 1
}

/** XGROUP CREATECONSUMER key group consumer: 1 when created, 0 when it existed. */
function xgroupCreateConsumer(ctx: CommandContext, argv: readonly string[]): Out {
  const target = groupTarget(ctx, argv, 'createconsumer')
  if (target instanceof ReplyError) return target
  const group = target.group!
  if (group.consumers.has(argv[4])) return 0
  group.consumer(argv[4], ctx.now)
  notify(ctx, NOTIFY_STREAM, 'xgroup-createconsumer', argv[2])
  return 1
}

/** XGROUP DELCONSUMER key group consumer: how many entries the consumer had pending (now dropped). */
function xgroupDelConsumer(ctx: CommandContext, argv: readonly string[]): Out {
  const target = groupTarget(ctx, argv, 'delconsumer')
  if (target instanceof ReplyError) return target
  const group = target.group!
  const consumer = group.consumers.get(argv[4])
  if (consumer === undefined) return 0
  const pending = group.deleteConsumer(consumer)
  notify(ctx, NOTIFY_STREAM, 'xgroup-delconsumer', argv[2])
  return pending
}

function xgroupHelp(): Out {
  return XGROUP_HELP
}

/** XPENDING's extended form: `[IDLE min-idle] start end count [consumer]`. */
interface PendingRange {
  readonly minIdle: number
  readonly start: StreamId
  readonly end: StreamId
  readonly count: number
  readonly consumer: string | undefined
}

/** Parses the range form, before the key is looked at (Redis reports these errors first). */
function parsePendingRange(argv: readonly string[]): PendingRange | ReplyError {
  let at = 3
  let minIdle = 0
  if (keyword(argv[3]) === 'idle') {
    const parsed = readInteger(argv[4])
    if (parsed === null) return NOT_INTEGER
    if (argv.length < 8) return SYNTAX
    minIdle = parsed
    at += 2
  }
  const parsedCount = readInteger(argv[at + 2])
  if (parsedCount === null) return NOT_INTEGER
  const start = parseIntervalStart(argv[at])
  if (start instanceof ReplyError) return start
  const end = parseIntervalEnd(argv[at + 1])
  if (end instanceof ReplyError) return end
  // Any argument after the consumer is ignored, as Redis does.
  const consumer = at + 3 < argv.length ? argv[at + 3] : undefined
  return { minIdle, start, end, count: Math.max(0, parsedCount), consumer }
}

/**
 * XPENDING key group [[IDLE min-idle] start end count [consumer]]: without a range, the summary
 * `[count, first, last, [[consumer, count] …]]`; with one, `[id, consumer, idle, deliveries]` per
 * pending entry in the range.
 */
function xpending(ctx: CommandContext, argv: readonly string[]): Out {
  const summary = argv.length === 3
  if (!summary && (argv.length < 6 || argv.length > 9)) return SYNTAX
  const range = summary ? undefined : parsePendingRange(argv)
  if (range instanceof ReplyError) return range
  const stream = readStream(ctx, argv[1])
  if (stream instanceof ReplyError) return stream
  const group = stream?.groups.get(argv[2])
  if (group === undefined) return noKeyOrGroup(argv[1], argv[2])
  if (range === undefined) return pendingSummary(group)
  let pel = group.pending
  if (range.consumer !== undefined) {
    const consumer = group.consumers.get(range.consumer)
    if (consumer === undefined) return []
    pel = consumer.pending
  }
  const out: Out[] = []
  let remaining = range.count
  if (remaining === 0) return out
  pel.forEachFrom(range.start, (entry) => {
    if (compareIds(entry.id, range.end) > 0) return false
    const idle = ctx.now - entry.deliveryTime
    if (range.minIdle !== 0 && idle < range.minIdle) return true
    out.push([formatId(entry.id), entry.consumer!.name, Math.max(0, idle), deliveryCountReply(entry)])
    return --remaining > 0
  })
  return out
}

/** XPENDING key group: the PEL size, its first and last IDs, and counts per consumer (as bulk strings). */
function pendingSummary(group: ConsumerGroup): Out {
  const pel = group.pending
  if (pel.size === 0) return [0, null, null, NULL_ARRAY]
  const consumers: Out[] = []
  for (const consumer of sortedByName(group.consumers)) {
    if (consumer.pending.size !== 0) consumers.push([consumer.name, String(consumer.pending.size)])
  }
  return [pel.size, formatId(pel.first()!.id), formatId(pel.last()!.id), consumers]
}

export const groupCommands: CommandTable = {
  'xgroup|create': xgroupCreate,
  'xgroup|setid': xgroupSetid,
  'xgroup|destroy': xgroupDestroy,
  'xgroup|createconsumer': xgroupCreateConsumer,
  'xgroup|delconsumer': xgroupDelConsumer,
  'xgroup|help': xgroupHelp,
  xpending,
}
