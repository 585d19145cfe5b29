import { OK, ReplyError } from '../../../../reply.js'
import { NOTIFY_MODULE, notify } from '../../notify.js'
import type { CommandContext, CommandTable, Out } from '../../command.js'
import { SYNTAX, wrongArity } from '../../errors.js'
import { JsonDocument, JsonFloat, JsonObject, cloneJson, isJsonInteger, toDouble, type JsonValue } from '../../types/json.js'
import {
  NEW_OBJECTS_AT_ROOT,
  NOT_UTF8,
  PATH_VANISHED,
  locate,
  operandParseError,
  pathDoesNotExistOr,
  readDocument,
  requireDocument,
  textArgument,
  wrongPathType,
} from './access.js'
import type { PathElement } from '../../lib/json/evaluate.js'
import { parseJson } from '../../lib/json/parse.js'
import { LEGACY_ROOT, isRootPath, pathArgument, type PathArgument } from '../../lib/json/path.js'
import { serializeJson } from '../../lib/json/serialize.js'
import { addMember, applySet, planSet, type SetCondition, type SetUpdate } from './set-plan.js'
import { deleteAt, mergePatch, orderForDeletion, replaceAt, valueAt } from './update.js'
import { isAscii, isValidUtf8 } from '../../lib/json/utf8.js'

/**
 * JSON.SET MSET MERGE DEL FORGET CLEAR TOGGLE NUMINCRBY NUMMULTBY STRAPPEND, after RedisJSON
 * 2.x's `commands.rs` and `ivalue_manager.rs`. Documents change in place, so keys keep their
 * TTL; only JSON.SET / MSET / MERGE at the root of a missing key create one, and only JSON.DEL at
 * the root deletes one.
 */

const WRONG_FORMAT = new ReplyError('ERR wrong format')
const BAD_INPUT_NUMBER = new ReplyError('bad input number')
const NOT_A_NUMBER = new ReplyError('result is not a number')
const I64_MAX = 2n ** 63n - 1n

function asciiUpper(arg: string): string {
  return isAscii(arg) ? arg.toUpperCase() : arg
}

/** The optional path of DEL / CLEAR (`Path::new(s.try_as_str()?)`, default `.`). */
function pathOrRoot(arg: string | undefined): PathArgument | ReplyError {
  if (arg === undefined) return LEGACY_ROOT
  const text = textArgument(arg)
  return text instanceof ReplyError ? text : pathArgument(text)
}

/** JSON.SET key path value [NX | XX] [FORMAT JSON|STRING] */
function jsonSet(ctx: CommandContext, argv: readonly string[]): Out {
  const [, key, rawPath, rawValue] = argv
  const pathText = textArgument(rawPath)
  if (pathText instanceof ReplyError) return pathText
  const valueText = textArgument(rawValue)
  if (valueText instanceof ReplyError) return valueText
  let condition: SetCondition = 'always'
  for (let i = 4; i < argv.length; i++) {
    if (!isValidUtf8(argv[i])) return NOT_UTF8
    const option = asciiUpper(argv[i])
    if (option === 'NX' && condition === 'always') condition = 'nx'
    else if (option === 'XX' && condition === 'always') condition = 'xx'
    else if (option === 'FORMAT') {
      const format = argv[++i]
      if (format === undefined) return wrongArity(ctx.name)
      if (!isValidUtf8(format)) return NOT_UTF8
      // RedisJSON's `Format::from_str`: JSON and STRING are JSON text; BSON input is not supported here.
      if (format !== 'JSON' && format !== 'STRING') return WRONG_FORMAT
    } else return SYNTAX
  }
  const document = readDocument(ctx, key)
  if (document instanceof ReplyError) return document
  const value = parseJson(valueText)
  if (value instanceof ReplyError) return value
  const path = pathArgument(pathText)
  if (document === undefined) {
    if (condition === 'xx') return null
    if (!isRootPath(path)) return NEW_OBJECTS_AT_ROOT
    ctx.db.set(key, new JsonDocument(value))
    return OK
  }
  if (isRootPath(path)) {
    if (condition === 'nx') return null
    document.root = value
    return OK
  }
  const updates = planSet(document, path, condition)
  if (updates instanceof ReplyError) return updates
  return updates.length > 0 && applySet(document, updates, value) ? OK : null
}

