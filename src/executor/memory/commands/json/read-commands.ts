import { ReplyError, Status } from '../../../../reply.js'
import type { CommandContext, CommandTable, Out } from '../../command.js'
import { wrongArity } from '../../errors.js'
import { JsonFloat, JsonObject, jsonEquals, jsonTypeName, type JsonValue } from '../../types/json.js'
import {
  FORMAT_NOT_ON_RESP2,
  NOT_UTF8,
  WRONG_REPLY_FORMAT,
  integerArgument,
  operandParseError,
  pathDoesNotExist,
  pathDoesNotExistOr,
  readDocument,
  requireDocument,
  select,
  textArgument,
  wrongPathType,
} from './access.js'
import { selectValues } from '../../lib/json/evaluate.js'
import { parseJson } from '../../lib/json/parse.js'
import { LEGACY_ROOT, compilePath, pathArgument, type PathArgument } from '../../lib/json/path.js'
import { formatDouble17g, serializeJson, type JsonFormat } from '../../lib/json/serialize.js'
import { isAscii, isValidUtf8 } from '../../lib/json/utf8.js'

/**
 * JSON.GET MGET TYPE STRLEN ARRLEN OBJKEYS OBJLEN ARRINDEX RESP, after RedisJSON 2.x's
 * `commands.rs`. A JSONPath (`$…`) answers one entry per match (nil where the match has the
 * wrong type); a legacy path answers for its first match and errors where JSONPath says nil.
 */

/** Longer arguments are paths without a look: the longest option is NOESCAPE. */
const LONGEST_GET_OPTION = 8
const REPLY_FORMATS = new Set(['STRING', 'STRINGS', 'EXPAND1', 'EXPAND'])
const ARRAY_MARKER = new Status('[')
const OBJECT_MARKER = new Status('{')
const TRUE = new Status('true')
const FALSE = new Status('false')

/** The optional path argument of TYPE STRLEN ARRLEN OBJKEYS OBJLEN (`unwrap_or_default`: unreadable means `.`). */
function optionalPath(arg: string | undefined): PathArgument {
  return arg === undefined || !isValidUtf8(arg) ? LEGACY_ROOT : pathArgument(arg)
}

/** JSON.GET key [INDENT s] [NEWLINE s] [SPACE s] [NOESCAPE] [path …] */
function jsonGet(ctx: CommandContext, argv: readonly string[]): Out {
  const paths: PathArgument[] = []
  const format: { indent?: string; newline?: string; space?: string } = {}
  for (let i = 2; i < argv.length; i++) {
    const arg = argv[i]
    // `while let Ok(arg) = args.next_str()`: an argument that is not UTF-8 ends the list.
    if (!isValidUtf8(arg)) break
    const option = arg.length <= LONGEST_GET_OPTION && isAscii(arg) ? arg.toUpperCase() : ''
    if (option === 'INDENT' || option === 'NEWLINE' || option === 'SPACE') {
      const value = argv[++i]
      if (value === undefined) return wrongArity(ctx.name)
      if (!isValidUtf8(value)) return NOT_UTF8
      if (option === 'INDENT') format.indent = value
      else if (option === 'NEWLINE') format.newline = value
      else format.space = value
    } else if (option === 'FORMAT') {
      // RESP3 only: refused while no path came before it, otherwise checked then ignored.
      if (paths.length === 0) return FORMAT_NOT_ON_RESP2
      const value = argv[++i]
      if (value === undefined) return wrongArity(ctx.name)
      if (!isValidUtf8(value)) return NOT_UTF8
      if (value === 'STRINGS' || !REPLY_FORMATS.has(value)) return WRONG_REPLY_FORMAT
    } else if (option !== 'NOESCAPE') paths.push(pathArgument(arg)) // NOESCAPE: ReJSON 1.0 compatibility, ignored
  }
  if (paths.length === 0) paths.push(LEGACY_ROOT)
  const document = readDocument(ctx, argv[1])
  if (document === undefined || document instanceof ReplyError) return document ?? null
  const legacy = paths.every((path) => path.legacy)
  if (paths.length > 1) return getMany(document.root, paths, legacy, format)
  const path = paths[0]
  const values = select(document, path)
  if (values instanceof ReplyError) return values
  if (!legacy) return serializeJson(values, format)
  return values.length === 0 ? pathDoesNotExist(path.path) : serializeJson(values[0], format)
}

/**
 * Several paths: an object keyed by path (each path once), a value per legacy path or an array
 * per JSONPath. A path that does not compile is left out; with legacy paths only, one that
 * matches nothing fails the command. (RedisJSON builds a Rust HashMap, so its key order varies;
 * here keys come in argument order.)
 */
