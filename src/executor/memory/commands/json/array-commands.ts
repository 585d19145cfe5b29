import { ReplyError } from '../../../../reply.js'
import type { CommandContext, CommandTable, Out } from '../../command.js'
import { wrongArity } from '../../errors.js'
import { cloneJson, type JsonDocument, type JsonValue } from '../../types/json.js'
import {
  FORMAT_NOT_ON_RESP2,
  PATH_VANISHED,
  WRONG_REPLY_FORMAT,
  integerArgument,
  locate,
  pathDoesNotExistOr,
  requireDocument,
  textArgument,
} from './access.js'
import type { Locations } from '../../lib/json/evaluate.js'
import { parseJson } from '../../lib/json/parse.js'
import { LEGACY_ROOT, pathArgument, type PathArgument } from '../../lib/json/path.js'
import { serializeJson } from '../../lib/json/serialize.js'
import { valueAt } from './update.js'
import { isAscii, isValidUtf8 } from '../../lib/json/utf8.js'

/**
 * JSON.ARRAPPEND ARRINSERT ARRPOP ARRTRIM, after RedisJSON 2.x. With a JSONPath each match gets
 * its own reply entry (nil when it is not an array); with a legacy path every matching array is
 * changed and the reply is that of the last one, or an error when none matches.
 */

const INDEX_OUT_OF_BOUNDS = new ReplyError('ERR index out of bounds')
/** JSON.ARRPOP without a path pops the last element (`i64::MAX`, clamped). */
const LAST = Number.MAX_SAFE_INTEGER

/**
 * Applies `change` to every array match, each found again by its location (an earlier change of
 * the same command may have moved or removed it: then `vanished` is the reply). The per-match
 * replies (JSONPath) or the last one (legacy).
 */
function eachArray(
  { document, found }: Matches,
  path: PathArgument,
  legacyPath: string,
  change: (array: JsonValue[]) => Out,
  vanished: Out = PATH_VANISHED,
): Out {
  const apply = (i: number): Out => {
    const array = valueAt(document, found.paths[i])
    return Array.isArray(array) ? change(array) : vanished
  }
  if (path.legacy) {
    let last: Out | undefined
    for (let i = 0; i < found.paths.length; i++) {
      if (!Array.isArray(found.values[i])) continue
      last = apply(i)
      if (last instanceof ReplyError) return last
    }
    return last === undefined ? pathDoesNotExistOr(legacyPath, 'not an array') : last
  }
  const replies: Out[] = []
  for (let i = 0; i < found.paths.length; i++) {
    if (!Array.isArray(found.values[i])) {
      replies.push(null)
      continue
    }
    const reply = apply(i)
    if (reply instanceof ReplyError) return reply
    replies.push(reply)
  }
  return replies
}

interface Matches {
  readonly document: JsonDocument
  readonly found: Locations
}

/** The matches of `path` in the document at `key` (which must exist). */
function arrayMatches(ctx: CommandContext, key: string, path: PathArgument): Matches | ReplyError {
  const document = requireDocument(ctx, key)
  if (document instanceof ReplyError) return document
  const found = locate(document, path)
  return found instanceof ReplyError ? found : { document, found }
}

/** Parses JSON values from `argv[from…]` (before the key is looked at, as RedisJSON does). */
function parseValues(argv: readonly string[], from: number): JsonValue[] | ReplyError {
  const values: JsonValue[] = []
  for (let i = from; i < argv.length; i++) {
    const text = textArgument(argv[i])
    if (text instanceof ReplyError) return text
    const value = parseJson(text)
    if (value instanceof ReplyError) return value
    values.push(value)
  }
  return values
}

/** JSON.ARRAPPEND key path value [value …]: the new lengths. */
function jsonArrappend(ctx: CommandContext, argv: readonly string[]): Out {
  const text = textArgument(argv[2])
  if (text instanceof ReplyError) return text
  if (argv.length < 4) return wrongArity(ctx.name)
  const values = parseValues(argv, 3)
  if (values instanceof ReplyError) return values
  const path = pathArgument(text)
  const matches = arrayMatches(ctx, argv[1], path)
  if (matches instanceof ReplyError) return matches
  return eachArray(matches, path, path.original, (array) => {
    for (const value of values) array.push(cloneJson(value))
    return array.length
  })
}

