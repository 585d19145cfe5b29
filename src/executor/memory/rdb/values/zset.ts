import type { ValueCodec } from '../codec.js'
import { isInstance, type LoadContext } from '../codec.js'
import { RDB_VERSION_7_0, RdbType } from '../constants.js'
import { readListpack } from '../listpack.js'
import { check, type RdbReader } from '../reader.js'
import { readZiplist } from '../ziplist.js'
import { readDouble } from '../../lib/numbers.js'
import { ZSetValue } from '../../types/zset.js'

/**
 * Sorted sets. Redis 7.0 writes RDB_TYPE_ZSET_LISTPACK (member, score pairs in order; scores as
 * integers or text) or RDB_TYPE_ZSET_2 (member, binary double, from the highest score down), and
 * loads the ziplist form and RDB_TYPE_ZSET (scores as text) of older versions. The engine writes
 * RDB_TYPE_ZSET_2, as Redis does for skip lists.
 *
 * Encoding on load follows `rdbLoadObject`: a set that came as a skip list becomes a listpack
 * when it fits both `zset-max-listpack-*` limits (as the *STORE results do); one that came
 * compact becomes a skip list only when it has too many members.
 */
export const zsetCodec: ValueCodec<ZSetValue> = {
  types: [RdbType.ZSET, RdbType.ZSET_2, RdbType.ZSET_ZIPLIST, RdbType.ZSET_LISTPACK],
  accepts: isInstance(ZSetValue),
  decode(type, reader, context) {
    if (type === RdbType.ZSET || type === RdbType.ZSET_2) return readSkiplist(type, reader, context)
    const entries = type === RdbType.ZSET_LISTPACK ? readListpack(reader.string()) : readZiplist(reader.string())
    return fromCompact(entries, context)
  },
  encode(zset, writer) {
    const entries = zset.entries()
    writer.length(entries.length)
    for (let i = entries.length - 1; i >= 0; i--) {
      writer.string(entries[i][0])
      writer.binaryDouble(entries[i][1])
    }
    return { type: RdbType.ZSET_2, version: RDB_VERSION_7_0 }
  },
}

/** RDB_TYPE_ZSET_2 / RDB_TYPE_ZSET: a count, then member strings each with its score. */
function readSkiplist(type: number, reader: RdbReader, context: LoadContext): ZSetValue {
  const count = reader.length()
  check(count > 0, 'empty sorted set')
  const seen = new Set<string>()
  const entries: [string, number][] = []
  for (let i = 0; i < count; i++) {
    const member = reader.string()
    const score = type === RdbType.ZSET_2 ? reader.binaryDouble() : reader.textDouble()
    check(!Number.isNaN(score), 'sorted set with a NaN score')
    check(!seen.has(member), 'duplicate sorted set members detected')
    seen.add(member)
    entries.push([member, score])
  }
  return ZSetValue.fromResult(entries, context.zset)
}

/** A listpack or ziplist of member, score pairs; only the member count is checked against the limits. */
function fromCompact(entries: readonly string[], context: LoadContext): ZSetValue {
  check(entries.length > 0, 'empty sorted set')
  check(entries.length % 2 === 0, 'sorted set with an odd number of entries')
  const zset = new ZSetValue('listpack')
  const limits = { entries: context.zset.entries, value: Infinity }
  for (let i = 0; i < entries.length; i += 2) {
    const score = readDouble(entries[i + 1])
    check(score !== null && !Number.isNaN(score), 'unreadable sorted set score')
    check(!zset.has(entries[i]), 'duplicate sorted set members detected')
    zset.add(entries[i], score, limits)
  }
  return zset
}