function getMany(root: JsonValue, paths: readonly PathArgument[], legacy: boolean, format: JsonFormat): Out {
  const result = new JsonObject()
  for (const path of paths) {
    const query = compilePath(path.path)
    if (typeof query === 'string') continue
    const values = selectValues(query.segments, root)
    if (!legacy) result.set(path.original, values)
    else if (values.length === 0) return pathDoesNotExist(path.original)
    else result.set(path.original, values[0])
  }
  return serializeJson(result, format)
}

/** JSON.MGET key [key …] path: per key the JSON of its matches, nil for whatever fails. */
function jsonMget(ctx: CommandContext, argv: readonly string[]): Out {
  const text = textArgument(argv[argv.length - 1])
  if (text instanceof ReplyError) return text
  const path = pathArgument(text)
  const query = compilePath(path.path)
  const replies: Out[] = []
  for (let i = 1; i < argv.length - 1; i++) {
    const document = readDocument(ctx, argv[i])
    if (document === undefined || document instanceof ReplyError || typeof query === 'string') {
      replies.push(null)
      continue
    }
    const values = selectValues(query.segments, document.root)
    if (!path.legacy) replies.push(serializeJson(values))
    else replies.push(values.length === 0 ? null : serializeJson(values[0]))
  }
  return replies
}

/** JSON.TYPE key [path] */
function jsonType(ctx: CommandContext, argv: readonly string[]): Out {
  const path = optionalPath(argv[2])
  const document = readDocument(ctx, argv[1])
  if (document === undefined || document instanceof ReplyError) return document ?? null
  const values = select(document, path)
  if (path.legacy) return values instanceof ReplyError || values.length === 0 ? null : jsonTypeName(values[0])
  return values instanceof ReplyError ? values : values.map(jsonTypeName)
}

/** JSON.STRLEN key [path]: lengths in bytes, as Rust's `str::len`. */
function jsonStrlen(ctx: CommandContext, argv: readonly string[]): Out {
  const path = optionalPath(argv[2])
  if (path.legacy) {
    const document = readDocument(ctx, argv[1])
    if (document === undefined || document instanceof ReplyError) return document ?? null
    const values = select(document, path)
    if (values instanceof ReplyError) return values
    if (values.length === 0) return pathDoesNotExist(path.path)
    const first = values[0]
    return typeof first === 'string' ? first.length : wrongPathType('string', jsonTypeName(first))
  }
  const document = requireDocument(ctx, argv[1])
  if (document instanceof ReplyError) return document
  const values = select(document, path)
  if (values instanceof ReplyError) return values
  return values.map((value) => (typeof value === 'string' ? value.length : null))
}

/** JSON.ARRLEN key [path] */
function jsonArrlen(ctx: CommandContext, argv: readonly string[]): Out {
  const path = optionalPath(argv[2])
  if (path.legacy) {
    const document = readDocument(ctx, argv[1])
    if (document === undefined || document instanceof ReplyError) return document ?? null
    const values = select(document, path)
    if (values instanceof ReplyError) return values
    const first = values[0]
    return Array.isArray(first) ? first.length : pathDoesNotExistOr(path.original, 'not an array')
  }
  const document = requireDocument(ctx, argv[1])
  if (document instanceof ReplyError) return document
  const values = select(document, path)
  if (values instanceof ReplyError) return values
  return values.map((value) => (Array.isArray(value) ? value.length : null))
}

/** JSON.OBJKEYS key [path] */
function jsonObjkeys(ctx: CommandContext, argv: readonly string[]): Out {
  const path = optionalPath(argv[2])
  if (path.legacy) {
    const document = readDocument(ctx, argv[1])
    if (document === undefined || document instanceof ReplyError) return document ?? null
    const values = select(document, path)
    // `get_first(path).map_or(Null, …)`: a path that fails to compile answers nil too.
    if (values instanceof ReplyError || values.length === 0) return null
    const first = values[0]
    return first instanceof JsonObject ? first.keys.slice() : pathDoesNotExistOr(path.path, 'not an object')
  }
  const document = requireDocument(ctx, argv[1])
  if (document instanceof ReplyError) return document
  const values = select(document, path)
  if (values instanceof ReplyError) return values
  return values.map((value) => (value instanceof JsonObject ? value.keys.slice() : null))
}

