/**
 * What the stream commands share: the stream lookup, ID arguments, reply shapes and Redis's
 * stream error texts.
 */
import { NOTIFY_STREAM, notify } from '../../notify.js'
import { ReplyError } from '../../../../reply.js'
import type { CommandContext, Out } from '../../command.js'
import { WRONGTYPE } from '../../errors.js'
import { StreamValue, type NodeLimits, type StreamEntry } from '../../types/stream.js'
import type { Consumer, ConsumerGroup, PendingEntry } from '../../types/stream-group.js'
import {
  asInt64,
  cString,
  formatId,
  nextId,
  parseId,
  parseIdArg,
  previousId,
  U64_MAX,
  type StreamId,
  type U64,
} from '../../types/stream-id.js'

export const INVALID_ID = new ReplyError('ERR Invalid stream ID specified as stream command argument')
export const INVALID_START = new ReplyError('ERR invalid start ID for the interval')
export const INVALID_END = new ReplyError('ERR invalid end ID for the interval')

/**
 * The consumer a read or a claim acts as (`streamLookupConsumer`, then `streamCreateConsumer`):
 * created when absent, reported `xgroup-createconsumer` then, and seen now either way.
 */
export function activeConsumer(ctx: CommandContext, key: string, group: ConsumerGroup, name: string, now: number): Consumer {
  const created = !group.consumers.has(name)
  const consumer = group.activeConsumer(name, now)
  if (created) notify(ctx, NOTIFY_STREAM, 'xgroup-createconsumer', key)
  return consumer
}

/** The stream at `key`: the value, undefined when missing, or WRONGTYPE. */
export function readStream(ctx: CommandContext, key: string): StreamValue | undefined | ReplyError {
  const value = ctx.db.read(key, ctx)
  if (value === undefined) return undefined
  return value instanceof StreamValue ? value : WRONGTYPE
}

/** An entry as replies show it: `[id, [field, value, …]]`. */
export function entryReply(entry: StreamEntry): Out {
  return [formatId(entry), entry.fields]
}

export function entriesReply(entries: readonly StreamEntry[]): Out[] {
  const out = new Array<Out>(entries.length)
  for (let i = 0; i < entries.length; i++) out[i] = [formatId(entries[i]), entries[i].fields]
  return out
}

/** A delivery count as Redis prints it: a uint64 shown as a long long. */
export function deliveryCountReply(entry: PendingEntry): U64 {
  return asInt64(entry.deliveryCount)
}

/** `stream-node-max-bytes` and `stream-node-max-entries` as currently configured. */
export function nodeLimits(ctx: CommandContext): NodeLimits {
  const config = ctx.engine.config
  return {
    maxBytes: Number(config.get('stream-node-max-bytes') ?? '4096'),
    maxEntries: Number(config.get('stream-node-max-entries') ?? '100'),
  }
}

/**
 * The start of an interval (`streamParseIntervalIDOrReply`): an ID where a missing sequence is 0,
 * `-`/`+` allowed, or `(` and a strict ID for an exclusive bound.
 */
export function parseIntervalStart(text: string): StreamId | ReplyError {
  if (text.length > 1 && text.charCodeAt(0) === 40) {
    const id = parseStrictIdText(text.slice(1), 0)
    if (id === null) return INVALID_ID
    return nextId(id) ?? INVALID_START
  }
  return parseId(text, 0) ?? INVALID_ID
}

/** The end of an interval: a missing sequence is the largest; `(` excludes the bound. */
export function parseIntervalEnd(text: string): StreamId | ReplyError {
  if (text.length > 1 && text.charCodeAt(0) === 40) {
    const id = parseStrictIdText(text.slice(1), U64_MAX)
    if (id === null) return INVALID_ID
    return previousId(id) ?? INVALID_END
  }
  return parseId(text, U64_MAX) ?? INVALID_ID
}

function parseStrictIdText(text: string, missingSeq: U64): StreamId | null {
  return parseIdArg(text, missingSeq, true)?.id ?? null
}

/** An option word as Redis compares it (`strcasecmp` on a C string). */
export function keyword(text: string): string {
  return cString(text).toLowerCase()
}

/** `text` as `%s` prints it in an error (up to a NUL byte), with line breaks made spaces. */
export function errorArg(text: string): string {
  return cString(text).replace(LINE_BREAKS, ' ')
}

const LINE_BREAKS = /[\r\n]/g

/** `-NOGROUP No such key '<key>' or consumer group '<group>'` (XPENDING, XCLAIM, XAUTOCLAIM). */
export function noKeyOrGroup(key: string, group: string, suffix = ''): ReplyError {
  return new ReplyError(`NOGROUP No such key '${errorArg(key)}' or consumer group '${errorArg(group)}'${suffix}`)
}

/** `-NOGROUP No such consumer group '<group>' for key name '<key>'` (XGROUP, XINFO CONSUMERS). */
export function noGroupForKey(key: string, group: string): ReplyError {
  return new ReplyError(`NOGROUP No such consumer group '${errorArg(group)}' for key name '${errorArg(key)}'`)
}

/** `addReplySubcommandSyntaxError`: the subcommand as typed, the command in capitals. */
export function subcommandSyntaxError(argv: readonly string[]): ReplyError {
  return new ReplyError(
    `ERR unknown subcommand or wrong number of arguments for '${errorArg(argv[1]).slice(0, 128)}'. Try ${errorArg(argv[0]).toUpperCase()} HELP.`,
  )
}
