import { ReplyError } from '../../../../reply.js'
import { NOTIFY_GENERIC, NOTIFY_STRING, notify } from '../../notify.js'
import type { CommandContext, Out } from '../../command.js'
import { NOT_INTEGER, SYNTAX } from '../../errors.js'
import { readInteger } from '../../lib/numbers.js'
import { expireAt, type ExpireOption } from './set.js'

/**
 * MSETEX numkeys key value [key value ...] [NX | XX] [EX s | PX ms | EXAT ts | PXAT ms-ts | KEEPTTL]
 * (Redis 8.4, redis.io/commands/msetex): MSET with one condition over all the keys (NX: none
 * exists; XX: all exist) and one expiration for all of them. 1 when the keys were set, 0 when
 * the condition failed and nothing was written.
 */

/** The engine's text for a numkeys below 1 (Redis 8.4's own could not be checked; see docs). */
export const NUMKEYS_NOT_POSITIVE = new ReplyError('ERR numkeys should be greater than 0')
/** The engine's text for fewer key-value pairs than numkeys announces. */
export const NUMKEYS_TOO_LARGE = new ReplyError('ERR numkeys is larger than the number of key-value pairs given')

interface MsetexOptions {
  nx: boolean
  xx: boolean
  keepTtl: boolean
  expire?: { readonly option: ExpireOption; readonly amount: string }
}

/** The options after the pairs, with SET's acceptance rules for NX/XX and the expire forms. */
function parseOptions(argv: readonly string[], from: number): MsetexOptions | ReplyError {
  const options: MsetexOptions = { nx: false, xx: false, keepTtl: false }
  for (let i = from; i < argv.length; i++) {
    const option = argv[i].toUpperCase()
    const expireKind = options.expire?.option
    if (option === 'NX' && !options.xx) options.nx = true
    else if (option === 'XX' && !options.nx) options.xx = true
    else if (option === 'KEEPTTL' && expireKind === undefined) options.keepTtl = true
    else if (
      (option === 'EX' || option === 'PX' || option === 'EXAT' || option === 'PXAT') &&
      !options.keepTtl &&
      (expireKind === undefined || expireKind === option) &&
      i + 1 < argv.length
    ) {
      options.expire = { option, amount: argv[++i] }
    } else {
      return SYNTAX
    }
  }
  return options
}

export function msetex(ctx: CommandContext, argv: readonly string[]): Out {
  const numkeys = readInteger(argv[1])
  if (numkeys === null) return NOT_INTEGER
  if (numkeys < 1) return NUMKEYS_NOT_POSITIVE
  const end = 2 + numkeys * 2
  if (end > argv.length) return NUMKEYS_TOO_LARGE
  const options = parseOptions(argv, end)
  if (options instanceof ReplyError) return options
  let at: number | undefined
  if (options.expire !== undefined) {
    const deadline = expireAt(ctx, options.expire.option, options.expire.amount)
    if (typeof deadline !== 'number') return deadline
    at = deadline
  }
  if (options.nx || options.xx) {
    for (let i = 2; i < end; i += 2) {
      const found = ctx.db.read(argv[i], ctx) !== undefined
      if (found === options.nx) return 0
    }
  }
  for (let i = 2; i < end; i += 2) {
    const key = argv[i]
    ctx.db.reclaimIfExpired(key, ctx)
    if (options.keepTtl) ctx.db.update(key, argv[i + 1])
    else ctx.db.set(key, argv[i + 1])
    if (at !== undefined) ctx.db.setExpire(key, at)
    notify(ctx, NOTIFY_STRING, 'set', key)
    if (at !== undefined) notify(ctx, NOTIFY_GENERIC, 'expire', key)
  }
  return 1
}
