/**
 * XDEL and XACK (Redis 7.0), and their Redis 8.2 combinations XDELEX and XACKDEL with the
 * KEEPREF / DELREF / ACKED reference policies (https://redis.io/docs/latest/commands/xdelex/,
 * https://redis.io/docs/latest/commands/xackdel/). The 8.2 commands are newer than the reference
 * server; their texts and codes follow the Redis 8.2 documentation and test suite.
 */
import { NOTIFY_STREAM, notify } from '../../notify.js'
import { ReplyError } from '../../../../reply.js'
import type { CommandContext, CommandTable, Out } from '../../command.js'
import { SYNTAX } from '../../errors.js'
import { readInteger } from '../../lib/numbers.js'
import type { StreamValue } from '../../types/stream.js'
import { compareIds, parseStrictId, type StreamId } from '../../types/stream-id.js'
import { INVALID_ID, keyword, readStream } from './common.js'

const NUMIDS_NOT_POSITIVE = new ReplyError('ERR Number of IDs must be a positive integer')
const NUMIDS_MISMATCH = new ReplyError('ERR The `numids` parameter must match the number of arguments')

/** Every ID argument from `from` on, strictly parsed, or INVALID_ID for the first bad one. */
function parseIds(argv: readonly string[], from: number, to = argv.length): StreamId[] | ReplyError {
  const ids: StreamId[] = []
  for (let i = from; i < to; i++) {
    const id = parseStrictId(argv[i])
    if (id === null) return INVALID_ID
    ids.push(id)
  }
  return ids
}

/**
 * XDEL key id [id …]: how many entries were deleted. A missing key answers 0 before the IDs are
 * read; a bad ID refuses the whole call.
 */
function xdel(ctx: CommandContext, argv: readonly string[]): Out {
  const stream = readStream(ctx, argv[1])
  if (stream instanceof ReplyError) return stream
  if (stream === undefined) return 0
  const ids = parseIds(argv, 2)
  if (ids instanceof ReplyError) return ids
  let deleted = 0
  for (const id of ids) if (stream.delete(id)) deleted++
  if (deleted > 0) notify(ctx, NOTIFY_STREAM, 'xdel', argv[1])
  return deleted
}

/**
 * XACK key group id [id …]: how many IDs left the group's PEL. A missing key or group answers 0
 * before the IDs are read.
 */
function xack(ctx: CommandContext, argv: readonly string[]): Out {
  const stream = readStream(ctx, argv[1])
  if (stream instanceof ReplyError) return stream
  const group = stream?.groups.get(argv[2])
  if (group === undefined) return 0
  const ids = parseIds(argv, 3)
  if (ids instanceof ReplyError) return ids
  let acknowledged = 0
  for (const id of ids) if (group.acknowledge(id) !== undefined) acknowledged++
  return acknowledged
}

type ReferencePolicy = 'keepref' | 'delref' | 'acked'

/** XDELEX / XACKDEL options: `[KEEPREF | DELREF | ACKED] IDS numids id …`, in any order. */
interface DeleteArgs {
  readonly policy: ReferencePolicy
  readonly ids: readonly StreamId[]
}

function parseDeleteArgs(argv: readonly string[], from: number): DeleteArgs | ReplyError {
  let policy: ReferencePolicy | undefined
  let idsAt = -1
  let idCount = 0
  for (let i = from; i < argv.length; ) {
    const word = keyword(argv[i])
    const moreArgs = argv.length - 1 - i
    if (word === 'ids' && moreArgs > 0) {
      const count = readInteger(argv[i + 1])
      if (count === null || count < 1) return NUMIDS_NOT_POSITIVE
      if (count > moreArgs - 1) return NUMIDS_MISMATCH
      idsAt = i + 2
      idCount = count
      i = idsAt + count
    } else if ((word === 'keepref' || word === 'delref' || word === 'acked') && policy === undefined) {
      policy = word
      i++
    } else return SYNTAX
  }
  // Unreachable with the command's arity, kept for a call that has no IDS block at all.
  if (idsAt === -1) return SYNTAX
  const ids = parseIds(argv, idsAt, idsAt + idCount)
  if (ids instanceof ReplyError) return ids
  return { policy: policy ?? 'keepref', ids }
}

/**
 * Whether a consumer group still needs entry `id`: some group has it pending, or some group has
 * not delivered it yet (it is past the smallest last-delivered ID). Redis 8.2.1+: a stream with
 * no groups references nothing (8.2.0 answered "referenced").
 */
export function isReferenced(stream: StreamValue, id: StreamId): boolean {
  for (const group of stream.groups.values()) {
    if (compareIds(id, group.lastId) > 0) return true
    if (group.pending.get(id) !== undefined) return true
  }
  return false
}

/** Removes `id` from every group's PEL (DELREF). */
export function dropReferences(stream: StreamValue, id: StreamId): void {
  for (const group of stream.groups.values()) group.acknowledge(id)
}

/** Per-ID codes of XDELEX / XACKDEL: -1 not found, 1 deleted, 2 kept because still referenced. */
const NOT_FOUND = -1
const DELETED = 1
const STILL_REFERENCED = 2

/**
 * XDELEX key [KEEPREF | DELREF | ACKED] IDS numids id …: one code per ID. KEEPREF deletes as XDEL
 * does; DELREF also drops the ID from every PEL (even when the entry is already gone); ACKED
 * deletes only what no group needs any more. A missing key answers -1 for every ID.
 */
function xdelex(ctx: CommandContext, argv: readonly string[]): Out {
  const args = parseDeleteArgs(argv, 2)
  if (args instanceof ReplyError) return args
  const stream = readStream(ctx, argv[1])
  if (stream instanceof ReplyError) return stream
  if (stream === undefined) return args.ids.map(() => NOT_FOUND)
  return args.ids.map((id) => {
    switch (args.policy) {
      case 'keepref':
        return stream.delete(id) ? DELETED : NOT_FOUND
      case 'delref': {
        const deleted = stream.delete(id)
        dropReferences(stream, id)
        return deleted ? DELETED : NOT_FOUND
      }
      case 'acked':
        if (stream.get(id) === undefined) return NOT_FOUND
        if (isReferenced(stream, id)) return STILL_REFERENCED
        stream.delete(id)
        return DELETED
    }
  })
}

/**
 * XACKDEL key group [KEEPREF | DELREF | ACKED] IDS numids id …: acknowledges each ID in `group`
 * and deletes its entry under the policy. -1 for an ID the group does not have pending (and for
 * every ID when the key or group is missing), 1 when acknowledged and deleted (KEEPREF and DELREF
 * answer 1 even when the entry was already gone), 2 when ACKED keeps an entry another group needs.
 */
function xackdel(ctx: CommandContext, argv: readonly string[]): Out {
  const args = parseDeleteArgs(argv, 3)
  if (args instanceof ReplyError) return args
  const stream = readStream(ctx, argv[1])
  if (stream instanceof ReplyError) return stream
  const group = stream?.groups.get(argv[2])
  if (stream === undefined || group === undefined) return args.ids.map(() => NOT_FOUND)
  return args.ids.map((id) => {
    if (group.acknowledge(id) === undefined) return NOT_FOUND
    if (args.policy === 'acked' && isReferenced(stream, id)) return STILL_REFERENCED
    stream.delete(id)
    if (args.policy === 'delref') dropReferences(stream, id)
    return DELETED
  })
}

export const deleteCommands: CommandTable = { xdel, xack, xdelex, xackdel }