/** One JSON.MSET triplet, checked before anything is written. */
interface PlannedSet {
  readonly key: string
  readonly document: JsonDocument | undefined
  /** Null: the whole document. */
  readonly updates: SetUpdate[] | null
  readonly value: JsonValue
}

/** JSON.MSET key path value [key path value …]: every triplet is checked, then all are applied. */
function jsonMset(ctx: CommandContext, argv: readonly string[]): Out {
  if ((argv.length - 1) % 3 !== 0) return wrongArity(ctx.name)
  const planned: PlannedSet[] = []
  for (let i = 1; i < argv.length; i += 3) {
    const pathText = textArgument(argv[i + 1])
    if (pathText instanceof ReplyError) return pathText
    const path = pathArgument(pathText)
    const document = readDocument(ctx, argv[i])
    if (document instanceof ReplyError) return document
    let updates: SetUpdate[] | null = null
    if (!isRootPath(path)) {
      if (document === undefined) return NEW_OBJECTS_AT_ROOT
      const plan = planSet(document, path, 'always')
      if (plan instanceof ReplyError) return plan
      updates = plan
    }
    const valueText = textArgument(argv[i + 2])
    if (valueText instanceof ReplyError) return valueText
    const value = parseJson(valueText)
    if (value instanceof ReplyError) return value
    planned.push({ key: argv[i], document, updates, value })
  }
  for (const { key, document, updates, value } of planned) {
    if (updates !== null) {
      if (updates.length === 0) continue
      applySet(document!, updates, value)
    } else {
      // A document this command created earlier is replaced in place, like any other.
      const current = ctx.db.read(key, ctx)
      if (current instanceof JsonDocument) current.root = value
      else ctx.db.set(key, new JsonDocument(value))
    }
    // RedisJSON reports each key JSON.MSET changed (module class `d`).
    notify(ctx, NOTIFY_MODULE, 'json.mset', key)
  }
  return OK
}

/** JSON.MERGE key path value (RFC 7386 merge patch, as RedisJSON applies it). */
function jsonMerge(ctx: CommandContext, argv: readonly string[]): Out {
  const [, key, rawPath, rawValue] = argv
  const pathText = textArgument(rawPath)
  if (pathText instanceof ReplyError) return pathText
  const valueText = textArgument(rawValue)
  if (valueText instanceof ReplyError) return valueText
  const document = readDocument(ctx, key)
  if (document instanceof ReplyError) return document
  const patch = parseJson(valueText)
  if (patch instanceof ReplyError) return patch
  const path = pathArgument(pathText)
  if (document === undefined) {
    if (!isRootPath(path)) return NEW_OBJECTS_AT_ROOT
    // Nothing to merge with: the value is stored as given, nulls included.
    ctx.db.set(key, new JsonDocument(patch))
    return OK
  }
  if (isRootPath(path)) {
    document.root = mergePatch(document.root, patch)
    return OK
  }
  const updates = planSet(document, path, 'always')
  if (updates instanceof ReplyError) return updates
  let written = false
  for (const update of updates) {
    if (update.kind === 'add') {
      // A new member takes the patch as is (RedisJSON's `dict_add`), nulls included.
      if (addMember(document, update.parent, update.key, cloneJson(patch))) written = true
      continue
    }
    const current = valueAt(document, update.path)
    if (current === undefined) continue
    replaceAt(document, update.path, mergePatch(current, patch))
    written = true
  }
  return written ? OK : null
}

/** JSON.DEL / JSON.FORGET key [path]: how many values were removed. */
function jsonDel(ctx: CommandContext, argv: readonly string[]): Out {
  const path = pathOrRoot(argv[2])
  if (path instanceof ReplyError) return path
  const document = readDocument(ctx, argv[1])
  if (document === undefined || document instanceof ReplyError) return document ?? 0
  if (isRootPath(path)) {
    ctx.db.remove(argv[1])
    return 1
  }
  const found = locate(document, path)
  if (found instanceof ReplyError) return found
  let deleted = 0
  for (const location of orderForDeletion(found.paths)) if (deleteAt(document, location)) deleted++
  return deleted
}

