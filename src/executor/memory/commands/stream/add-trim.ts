/**
 * XADD, XTRIM, XSETID and XLEN (Redis 7.0 `t_stream.c`), with Redis 8.2's KEEPREF / DELREF /
 * ACKED reference policies on XADD's and XTRIM's trimming.
 */
import { NOTIFY_STREAM, notify } from '../../notify.js'
import { OK, ReplyError } from '../../../../reply.js'
import type { CommandContext, CommandTable, Out } from '../../command.js'
import { NO_SUCH_KEY, NOT_INTEGER, SYNTAX, wrongArity } from '../../errors.js'
import { readInt64, readInteger } from '../../lib/numbers.js'
import { LISTPACK_MAX_SIZE, StreamValue, type TrimOptions, type TrimReferences } from '../../types/stream.js'
import {
  autoId,
  compareIds,
  formatId,
  isSymbol,
  isZeroId,
  MAX_ID,
  parseIdArg,
  parseStrictId,
  plusOne,
  U64_MAX,
  exact,
  type ParsedXaddId,
  type StreamId,
  type U64,
} from '../../types/stream-id.js'
import { INVALID_ID, keyword, nodeLimits, readStream } from './common.js'
import { dropReferences, isReferenced } from './delete.js'

const MAXLEN_AND_MINID = new ReplyError('ERR syntax error, MAXLEN and MINID options at the same time are not compatible')
const MAXLEN_NEGATIVE = new ReplyError('ERR The MAXLEN argument must be >= 0.')
const LIMIT_NEGATIVE = new ReplyError('ERR The LIMIT argument must be >= 0.')
const LIMIT_WITHOUT_STRATEGY = new ReplyError(
  'ERR syntax error, LIMIT cannot be used without specifying a trimming strategy',
)
const LIMIT_WITHOUT_APPROX = new ReplyError('ERR syntax error, LIMIT cannot be used without the special ~ option')
const XTRIM_WITHOUT_STRATEGY = new ReplyError('ERR syntax error, XTRIM must be called with a trimming strategy')
const XADD_ZERO_ID = new ReplyError('ERR The ID specified in XADD must be greater than 0-0')
const XADD_ID_TOO_SMALL = new ReplyError(
  'ERR The ID specified in XADD is equal or smaller than the target stream top item',
)
const XADD_EXHAUSTED = new ReplyError('ERR The stream has exhausted the last possible ID, unable to add more items')
const XADD_TOO_LARGE = new ReplyError('ERR Elements are too large to be stored')
const XSETID_BELOW_TOP = new ReplyError('ERR The ID specified in XSETID is smaller than the target stream top item')
const XSETID_BELOW_MAX_DELETED = new ReplyError(
  'ERR The ID specified in XSETID is smaller than the provided max_deleted_entry_id',
)
const XSETID_ADDED_BELOW_LENGTH = new ReplyError(
  'ERR The entries_added specified in XSETID is smaller than the target stream length',
)
const ENTRIES_ADDED_NEGATIVE = new ReplyError('ERR entries_added must be positive')

/** What `streamParseAddOrTrimArgsOrReply` gathers. */
interface AddTrimArgs {
  readonly trim: TrimOptions | undefined
  readonly noMkStream: boolean
  /** XADD's explicit ID; undefined for `*`. */
  readonly id: ParsedXaddId | undefined
  /** XADD: index of the ID argument. */
  readonly idIndex: number
  /** Redis 8.2's reference policy of the trimming (KEEPREF when none is given). */
  readonly policy: ReferencePolicy
}

type ReferencePolicy = 'keepref' | 'delref' | 'acked'

/** The trim hooks of a policy over `stream` (KEEPREF: none). */
function referencesOf(stream: StreamValue, policy: ReferencePolicy): TrimReferences {
  if (policy === 'acked') return { keeps: (id) => isReferenced(stream, id) }
  if (policy === 'delref') return { removed: (id) => dropReferences(stream, id) }
  return {}
}

/**
 * The options XADD and XTRIM share: `MAXLEN|MINID [=|~] threshold`, `LIMIT count`,
 * `KEEPREF|DELREF|ACKED` (8.2; the last one given counts) and, for XADD, `NOMKSTREAM` and the ID,
 * which ends the options. Checked in Redis's order, which is visible.
 */