/** JSON.ARRINSERT key path index value [value …]: inserted before `index` (negative from the end). */
function jsonArrinsert(ctx: CommandContext, argv: readonly string[]): Out {
  const text = textArgument(argv[2])
  if (text instanceof ReplyError) return text
  const index = integerArgument(argv[3])
  if (index instanceof ReplyError) return index
  const values = parseValues(argv, 4)
  if (values instanceof ReplyError) return values
  const path = pathArgument(text)
  const matches = arrayMatches(ctx, argv[1], path)
  if (matches instanceof ReplyError) return matches
  return eachArray(matches, path, path.path, (array) => {
    const at = index < 0 ? array.length + index : index
    if (at < 0 || at > array.length) return INDEX_OUT_OF_BOUNDS
    array.splice(at, 0, ...values.map(cloneJson))
    return array.length
  })
}

/**
 * JSON.ARRPOP key [path [index]]: the removed element as JSON (nil for an empty array). The
 * index defaults to -1 (also when it does not parse) and is clamped to the array.
 */
function jsonArrpop(ctx: CommandContext, argv: readonly string[]): Out {
  let path = LEGACY_ROOT
  let index = LAST
  if (argv.length > 2) {
    const text = textArgument(argv[2])
    if (text instanceof ReplyError) return text
    // `FORMAT <fmt>` (RESP3 only) may come first; without a readable value FORMAT is the path.
    if (isAscii(text) && text.toUpperCase() === 'FORMAT' && argv.length > 3 && isValidUtf8(argv[3])) {
      return argv[3] === 'STRINGS' || argv[3] === 'EXPAND1' || argv[3] === 'EXPAND' ? FORMAT_NOT_ON_RESP2 : WRONG_REPLY_FORMAT
    }
    path = pathArgument(text)
    const parsed = argv.length > 3 ? integerArgument(argv[3]) : -1
    index = parsed instanceof ReplyError ? -1 : parsed
  }
  const matches = arrayMatches(ctx, argv[1], path)
  if (matches instanceof ReplyError) return matches
  return eachArray(matches, path, path.path, (array) => {
    if (array.length === 0) return null
    const at = index < 0 ? Math.max(0, array.length + index) : Math.min(index, array.length - 1)
    return serializeJson(array.splice(at, 1)[0])
  }, null)
}

/** RedisJSON's `ArrayIndex::normalize`: negative from the end, clamped to [0, length - 1]. */
function normalize(index: number, length: number): number {
  return index < 0 ? length - Math.min(length, -index) : Math.max(0, Math.min(length - 1, index))
}

/**
 * JSON.ARRTRIM key path start stop: keeps [start, stop] (inclusive); a start past the end or
 * after stop empties the array. The new lengths.
 */
function jsonArrtrim(ctx: CommandContext, argv: readonly string[]): Out {
  const text = textArgument(argv[2])
  if (text instanceof ReplyError) return text
  const start = integerArgument(argv[3])
  if (start instanceof ReplyError) return start
  const stop = integerArgument(argv[4])
  if (stop instanceof ReplyError) return stop
  const path = pathArgument(text)
  const matches = arrayMatches(ctx, argv[1], path)
  if (matches instanceof ReplyError) return matches
  return eachArray(matches, path, path.path, (array) => {
    const length = array.length
    const last = normalize(stop, length)
    const first = start < 0 || start < length ? normalize(start, length) : last + 1
    if (first > last || length === 0) array.length = 0
    else {
      array.length = last + 1
      array.splice(0, first)
    }
    return array.length
  })
}

export const jsonArrayCommands: CommandTable = {
  'json.arrappend': jsonArrappend,
  'json.arrinsert': jsonArrinsert,
  'json.arrpop': jsonArrpop,
  'json.arrtrim': jsonArrtrim,
}
