import { ReplyError, Status } from '../../../../reply.js'
import type { CommandContext, CommandTable, Out } from '../../command.js'
import type { Value } from '../../keyspace.js'
import { readInt64 } from '../../lib/numbers.js'

/**
 * OBJECT ENCODING | FREQ | IDLETIME | REFCOUNT | HELP (Redis 7.0 `object.c`). A missing key
 * answers nil to every subcommand.
 *
 * IDLETIME and FREQ read the access clock every key carries (the stamp in `Database.data`, Redis's `lru`
 * field): seconds since the last access under every policy but the LFU ones, the decayed
 * logarithmic counter under an LFU policy. No subcommand counts as an access (LOOKUP_NOTOUCH).
 */

const LFU_NOT_SELECTED = new ReplyError(
  'ERR An LFU maxmemory policy is not selected, access frequency not tracked. Please note that when switching between policies at runtime LRU and LFU data will take some time to adjust.',
)
const LFU_SELECTED = new ReplyError(
  'ERR An LFU maxmemory policy is selected, idle time not tracked. Please note that when switching between policies at runtime LRU and LFU data will take some time to adjust.',
)

const HELP: readonly Status[] = [
  'OBJECT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:',
  'ENCODING <key>',
  '    Return the kind of internal representation used in order to store the value',
  '    associated with a <key>.',
  'FREQ <key>',
  '    Return the access frequency index of the <key>. The returned integer is',
  '    proportional to the logarithm of the recent access frequency of the key.',
  'IDLETIME <key>',
  '    Return the idle time of the <key>, that is the approximated number of',
  '    seconds elapsed since the last access to the key.',
  'REFCOUNT <key>',
  '    Return the number of references of the value associated with the specified',
  '    <key>.',
  'HELP',
  '    Prints this help.',
].map((line) => new Status(line))

/** `OBJ_ENCODING_EMBSTR_SIZE_LIMIT`: strings up to this many bytes live in one allocation. */
const EMBSTR_SIZE_LIMIT = 44
/** `OBJ_SHARED_INTEGERS`: 0..9999 are shared objects (REFCOUNT reports `OBJ_SHARED_REFCOUNT`). */
const SHARED_INTEGERS = 10000
const SHARED_REFCOUNT = 2147483647

/** A value that reports its own Redis encoding (lists, sets, hashes, sorted sets …). */
interface Encoded {
  readonly encoding: string
}

function policy(ctx: CommandContext): string {
  return (ctx.engine.config.get('maxmemory-policy') ?? 'noeviction').toLowerCase()
}

function isLfuPolicy(ctx: CommandContext): boolean {
  return policy(ctx).includes('lfu')
}

/** The integer value of a string Redis would store as `int` (`tryObjectEncoding`), or null. */
function integerEncoded(value: string): bigint | null {
  return value.length <= 20 ? readInt64(value) : null
}

/**
 * Redis's encoding of a string value, from the value alone: `int` for a 64-bit integer in
 * canonical form, `embstr` up to 44 bytes, `raw` beyond. How a value was made can change that
 * (in-place writes make it `raw`): the database records those cases in `stringEncodings`.
 */
function stringEncoding(value: string): string {
  if (integerEncoded(value) !== null) return 'int'
  return value.length <= EMBSTR_SIZE_LIMIT ? 'embstr' : 'raw'
}

/** OBJECT ENCODING for any value; types report their own, a stream is always `stream`. */
export function encodingOf(value: Value): string {
  if (typeof value === 'string') return stringEncoding(value)
  const reported = (value as Partial<Encoded>).encoding
  if (typeof reported === 'string') return reported
  return value.type === 'stream' ? 'stream' : 'raw'
}

function objectEncoding(ctx: CommandContext, argv: readonly string[]): Out {
  const value = ctx.db.peek(argv[2], ctx, false)
  if (value === undefined) return null
  return (typeof value === 'string' && ctx.db.stringEncodings.get(argv[2])) || encodingOf(value)
}

/**
 * Small integers are shared objects unless an LRU/LFU policy with a memory limit needs a
 * per-object access clock (`MAXMEMORY_FLAG_NO_SHARED_INTEGERS`).
 */
function objectRefcount(ctx: CommandContext, argv: readonly string[]): Out {
  const value = ctx.db.peek(argv[2], ctx, false)
  if (value === undefined) return null
  if (typeof value !== 'string') return 1
  const integer = integerEncoded(value)
  if (integer === null || integer < 0n || integer >= SHARED_INTEGERS) return 1
  const limited = (ctx.engine.config.get('maxmemory') ?? '0') !== '0'
  const name = policy(ctx)
  const clocked = name.includes('lru') || name.includes('lfu')
  return limited && clocked ? 1 : SHARED_REFCOUNT
}

function objectIdletime(ctx: CommandContext, argv: readonly string[]): Out {
  const value = ctx.db.peek(argv[2], ctx, false)
  if (value === undefined) return null
  if (isLfuPolicy(ctx)) return LFU_SELECTED
  // The access clock has second resolution; read the time so it is current for this answer.
  void ctx.now
  return ctx.db.idleSeconds(argv[2])
}

function objectFreq(ctx: CommandContext, argv: readonly string[]): Out {
  const value = ctx.db.peek(argv[2], ctx, false)
  if (value === undefined) return null
  if (!isLfuPolicy(ctx)) return LFU_NOT_SELECTED
  void ctx.now
  return ctx.db.frequency(argv[2])
}

function objectHelp(): Out {
  return HELP
}

/** OBJECT subcommands. */
export const objectCommands: CommandTable = {
  'object|encoding': objectEncoding,
  'object|freq': objectFreq,
  'object|idletime': objectIdletime,
  'object|refcount': objectRefcount,
  'object|help': objectHelp,
}
