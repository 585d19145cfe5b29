import { ReplyError } from '../../../../reply.js'
import type { Value } from '../../keyspace.js'
import { parseJson } from '../../lib/json/parse.js'
import { serializeJson } from '../../lib/json/serialize.js'
import { JsonDocument } from '../../types/json.js'
import type { Encoded } from '../codec.js'
import { RDB_VERSION_7_0, RdbType } from '../constants.js'
import { check, CorruptPayload, type RdbReader } from '../reader.js'
import type { RdbWriter } from '../writer.js'

/**
 * JSON documents in RDB files as Redis with the RedisJSON module stores them: a module value
 * (RDB_TYPE_MODULE_2) whose 64-bit module id packs the type name `ReJSON-RL` (9 chars of 6 bits
 * each, Redis's `moduleTypeEncodeId`) above a 10-bit encoding version, then the value as the
 * module wrote it, each field behind its opcode, then the module EOF opcode (`rdb.h`).
 *
 * RedisJSON 2.x (the module of Redis Stack 7.0 and later) writes encoding version 3: the whole
 * document as one compact JSON text in a string field. This engine writes that form, so every
 * RedisJSON 2.x loads it, and reads versions 2 and 3. Version 0 (RedisJSON 1.x's tree) and
 * version 4 (a binary encoding of newer RedisJSON releases) are refused with their version named.
 */

/** RedisJSON's module type name. */
export const REJSON_TYPE_NAME = 'ReJSON-RL'
/** The encoding version this engine writes (RedisJSON 2.x's `REDIS_JSON_TYPE_VERSION`). */
export const REJSON_ENCODING_VERSION = 3

/** The 64 characters a module type name may use, in the order their 6-bit codes follow (`module.c`). */
const NAME_CHARSET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'
const NAME_LENGTH = 9
const ENCVER_BITS = 10n

/** Field opcodes inside a module value (`RDB_MODULE_OPCODE_*`). */
const ModuleOpcode = { EOF: 0, SINT: 1, UINT: 2, FLOAT: 3, DOUBLE: 4, STRING: 5 } as const

/** Redis's `moduleTypeEncodeId`: the 9-char name in 6-bit codes, then the encoding version. */
export function moduleTypeId(name: string, encodingVersion: number): bigint {
  if (name.length !== NAME_LENGTH) throw new RangeError(`a module type name has ${NAME_LENGTH} characters: ${name}`)
  let id = 0n
  for (const char of name) {
    const code = NAME_CHARSET.indexOf(char)
    if (code < 0) throw new RangeError(`character ${JSON.stringify(char)} cannot appear in a module type name`)
    id = (id << 6n) | BigInt(code)
  }
  return (id << ENCVER_BITS) | BigInt(encodingVersion)
}

/** The name and encoding version a module id packs (Redis's `moduleTypeNameByID`). */
export function moduleTypeOf(id: bigint): { readonly name: string; readonly encodingVersion: number } {
  const encodingVersion = Number(id & ((1n << ENCVER_BITS) - 1n))
  let rest = id >> ENCVER_BITS
  let name = ''
  for (let i = 0; i < NAME_LENGTH; i++) {
    name = NAME_CHARSET[Number(rest & 63n)] + name
    rest >>= 6n
  }
  return { name, encodingVersion }
}

/** A module value of a type this engine does not have: the load stops and names the module. */
export class UnknownModuleType extends Error {
  override readonly name = 'UnknownModuleType'
}

/** True for the values {@link encodeJsonModule} writes. */
export function isJsonDocument(value: Value): value is JsonDocument {
  return value instanceof JsonDocument
}

/** Writes the body of a JSON document (after its type byte) as RedisJSON 2.x does. */
export function encodeJsonModule(value: JsonDocument, writer: RdbWriter): Encoded {
  writer.length(moduleTypeId(REJSON_TYPE_NAME, REJSON_ENCODING_VERSION))
  writer.length(ModuleOpcode.STRING)
  writer.string(serializeJson(value.root))
  writer.length(ModuleOpcode.EOF)
  return { type: RdbType.MODULE_2, version: RDB_VERSION_7_0 }
}

/**
 * Reads a module value (after its RDB_TYPE_MODULE_2 type byte): a RedisJSON document, or
 * {@link UnknownModuleType} naming the module of any other type.
 */
export function decodeModuleValue(reader: RdbReader): JsonDocument {
  const { name, encodingVersion } = moduleTypeOf(reader.length64())
  if (name !== REJSON_TYPE_NAME) {
    throw new UnknownModuleType(`a value of module type '${name}' (encoding version ${encodingVersion}): this engine has no such module (the only module type it reads is RedisJSON's ${REJSON_TYPE_NAME})`)
  }
  let text: string
  if (encodingVersion === 3) text = moduleString(reader)
  else if (encodingVersion === 2) {
    text = moduleString(reader)
    // RedisJSON 2.0 kept room for a search index hint: a count, then two strings when set.
    if (moduleUnsigned(reader) > 0n) {
      moduleString(reader)
      moduleString(reader)
    }
  } else {
    throw new UnknownModuleType(`a ${REJSON_TYPE_NAME} value of encoding version ${encodingVersion}: this engine reads RedisJSON 2.x's versions 2 and 3`)
  }
  check(reader.length() === ModuleOpcode.EOF, `the ${REJSON_TYPE_NAME} value is not terminated by the module EOF marker`)
  const root = parseJson(text)
  if (root instanceof ReplyError) throw new CorruptPayload(`the ${REJSON_TYPE_NAME} value is not valid JSON: ${root.message}`)
  return new JsonDocument(root)
}

function moduleString(reader: RdbReader): string {
  check(reader.length() === ModuleOpcode.STRING, 'a module field other than the string RedisJSON writes')
  return reader.string()
}

function moduleUnsigned(reader: RdbReader): bigint {
  check(reader.length() === ModuleOpcode.UINT, 'a module field other than the unsigned count RedisJSON 2.0 writes')
  return reader.length64()
}