function parseAddTrimArgs(ctx: CommandContext, argv: readonly string[], xadd: boolean): AddTrimArgs | ReplyError {
  let strategy: 'none' | 'maxlen' | 'minid' = 'none'
  let approx = false
  let maxLen = 0
  let minId: StreamId | undefined
  let limit = 0
  let limitGiven = false
  let noMkStream = false
  let id: ParsedXaddId | undefined
  let policy: ReferencePolicy = 'keepref'
  let i = 2
  for (; i < argv.length; i++) {
    const moreArgs = argv.length - 1 - i
    const option = argv[i]
    if (xadd && isSymbol(option, '*')) break
    const word = keyword(option)
    if ((word === 'maxlen' || word === 'minid') && moreArgs > 0) {
      if (strategy !== 'none') return MAXLEN_AND_MINID
      approx = false
      const next = argv[i + 1]
      if (moreArgs >= 2 && isSymbol(next, '~')) {
        approx = true
        i++
      } else if (moreArgs >= 2 && isSymbol(next, '=')) i++
      const threshold = argv[++i]
      if (word === 'maxlen') {
        const parsed = readInteger(threshold)
        if (parsed === null) return NOT_INTEGER
        if (parsed < 0) return MAXLEN_NEGATIVE
        maxLen = parsed
      } else {
        const parsed = parseStrictId(threshold)
        if (parsed === null) return INVALID_ID
        minId = parsed
      }
      strategy = word
    } else if (word === 'limit' && moreArgs > 0) {
      const parsed = readInteger(argv[++i])
      if (parsed === null) return NOT_INTEGER
      if (parsed < 0) return LIMIT_NEGATIVE
      limit = parsed
      limitGiven = true
    } else if (word === 'keepref' || word === 'delref' || word === 'acked') {
      policy = word
    } else if (xadd && word === 'nomkstream') {
      noMkStream = true
    } else if (xadd) {
      const parsed = parseIdArg(option, 0, true, true)
      if (parsed === null) return INVALID_ID
      id = parsed
      break
    } else return SYNTAX
  }
  if (limit !== 0 && strategy === 'none') return LIMIT_WITHOUT_STRATEGY
  if (!xadd && strategy === 'none') return XTRIM_WITHOUT_STRATEGY
  if (limitGiven) {
    if (!approx) return LIMIT_WITHOUT_APPROX
  } else limit = approx ? defaultApproxLimit(ctx) : 0
  const trim: TrimOptions | undefined =
    strategy === 'none' ? undefined : strategy === 'maxlen' ? { maxLen, approx, limit } : { minId, approx, limit }
  return { trim, noMkStream, id, idIndex: i, policy }
}

/**
 * The work limit of `~` trimming without LIMIT: 100 nodes' worth of entries
 * (`100 * stream-node-max-entries` as a C long long), between 10000 (when that is not positive)
 * and 1000000.
 */
function defaultApproxLimit(ctx: CommandContext): number {
  const maxEntries = BigInt(ctx.engine.config.get('stream-node-max-entries') ?? '100')
  const limit = BigInt.asIntN(64, 100n * maxEntries)
  if (limit <= 0n) return 10000
  return limit > 1000000n ? 1000000 : Number(limit)
}

/**
 * XADD key [NOMKSTREAM] [MAXLEN|MINID [=|~] threshold [LIMIT count]] *|id field value [field value …]:
 * the new entry's ID, or nil with NOMKSTREAM on a missing key. Trimming runs after the append.
 */
function xadd(ctx: CommandContext, argv: readonly string[]): Out {
  const args = parseAddTrimArgs(ctx, argv, true)
  if (args instanceof ReplyError) return args
  const fieldsAt = args.idIndex + 1
  const pairCount = argv.length - fieldsAt
  if (pairCount < 2 || pairCount % 2 === 1) return wrongArity('xadd')
  // Refused before the key is looked at, so a new stream is not left behind empty.
  if (args.id !== undefined && args.id.seqGiven && isZeroId(args.id.id)) return XADD_ZERO_ID
  const key = argv[1]
  let stream = readStream(ctx, key)
  if (stream instanceof ReplyError) return stream
  if (stream === undefined) {
    if (args.noMkStream) return null
    stream = new StreamValue()
    ctx.db.set(key, stream)
  }
  if (compareIds(stream.lastId, MAX_ID) === 0) return XADD_EXHAUSTED
  const id = newEntryId(stream, args.id, ctx.now)
  // Redis 7.0 fails `<ms>-*` past the millisecond's last sequence without setting errno, and so
  // reports it as the size error.
  if (id === null) return XADD_TOO_LARGE
  if (compareIds(id, stream.lastId) <= 0) return XADD_ID_TOO_SMALL
  const pairs = argv.slice(fieldsAt)
  let dataBytes = 0
  for (const element of pairs) dataBytes += element.length
  if (dataBytes > LISTPACK_MAX_SIZE) return XADD_TOO_LARGE
  stream.append(id, pairs, nodeLimits(ctx))
  notify(ctx, NOTIFY_STREAM, 'xadd', key)
  if (args.trim !== undefined && stream.trim(args.trim, referencesOf(stream, args.policy)) > 0) {
    notify(ctx, NOTIFY_STREAM, 'xtrim', key)
  }
  return formatId(id)
}

