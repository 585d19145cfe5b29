import { ReplyError } from '../../../../reply.js'
import type { CommandContext } from '../../command.js'
import { readInt64 } from '../../lib/numbers.js'
import { JsonDocument, type JsonValue } from '../../types/json.js'
import { selectLocations, selectValues, type Locations } from '../../lib/json/evaluate.js'
import { compilePath, type CompiledPath, type PathArgument } from '../../lib/json/path.js'
import { isValidUtf8 } from '../../lib/json/utf8.js'

/**
 * What every JSON command shares: reaching the document at a key, reading text and integer
 * arguments the way redis-module-rs does, and RedisJSON's error texts. RedisJSON replies its
 * errors verbatim (`RedisModule_ReplyWithError`), so some carry no `ERR` code.
 */

/** redis-module-rs `verify_type`: a key of another type. */
export const WRONG_REDIS_TYPE = new ReplyError('Existing key has wrong Redis type')
/** `RedisError::nonexistent_key()`. */
export const NONEXISTENT_KEY = new ReplyError("ERR could not perform this operation on a key that doesn't exist")
/** redis-module-rs `RedisString::try_as_str` on bytes that are not UTF-8. */
export const NOT_UTF8 = new ReplyError("Couldn't parse as UTF-8 string")
/** redis-module-rs `RedisString::parse_integer`. */
export const NOT_AN_INTEGER = new ReplyError("Couldn't parse as integer")
export const NEW_OBJECTS_AT_ROOT = new ReplyError('ERR new objects must be created at the root')
/** `err_msg_json_path_doesnt_exist()`: a location that vanished while the command ran. */
export const PATH_VANISHED = new ReplyError('ERR Path does not exist')
/** JSON.GET / JSON.ARRPOP `FORMAT`: RESP3 only. */
export const FORMAT_NOT_ON_RESP2 = new ReplyError('ERR FORMAT argument is not supported on RESP2')
export const WRONG_REPLY_FORMAT = new ReplyError('ERR wrong reply format')

/** `ERR Path '<path>' does not exist` */
export function pathDoesNotExist(path: string): ReplyError {
  return new ReplyError(`ERR Path '${path}' does not exist`)
}

/** `ERR Path '<path>' does not exist or <reason>` (reason: `not an array`, `not a string` …). */
export function pathDoesNotExistOr(path: string, reason: string): ReplyError {
  return new ReplyError(`ERR Path '${path}' does not exist or ${reason}`)
}

/** `WRONGTYPE wrong type of path value - expected <expected> but found <found>` */
export function wrongPathType(expected: string, found: string): ReplyError {
  return new ReplyError(`WRONGTYPE wrong type of path value - expected ${expected} but found ${found}`)
}

/**
 * A JSON parse error raised straight into a `RedisError` (redis-module-rs's blanket
 * `From<std::error::Error>` writes `ERR {e}`): the operands of NUMINCRBY / NUMMULTBY, STRAPPEND
 * and ARRINDEX. Values parsed by RedisJSON's own manager (SET, MSET, MERGE, ARRAPPEND,
 * ARRINSERT) keep serde_json's bare text.
 */
export function operandParseError(error: ReplyError): ReplyError {
  return new ReplyError(`ERR ${error.message}`)
}

/** The document at `key`: undefined when missing, an error for a key of another type. */
export function readDocument(ctx: CommandContext, key: string): JsonDocument | undefined | ReplyError {
  const value = ctx.db.read(key, ctx)
  if (value === undefined || value instanceof JsonDocument) return value
  return WRONG_REDIS_TYPE
}

/** The document at `key`, which must exist (most writes, and JSONPath reads). */
export function requireDocument(ctx: CommandContext, key: string): JsonDocument | ReplyError {
  return readDocument(ctx, key) ?? NONEXISTENT_KEY
}

/** A text argument (RedisJSON reads paths, values and options as `&str`). */
export function textArgument(arg: string): string | ReplyError {
  return isValidUtf8(arg) ? arg : NOT_UTF8
}

/** An integer argument (`RedisModule_StringToLongLong`). */
export function integerArgument(arg: string): number | ReplyError {
  const value = readInt64(arg)
  return value === null ? NOT_AN_INTEGER : Number(value)
}

/** The compiled form of a path argument, or its compilation error. */
export function compiled(path: PathArgument): CompiledPath | ReplyError {
  const result = compilePath(path.path)
  return typeof result === 'string' ? new ReplyError(result) : result
}

/** The values `path` selects in the document, or its compilation error. */
export function select(document: JsonDocument, path: PathArgument): JsonValue[] | ReplyError {
  const query = compiled(path)
  return query instanceof ReplyError ? query : selectValues(query.segments, document.root)
}

/** The values `path` selects and their locations, or its compilation error. */
export function locate(document: JsonDocument, path: PathArgument): Locations | ReplyError {
  const query = compiled(path)
  return query instanceof ReplyError ? query : selectLocations(query.segments, document.root)
}