/** What JSON.CLEAR changes: non-empty containers and non-zero numbers. */
function isClearable(value: JsonValue): boolean {
  if (Array.isArray(value)) return value.length > 0
  if (value instanceof JsonObject) return value.size > 0
  if (value instanceof JsonFloat) return value.value !== 0
  return isJsonInteger(value) && value !== 0 && value !== 0n
}

/** JSON.CLEAR key [path]: empties containers, sets numbers to 0; how many values changed. */
function jsonClear(ctx: CommandContext, argv: readonly string[]): Out {
  const path = pathOrRoot(argv[2])
  if (path instanceof ReplyError) return path
  const document = requireDocument(ctx, argv[1])
  if (document instanceof ReplyError) return document
  const found = locate(document, path)
  if (found instanceof ReplyError) return found
  let cleared = 0
  found.paths.forEach((location, i) => {
    if (!isClearable(found.values[i])) return
    // Walk again: clearing a container earlier in the list removes what was inside it.
    const current = valueAt(document, location)
    if (current === undefined) return
    if (Array.isArray(current)) current.length = 0
    else if (current instanceof JsonObject) current.clear()
    else if (current instanceof JsonFloat || isJsonInteger(current)) replaceAt(document, location, 0)
    else return
    cleared++
  })
  return cleared
}

/** JSON.TOGGLE key path: the new value per boolean (1 / 0), nil for other matches. */
function jsonToggle(ctx: CommandContext, argv: readonly string[]): Out {
  if (argv.length < 3) return wrongArity(ctx.name)
  const text = textArgument(argv[2])
  if (text instanceof ReplyError) return text
  const path = pathArgument(text)
  const document = requireDocument(ctx, argv[1])
  if (document instanceof ReplyError) return document
  const found = locate(document, path)
  if (found instanceof ReplyError) return found
  const toggle = (location: PathElement[]): boolean | ReplyError => {
    const current = valueAt(document, location)
    if (typeof current !== 'boolean') return PATH_VANISHED
    replaceAt(document, location, !current)
    return !current
  }
  if (path.legacy) {
    const locations = found.paths.filter((_, i) => typeof found.values[i] === 'boolean')
    if (locations.length === 0) return pathDoesNotExistOr(path.path, 'not a bool')
    let last: boolean | ReplyError = false
    for (const location of locations) if ((last = toggle(location)) instanceof ReplyError) return last
    return last ? 'true' : 'false'
  }
  const replies: Out[] = []
  for (let i = 0; i < found.paths.length; i++) {
    if (typeof found.values[i] !== 'boolean') {
      replies.push(null)
      continue
    }
    const result = toggle(found.paths[i])
    if (result instanceof ReplyError) return result
    replies.push(result ? 1 : 0)
  }
  return replies
}

type Arithmetic = 'add' | 'multiply'

/**
 * One NUMINCRBY / NUMMULTBY step (`do_num_op`): integer with i64 operand stays an integer,
 * wrapping on overflow (RedisJSON PR #1192); anything else is computed in doubles and
 * stored as a float, refused when not finite. The operand is parsed as JSON.
 */
function arithmetic(document: JsonDocument, location: PathElement[], operandText: string, operation: Arithmetic): JsonValue | ReplyError {
  const operand = parseJson(operandText)
  if (operand instanceof ReplyError) return operandParseError(operand)
  if (!isJsonInteger(operand) && !(operand instanceof JsonFloat)) return BAD_INPUT_NUMBER
  const current = valueAt(document, location)
  if (current === undefined || (!isJsonInteger(current) && !(current instanceof JsonFloat))) return PATH_VANISHED
  let result: JsonValue
  if (isJsonInteger(current) && isJsonInteger(operand) && current <= I64_MAX && operand <= I64_MAX) {
    const quick = operation === 'add' ? Number(current) + Number(operand) : Number(current) * Number(operand)
    if (typeof current === 'number' && typeof operand === 'number' && Number.isSafeInteger(quick)) result = quick
    else {
      const exact = operation === 'add' ? BigInt(current) + BigInt(operand) : BigInt(current) * BigInt(operand)
      const wrapped = BigInt.asIntN(64, exact)
      result = Number.isSafeInteger(Number(wrapped)) ? Number(wrapped) : wrapped
    }
  } else {
    const a = toDouble(current)
    const b = toDouble(operand)
    const value = operation === 'add' ? a + b : a * b
    if (!Number.isFinite(value)) return NOT_A_NUMBER
    result = new JsonFloat(value)
  }
  replaceAt(document, location, result)
  return result
}