/**
 * The ID of the entry XADD adds: generated for `*`, the given one, or for `<ms>-*` the next
 * sequence of that millisecond (null when that millisecond's sequences are used up).
 */
function newEntryId(stream: StreamValue, given: ParsedXaddId | undefined, now: number): StreamId | null {
  if (given === undefined) return autoId(stream.lastId, now)
  if (given.seqGiven) return given.id
  const last = stream.lastId
  if (last.ms !== given.id.ms) return given.id
  if (last.seq === U64_MAX) return null
  return { ms: last.ms, seq: plusOne(last.seq) }
}

/** XTRIM key MAXLEN|MINID [=|~] threshold [LIMIT count] [KEEPREF|DELREF|ACKED]: how many entries went. */
function xtrim(ctx: CommandContext, argv: readonly string[]): Out {
  const args = parseAddTrimArgs(ctx, argv, false)
  if (args instanceof ReplyError) return args
  const stream = readStream(ctx, argv[1])
  if (stream instanceof ReplyError) return stream
  if (stream === undefined) return 0
  const trimmed = stream.trim(args.trim!, referencesOf(stream, args.policy))
  if (trimmed > 0) notify(ctx, NOTIFY_STREAM, 'xtrim', argv[1])
  return trimmed
}

/** XLEN key: live entries, 0 for a missing key. */
function xlen(ctx: CommandContext, argv: readonly string[]): Out {
  const stream = readStream(ctx, argv[1])
  if (stream instanceof ReplyError) return stream
  return stream === undefined ? 0 : stream.length
}

/**
 * XSETID key last-id [ENTRIESADDED entries-added] [MAXDELETEDID max-deleted-id]: sets the stream's
 * counters. Redis 7.0 only checks the new last ID against the top entry (7.2+ also refuses one
 * below the stream's current max-deleted-entry-id).
 */
function xsetid(ctx: CommandContext, argv: readonly string[]): Out {
  const id = parseStrictId(argv[2])
  if (id === null) return INVALID_ID
  let entriesAdded: U64 | undefined
  let maxDeletedId: StreamId | undefined
  for (let i = 3; i < argv.length; i += 2) {
    const moreArgs = argv.length - 1 - i
    const word = keyword(argv[i])
    if (word === 'entriesadded' && moreArgs > 0) {
      const parsed = readInt64(argv[i + 1])
      if (parsed === null) return NOT_INTEGER
      if (parsed < 0n) return ENTRIES_ADDED_NEGATIVE
      entriesAdded = exact(parsed)
    } else if (word === 'maxdeletedid' && moreArgs > 0) {
      const parsed = parseStrictId(argv[i + 1])
      if (parsed === null) return INVALID_ID
      if (compareIds(id, parsed) < 0) return XSETID_BELOW_MAX_DELETED
      maxDeletedId = parsed
    } else return SYNTAX
  }
  const stream = readStream(ctx, argv[1])
  if (stream instanceof ReplyError) return stream
  if (stream === undefined) return NO_SUCH_KEY
  if (stream.length > 0) {
    if (compareIds(id, stream.lastEntry()!) < 0) return XSETID_BELOW_TOP
    if (entriesAdded !== undefined && stream.length > entriesAdded) return XSETID_ADDED_BELOW_LENGTH
  }
  stream.lastId = id
  if (entriesAdded !== undefined) stream.entriesAdded = entriesAdded
  if (maxDeletedId !== undefined && !isZeroId(maxDeletedId)) stream.maxDeletedId = maxDeletedId
  notify(ctx, NOTIFY_STREAM, 'xsetid', argv[1])
  return OK
}

export const addTrimCommands: CommandTable = { xadd, xtrim, xlen, xsetid }
