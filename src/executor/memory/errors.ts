import { ReplyError } from '../../reply.js'

/**
 * Redis's error texts, shared by every command family. Constants are shared instances (errors
 * are immutable values); functions build the texts that carry a name. Texts the layers around the
 * engine answer too live in `src/commands/errors.ts`, re-exported here.
 */

export {
  AUTH_WITHOUT_PASSWORD,
  BAD_CLIENT_NAME,
  DB_INDEX_OUT_OF_RANGE,
  EXEC_ABORT,
  NOT_INTEGER,
  SYNTAX,
  wrongArity,
} from '../../commands/errors.js'

export const WRONGTYPE = new ReplyError('WRONGTYPE Operation against a key holding the wrong kind of value')
export const NOT_FLOAT = new ReplyError('ERR value is not a valid float')
export const OVERFLOW = new ReplyError('ERR increment or decrement would overflow')
export const NAN_OR_INFINITY = new ReplyError('ERR increment would produce NaN or Infinity')
export const NO_SUCH_KEY = new ReplyError('ERR no such key')
export const INDEX_OUT_OF_RANGE = new ReplyError('ERR index out of range')
export const NOT_POSITIVE = new ReplyError('ERR value is out of range, must be positive')
export const BIT_OFFSET = new ReplyError('ERR bit offset is not an integer or out of range')
export const BIT_VALUE = new ReplyError('ERR bit is not an integer or out of range')
export const STRING_TOO_LONG = new ReplyError('ERR string exceeds maximum allowed size (proto-max-bulk-len)')
export const TIMEOUT_NEGATIVE = new ReplyError('ERR timeout is negative')
export const HASH_NOT_INTEGER = new ReplyError('ERR hash value is not an integer')
export const HASH_NOT_FLOAT = new ReplyError('ERR hash value is not a float')
/** LMPOP / ZMPOP (and their blocking forms): `numkeys` below 1 or not an integer. */
export const NUMKEYS_NOT_POSITIVE = new ReplyError('ERR numkeys should be greater than 0')
/** LMPOP / ZMPOP (and their blocking forms): `COUNT` below 1 or not an integer. */
export const COUNT_NOT_POSITIVE = new ReplyError('ERR count should be greater than 0')
/** SRANDMEMBER / HRANDFIELD / ZRANDMEMBER: a count outside [-LONG_MAX, LONG_MAX] (i.e. LONG_MIN). */
export const OUT_OF_LONG_RANGE = new ReplyError('ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807')

/** `ERR invalid expire time in '<command>' command` */
export function invalidExpire(commandName: string): ReplyError {
  return new ReplyError(`ERR invalid expire time in '${commandName.toLowerCase()}' command`)
}
