import type { Value } from '../keyspace.js'
import type { Decoder, Encoded, LoadContext, ValueCodec } from './codec.js'
import { RDB_VERSION_READABLE } from './constants.js'
import { crc64 } from './crc64.js'
import { CorruptPayload, RdbReader } from './reader.js'
import { RdbWriter } from './writer.js'
import { hashCodec } from './values/hash.js'
import { listCodec } from './values/list.js'
import { setCodec } from './values/set.js'
import { streamCodec } from './values/stream.js'
import { stringCodec } from './values/string.js'
import { zsetCodec } from './values/zset.js'

/**
 * DUMP payloads (`createDumpPayload` / `verifyDumpPayload` in Redis's cluster.c): the RDB type
 * byte, the value in RDB form, the RDB version (2 bytes, little-endian) and the CRC-64 of all
 * the preceding bytes (8 bytes, little-endian). Payloads are binary strings, one char per byte.
 */

/** Every value type the engine can DUMP and RESTORE, one codec each. */
const codecs: readonly ValueCodec[] = [stringCodec, listCodec, setCodec, hashCodec, zsetCodec, streamCodec] as readonly ValueCodec[]

const decoders = new Map<number, Decoder>(codecs.flatMap((codec) => codec.types.map((type) => [type, codec.decode] as const)))

/** Version and checksum: 10 bytes at the end of every payload. */
const FOOTER_SIZE = 10

/**
 * Writes the body of `value` (everything after its type byte) with the codec of its type, and
 * says which type byte and RDB version that form has; null when no codec takes the value. RDB
 * files (`persistence/rdb-file.ts`) frame values with this, as DUMP does below.
 */
export function encodeValue(value: Value, writer: RdbWriter): Encoded | null {
  const codec = codecs.find((candidate) => candidate.accepts(value))
  return codec === undefined ? null : codec.encode(value, writer)
}

/** The decoder of RDB type byte `type`, or undefined when no codec reads that type. */
export function valueDecoder(type: number): Decoder | undefined {
  return decoders.get(type)
}

/** The DUMP payload of `value`, or null when its type has no codec yet. */
export function createDumpPayload(value: Value): string | null {
  const writer = new RdbWriter()
  const encoded = encodeValue(value, writer)
  if (encoded === null) return null
  const { type, version } = encoded
  const body = String.fromCharCode(type) + writer.finish() + String.fromCharCode(version & 0xff, version >> 8)
  return body + crc64(body)
}

/**
 * True when `payload` ends with a version this engine reads and the checksum of the rest
 * (Redis: "DUMP payload version or checksum are wrong" otherwise).
 */
export function verifyDumpPayload(payload: string): boolean {
  if (payload.length < FOOTER_SIZE) return false
  const footer = payload.length - FOOTER_SIZE
  const version = payload.charCodeAt(footer) | (payload.charCodeAt(footer + 1) << 8)
  if (version > RDB_VERSION_READABLE) return false
  return crc64(payload, 0, payload.length - 8) === payload.slice(payload.length - 8)
}

/**
 * The value a verified payload holds. Throws {@link CorruptPayload} for an unknown type byte or a
 * malformed value (Redis: "Bad data format"). As in Redis, the object is read from the whole
 * buffer, footer included, and bytes left over after it are ignored.
 */
export function loadDumpPayload(payload: string, context: LoadContext): Value {
  const reader = new RdbReader(payload)
  const type = reader.byte()
  const decode = decoders.get(type)
  if (decode === undefined) throw new CorruptPayload(`unsupported RDB object type ${type}`)
  return decode(type, reader, context)
}
