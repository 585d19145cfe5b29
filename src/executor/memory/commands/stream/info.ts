/**
 * XINFO STREAM [FULL [COUNT n]], XINFO GROUPS, XINFO CONSUMERS and XINFO HELP, with the fields of
 * Redis 7.0 (7.2 adds `active-time` to FULL's consumers and `inactive` to XINFO CONSUMERS).
 */
import { ReplyError, Status } from '../../../../reply.js'
import type { CommandContext, CommandTable, Out } from '../../command.js'
import { NO_SUCH_KEY, NOT_INTEGER } from '../../errors.js'
import { readInteger } from '../../lib/numbers.js'
import type { StreamValue } from '../../types/stream.js'
import { ENTRIES_READ_UNKNOWN, sortedByName, type ConsumerGroup } from '../../types/stream-group.js'
import { asInt64, formatId, MAX_ID, MIN_ID, type U64 } from '../../types/stream-id.js'
import {
  deliveryCountReply,
  entriesReply,
  entryReply,
  keyword,
  noGroupForKey,
  readStream,
  subcommandSyntaxError,
} from './common.js'

const XINFO_HELP: readonly Status[] = [
  'XINFO <subcommand> [<arg> [value] [opt] ...]. Subcommands are:',
  'CONSUMERS <key> <groupname>',
  '    Show consumers of <groupname>.',
  'GROUPS <key>',
  '    Show the stream consumer groups.',
  'STREAM <key> [FULL [COUNT <count>]',
  '    Show information about the stream.',
  'HELP',
  '    Prints this help.',
].map((line) => new Status(line))

/** FULL's default COUNT, which also replaces a negative one. */
const FULL_DEFAULT_COUNT = 10

/** The stream every XINFO subcommand but HELP reads: `ERR no such key` when missing. */
function infoStream(ctx: CommandContext, key: string): StreamValue | ReplyError {
  const stream = readStream(ctx, key)
  return stream === undefined ? NO_SUCH_KEY : stream
}

/**
 * XINFO STREAM key [FULL [COUNT n]]: the stream's counters, then its first and last entries, or
 * with FULL its entries, groups, PELs and consumers (COUNT limits each list; 0 means all).
 */
function xinfoStream(ctx: CommandContext, argv: readonly string[]): Out {
  const stream = infoStream(ctx, argv[2])
  if (stream instanceof ReplyError) return stream
  const options = argv.length - 3
  let count = FULL_DEFAULT_COUNT
  if (options !== 0) {
    if (options !== 1 && options !== 3) return subcommandSyntaxError(argv)
    if (keyword(argv[3]) !== 'full') return subcommandSyntaxError(argv)
    if (options === 3) {
      if (keyword(argv[4]) !== 'count') return subcommandSyntaxError(argv)
      const parsed = readInteger(argv[5])
      if (parsed === null) return NOT_INTEGER
      count = parsed < 0 ? FULL_DEFAULT_COUNT : parsed
    }
  }
  const reply: Out[] = [
    'length',
    stream.length,
    'radix-tree-keys',
    stream.radixTreeKeys,
    'radix-tree-nodes',
    stream.radixTreeNodes,
    'last-generated-id',
    formatId(stream.lastId),
    'max-deleted-entry-id',
    formatId(stream.maxDeletedId),
    'entries-added',
    asInt64(stream.entriesAdded),
    'recorded-first-entry-id',
    formatId(stream.firstId),
  ]
  if (options === 0) {
    const first = stream.firstEntry()
    const last = stream.lastEntry()
    reply.push(
      'groups',
      stream.groups.size,
      'first-entry',
      first === undefined ? null : entryReply(first),
      'last-entry',
      last === undefined ? null : entryReply(last),
    )
    return reply
  }
  reply.push('entries', entriesReply(stream.range(MIN_ID, MAX_ID, count)))
  reply.push('groups', sortedByName(stream.groups).map((group) => fullGroup(stream, group, count)))
  return reply
}

/** One group of XINFO STREAM FULL: counters, PEL (with owners and delivery times), consumers. */
function fullGroup(stream: StreamValue, group: ConsumerGroup, count: number): Out {
  const pending: Out[] = []
  group.pending.forEachFrom(null, (entry) => {
    if (count !== 0 && pending.length >= count) return false
    pending.push([formatId(entry.id), entry.consumer!.name, entry.deliveryTime, deliveryCountReply(entry)])
    return true
  })
  const consumers = sortedByName(group.consumers).map((consumer): Out => {
    const owned: Out[] = []
    consumer.pending.forEachFrom(null, (entry) => {
      if (count !== 0 && owned.length >= count) return false
      owned.push([formatId(entry.id), entry.deliveryTime, deliveryCountReply(entry)])
      return true
    })
    return ['name', consumer.name, 'seen-time', consumer.seenTime, 'pel-count', consumer.pending.size, 'pending', owned]
  })
  return [
    'name',
    group.name,
    'last-delivered-id',
    formatId(group.lastId),
    'entries-read',
    entriesReadReply(group.entriesRead),
    'lag',
    stream.lag(group),
    'pel-count',
    group.pending.size,
    'pending',
    pending,
    'consumers',
    consumers,
  ]
}

function entriesReadReply(entriesRead: U64): U64 | null {
  return entriesRead === ENTRIES_READ_UNKNOWN ? null : entriesRead
}

/** XINFO GROUPS key: name, consumers, pending, last-delivered-id, entries-read and lag per group. */
function xinfoGroups(ctx: CommandContext, argv: readonly string[]): Out {
  const stream = infoStream(ctx, argv[2])
  if (stream instanceof ReplyError) return stream
  return sortedByName(stream.groups).map((group): Out => [
    'name',
    group.name,
    'consumers',
    group.consumers.size,
    'pending',
    group.pending.size,
    'last-delivered-id',
    formatId(group.lastId),
    'entries-read',
    entriesReadReply(group.entriesRead),
    'lag',
    stream.lag(group),
  ])
}

/** XINFO CONSUMERS key group: name, pending count and idle time (since last seen) per consumer. */
function xinfoConsumers(ctx: CommandContext, argv: readonly string[]): Out {
  const stream = infoStream(ctx, argv[2])
  if (stream instanceof ReplyError) return stream
  const group = stream.groups.get(argv[3])
  if (group === undefined) return noGroupForKey(argv[2], argv[3])
  return sortedByName(group.consumers).map((consumer): Out => [
    'name',
    consumer.name,
    'pending',
    consumer.pending.size,
    'idle',
    Math.max(0, ctx.now - consumer.seenTime),
  ])
}

function xinfoHelp(): Out {
  return XINFO_HELP
}

export const infoCommands: CommandTable = {
  'xinfo|stream': xinfoStream,
  'xinfo|groups': xinfoGroups,
  'xinfo|consumers': xinfoConsumers,
  'xinfo|help': xinfoHelp,
}
