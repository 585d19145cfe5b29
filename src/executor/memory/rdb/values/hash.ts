import type { ValueCodec } from '../codec.js'
import { isInstance, type LoadContext } from '../codec.js'
import { RDB_VERSION_7_0, RDB_VERSION_7_4, RdbType } from '../constants.js'
import { readListpack } from '../listpack.js'
import { check, type RdbReader } from '../reader.js'
import type { RdbWriter } from '../writer.js'
import { readZiplist } from '../ziplist.js'
import { readZipmap } from '../zipmap.js'
import { HashValue, type HashLimits } from '../../types/hash.js'
import { readInteger } from '../../lib/numbers.js'

/**
 * Hashes. Redis 7.0 writes RDB_TYPE_HASH_LISTPACK or RDB_TYPE_HASH (field, value strings) and
 * loads the ziplist and zipmap forms of older versions; Redis 7.4 adds forms carrying field
 * TTLs (RDB_TYPE_HASH_METADATA, RDB_TYPE_HASH_LISTPACK_EX, and their release-candidate
 * variants). The engine writes RDB_TYPE_HASH, or RDB_TYPE_HASH_METADATA (RDB version 12) when a
 * field has a TTL: Redis 7.0 refuses such a payload ("DUMP payload version or checksum are
 * wrong"), as it would a DUMP from Redis 7.4.
 *
 * Encoding on load follows `rdbLoadObject`: a hash that came as a hash table (or a zipmap) is
 * checked against both `hash-max-listpack-*` limits, one that came compact only against the
 * entry count.
 */

/** Highest field deadline Redis 7.4 can hold (`EB_EXPIRE_TIME_MAX`, 48 bits of milliseconds). */
const MAX_FIELD_DEADLINE = 2 ** 48 - 1

export const hashCodec: ValueCodec<HashValue> = {
  types: [
    RdbType.HASH, RdbType.HASH_ZIPMAP, RdbType.HASH_ZIPLIST, RdbType.HASH_LISTPACK,
    RdbType.HASH_METADATA_PRE_GA, RdbType.HASH_LISTPACK_EX_PRE_GA, RdbType.HASH_METADATA, RdbType.HASH_LISTPACK_EX,
  ],
  accepts: isInstance(HashValue),
  decode(type, reader, context) {
    switch (type) {
      case RdbType.HASH:
        return fromPairs(readPairs(reader), context.hash)
      case RdbType.HASH_ZIPMAP:
        return fromPairs(readZipmap(reader.string()), context.hash)
      case RdbType.HASH_ZIPLIST:
        return fromPairs(evenly(readZiplist(reader.string())), countOnly(context.hash))
      case RdbType.HASH_LISTPACK:
        return fromPairs(evenly(readListpack(reader.string())), countOnly(context.hash))
      case RdbType.HASH_METADATA_PRE_GA:
      case RdbType.HASH_METADATA:
        return readMetadataHash(type, reader, context)
      default:
        return readListpackEx(type, reader, context)
    }
  },
  encode(hash, writer) {
    if (hash.hasVolatileFields) return writeMetadataHash(hash, writer)
    writer.length(hash.size)
    hash.forEach((field, value) => {
      writer.string(field)
      writer.string(value)
    })
    return { type: RdbType.HASH, version: RDB_VERSION_7_0 }
  },
}

/** RDB_TYPE_HASH: a pair count, then field and value strings. */
function readPairs(reader: RdbReader): string[] {
  const pairs = reader.length()
  const entries: string[] = []
  for (let i = 0; i < pairs; i++) entries.push(reader.string(), reader.string())
  return entries
}

/** Compact forms hold fields and values alternately: an odd count is corrupt. */
function evenly(entries: string[]): string[] {
  check(entries.length % 2 === 0, 'hash with an odd number of entries')
  return entries
}

/** Redis checks only the entry count when it loads a listpack or ziplist (an O(1) test). */
function countOnly(limits: HashLimits): HashLimits {
  return { entries: limits.entries, value: Infinity }
}

function fromPairs(entries: readonly string[], limits: HashLimits): HashValue {
  check(entries.length > 0, 'empty hash')
  const hash = new HashValue()
  for (let i = 0; i < entries.length; i += 2) check(hash.set(entries[i], entries[i + 1], limits), 'duplicate hash fields detected')
  return hash
}

/**
 * RDB_TYPE_HASH_METADATA (7.4): the earliest field deadline (8 bytes), a pair count, then per
 * field its TTL as a length (0: none, else deadline − earliest + 1), field and value. The
 * release-candidate form has no earliest deadline and absolute TTLs.
 */
function readMetadataHash(type: number, reader: RdbReader, context: LoadContext): HashValue {
  const base = type === RdbType.HASH_METADATA ? Number(reader.millis()) - 1 : 0
  const pairs = reader.length()
  check(pairs > 0, 'empty hash')
  const hash = new HashValue()
  hash.enableFieldExpiry()
  const seen = new Set<string>()
  for (let i = 0; i < pairs; i++) {
    const ttl = reader.length()
    const field = reader.string()
    const value = reader.string()
    addField(hash, seen, field, value, ttl === 0 ? 0 : ttl + base, context, context.hash)
  }
  return hash
}

/**
 * RDB_TYPE_HASH_LISTPACK_EX (7.4): the earliest field deadline (8 bytes; absent in the
 * release-candidate form), then a listpack of field, value, deadline triplets (0: no TTL).
 */
function readListpackEx(type: number, reader: RdbReader, context: LoadContext): HashValue {
  if (type === RdbType.HASH_LISTPACK_EX) reader.millis()
  const entries = readListpack(reader.string())
  check(entries.length > 0 && entries.length % 3 === 0, 'hash listpack of triplets expected')
  const hash = new HashValue()
  hash.enableFieldExpiry()
  const seen = new Set<string>()
  const limits = countOnly(context.hash)
  for (let i = 0; i < entries.length; i += 3) {
    const deadline = readInteger(entries[i + 2])
    check(deadline !== null, 'hash field TTL is not an integer')
    addField(hash, seen, entries[i], entries[i + 1], deadline, context, limits)
  }
  return hash
}

/**
 * Adds one field of a 7.4 payload with its deadline (0: none). A field whose deadline has passed
 * is left out, as Redis 7.4 does when it loads; the caller sees an empty hash when none is left.
 */
function addField(
  hash: HashValue, seen: Set<string>, field: string, value: string, deadline: number, context: LoadContext, limits: HashLimits,
): void {
  check(deadline >= 0 && deadline <= MAX_FIELD_DEADLINE, 'hash field TTL out of range')
  check(!seen.has(field), 'duplicate hash fields detected')
  seen.add(field)
  if (deadline !== 0 && deadline < context.now) return
  hash.set(field, value, limits)
  if (deadline !== 0) hash.setDeadline(field, deadline)
}

/** RDB_TYPE_HASH_METADATA, the form Redis 7.4 writes for a hash table with field TTLs. */
function writeMetadataHash(hash: HashValue, writer: RdbWriter): { type: number; version: number } {
  const earliest = hash.nextDeadline()!
  writer.millis(BigInt(earliest))
  writer.length(hash.size)
  hash.forEach((field, value) => {
    const deadline = hash.deadlineOf(field)
    writer.length(deadline === undefined ? 0 : deadline - earliest + 1)
    writer.string(field)
    writer.string(value)
  })
  return { type: RdbType.HASH_METADATA, version: RDB_VERSION_7_4 }
}