/** JSON.OBJLEN key [path] */
function jsonObjlen(ctx: CommandContext, argv: readonly string[]): Out {
  const path = optionalPath(argv[2])
  const document = readDocument(ctx, argv[1])
  if (document instanceof ReplyError) return document
  if (path.legacy) {
    if (document === undefined) return null
    const values = select(document, path)
    if (values instanceof ReplyError || values.length === 0) return null
    const first = values[0]
    return first instanceof JsonObject ? first.size : wrongPathType('object', jsonTypeName(first))
  }
  if (document === undefined) return pathDoesNotExistOr(path.path, 'not an object')
  const values = select(document, path)
  if (values instanceof ReplyError) return values
  return values.map((value) => (value instanceof JsonObject ? value.size : null))
}

/** JSON.ARRINDEX key path value [start [stop]] */
function jsonArrindex(ctx: CommandContext, argv: readonly string[]): Out {
  const pathText = textArgument(argv[2])
  if (pathText instanceof ReplyError) return pathText
  const valueText = textArgument(argv[3])
  if (valueText instanceof ReplyError) return valueText
  const start = argv.length > 4 ? integerArgument(argv[4]) : 0
  if (start instanceof ReplyError) return start
  const stop = argv.length > 5 ? integerArgument(argv[5]) : 0
  if (stop instanceof ReplyError) return stop
  if (argv.length > 6) return wrongArity(ctx.name)
  const path = pathArgument(pathText)
  const needle = parseJson(valueText)
  if (needle instanceof ReplyError) return operandParseError(needle)
  const document = readDocument(ctx, argv[1])
  if (document instanceof ReplyError) return document
  if (document === undefined) return pathDoesNotExist(path.original)
  const values = select(document, path)
  if (values instanceof ReplyError) return values
  if (!path.legacy) return values.map((value) => (Array.isArray(value) ? indexOf(value, needle, start, stop) : null))
  if (values.length === 0) return pathDoesNotExist(path.path)
  const first = values[0]
  return Array.isArray(first) ? indexOf(first, needle, start, stop) : wrongPathType('array', jsonTypeName(first))
}

/**
 * The first index of `needle` in `array[start, stop)`: a negative bound counts from the end, a
 * stop of 0 means the end, out-of-range bounds are clamped (RedisJSON's `normalize_arr_indices`).
 */
function indexOf(array: readonly JsonValue[], needle: JsonValue, start: number, stop: number): number {
  const length = array.length
  if (length === 0) return -1
  const from = start < 0 ? Math.max(0, length + start) : Math.min(start, length - 1)
  const to = stop === 0 ? length : stop < 0 ? Math.max(0, length + stop) : Math.min(stop, length)
  for (let i = from; i < to; i++) if (jsonEquals(array[i], needle)) return i
  return -1
}

/** JSON.RESP key [path] */
function jsonResp(ctx: CommandContext, argv: readonly string[]): Out {
  let path = LEGACY_ROOT
  if (argv.length > 2) {
    const text = textArgument(argv[2])
    if (text instanceof ReplyError) return text
    path = pathArgument(text)
  }
  const document = readDocument(ctx, argv[1])
  if (document === undefined || document instanceof ReplyError) return document ?? null
  const values = select(document, path)
  if (values instanceof ReplyError) return values
  if (!path.legacy) return values.map(respOf)
  return values.length === 0 ? pathDoesNotExist(path.path) : respOf(values[0])
}

/**
 * RedisJSON's RESP form of a value: null → nil, booleans → simple strings `true` / `false`,
 * integers → integers, floats → doubles (a bulk `%.17g` string in RESP2 on Redis 7.0), strings →
 * bulk strings, arrays → `[` then the elements, objects → `{` then key, value, key, value …
 */
function respOf(value: JsonValue): Out {
  if (value === null) return null
  switch (typeof value) {
    case 'boolean':
      return value ? TRUE : FALSE
    case 'string':
    case 'number':
    case 'bigint':
      return value
  }
  if (value instanceof JsonFloat) return formatDouble17g(value.value)
  if (Array.isArray(value)) {
    const reply: Out[] = [ARRAY_MARKER]
    for (const item of value) reply.push(respOf(item))
    return reply
  }
  const reply: Out[] = [OBJECT_MARKER]
  for (let i = 0; i < value.keys.length; i++) reply.push(value.keys[i], respOf(value.values[i]))
  return reply
}

export const jsonReadCommands: CommandTable = {
  'json.get': jsonGet,
  'json.mget': jsonMget,
  'json.type': jsonType,
  'json.strlen': jsonStrlen,
  'json.arrlen': jsonArrlen,
  'json.objkeys': jsonObjkeys,
  'json.objlen': jsonObjlen,
  'json.arrindex': jsonArrindex,
  'json.resp': jsonResp,
}