function numericCommand(operation: Arithmetic) {
  return (ctx: CommandContext, argv: readonly string[]): Out => {
    const pathText = textArgument(argv[2])
    if (pathText instanceof ReplyError) return pathText
    const operandText = textArgument(argv[3])
    if (operandText instanceof ReplyError) return operandText
    const path = pathArgument(pathText)
    const document = requireDocument(ctx, argv[1])
    if (document instanceof ReplyError) return document
    const found = locate(document, path)
    if (found instanceof ReplyError) return found
    const isNumber = (value: JsonValue): boolean => isJsonInteger(value) || value instanceof JsonFloat
    if (path.legacy) {
      const locations = found.paths.filter((_, i) => isNumber(found.values[i]))
      if (locations.length === 0) return pathDoesNotExistOr(path.path, 'does not contains a number')
      let last: JsonValue | ReplyError = null
      for (const location of locations) if ((last = arithmetic(document, location, operandText, operation)) instanceof ReplyError) return last
      return serializeJson(last)
    }
    const results: JsonValue[] = []
    for (let i = 0; i < found.paths.length; i++) {
      if (!isNumber(found.values[i])) {
        results.push(null)
        continue
      }
      const result = arithmetic(document, found.paths[i], operandText, operation)
      if (result instanceof ReplyError) return result
      results.push(result)
    }
    return serializeJson(results)
  }
}

/** One JSON.STRAPPEND step: the operand must be a JSON string; the new length in bytes. */
function appendString(document: JsonDocument, location: PathElement[], operandText: string): number | ReplyError {
  const operand = parseJson(operandText)
  if (operand instanceof ReplyError) return operandParseError(operand)
  if (typeof operand !== 'string') return wrongPathType('string', operandText)
  const current = valueAt(document, location)
  if (typeof current !== 'string') return PATH_VANISHED
  const result = current + operand
  replaceAt(document, location, result)
  return result.length
}

/** JSON.STRAPPEND key [path] value */
function jsonStrappend(ctx: CommandContext, argv: readonly string[]): Out {
  const first = textArgument(argv[2])
  if (first instanceof ReplyError) return first
  let path = LEGACY_ROOT
  let operandText = first
  if (argv.length > 3) {
    const operand = textArgument(argv[3])
    if (operand instanceof ReplyError) return operand
    path = pathArgument(first)
    operandText = operand
  }
  const document = requireDocument(ctx, argv[1])
  if (document instanceof ReplyError) return document
  const found = locate(document, path)
  if (found instanceof ReplyError) return found
  if (path.legacy) {
    const locations = found.paths.filter((_, i) => typeof found.values[i] === 'string')
    if (locations.length === 0) return pathDoesNotExistOr(path.path, 'not a string')
    let last: number | ReplyError = 0
    for (const location of locations) if ((last = appendString(document, location, operandText)) instanceof ReplyError) return last
    return last
  }
  const replies: Out[] = []
  for (let i = 0; i < found.paths.length; i++) {
    if (typeof found.values[i] !== 'string') {
      replies.push(null)
      continue
    }
    const length = appendString(document, found.paths[i], operandText)
    if (length instanceof ReplyError) return length
    replies.push(length)
  }
  return replies
}

export const jsonWriteCommands: CommandTable = {
  'json.set': jsonSet,
  'json.mset': jsonMset,
  'json.merge': jsonMerge,
  'json.del': jsonDel,
  'json.forget': jsonDel,
  'json.clear': jsonClear,
  'json.toggle': jsonToggle,
  'json.numincrby': numericCommand('add'),
  'json.nummultby': numericCommand('multiply'),
  'json.strappend': jsonStrappend,
}
