/**
 * Numbers of Redis's RDB format (`rdb.h`) that DUMP payloads use: object type bytes, length
 * encodings, string encodings and the format versions.
 */

/** The RDB version Redis 7.0 writes and the highest it reads. */
export const RDB_VERSION_7_0 = 10
/** Redis 7.4's RDB version: hashes with field TTLs (RDB_TYPE_HASH_METADATA …). */
export const RDB_VERSION_7_4 = 12
/**
 * The highest payload version RESTORE accepts. The engine implements Redis 7.4's hash field
 * TTLs, so it reads (and, for hashes with volatile fields, writes) 7.4's format; Redis 7.0
 * itself stops at {@link RDB_VERSION_7_0}.
 */
export const RDB_VERSION_READABLE = RDB_VERSION_7_4

/** Object type bytes (`RDB_TYPE_*`). */
export const RdbType = {
  STRING: 0,
  LIST: 1,
  SET: 2,
  /** Sorted set with scores as decimal text (RDB < 8). */
  ZSET: 3,
  HASH: 4,
  /** Sorted set with binary double scores. */
  ZSET_2: 5,
  MODULE: 6,
  MODULE_2: 7,
  HASH_ZIPMAP: 9,
  LIST_ZIPLIST: 10,
  SET_INTSET: 11,
  ZSET_ZIPLIST: 12,
  HASH_ZIPLIST: 13,
  /** Quicklist of ziplists (Redis 3.2 – 6.2). */
  LIST_QUICKLIST: 14,
  STREAM_LISTPACKS: 15,
  HASH_LISTPACK: 16,
  ZSET_LISTPACK: 17,
  /** Quicklist of listpack or plain nodes (Redis 7.0). */
  LIST_QUICKLIST_2: 18,
  STREAM_LISTPACKS_2: 19,
  /** Redis 7.2. */
  SET_LISTPACK: 20,
  /** Redis 7.2. */
  STREAM_LISTPACKS_3: 21,
  /** Redis 7.4 release candidates: hash with field TTLs, absolute deadlines. */
  HASH_METADATA_PRE_GA: 22,
  /** Redis 7.4 release candidates: listpack of field, value, TTL triplets. */
  HASH_LISTPACK_EX_PRE_GA: 23,
  /** Redis 7.4: hash with field TTLs relative to a minimum deadline written first. */
  HASH_METADATA: 24,
  /** Redis 7.4: listpack of field, value, TTL triplets after the minimum deadline. */
  HASH_LISTPACK_EX: 25,
} as const

/** Quicklist node containers in RDB_TYPE_LIST_QUICKLIST_2 (`quicklist.h`). */
export const QUICKLIST_NODE_PLAIN = 1
export const QUICKLIST_NODE_PACKED = 2

/** First byte of a length: the two top bits select the form (`RDB_6BITLEN` …). */
export const RDB_6BITLEN = 0
export const RDB_14BITLEN = 1
export const RDB_ENCVAL = 3
export const RDB_32BITLEN = 0x80
export const RDB_64BITLEN = 0x81

/** Special string encodings, after a length byte of the RDB_ENCVAL form. */
export const RDB_ENC_INT8 = 0
export const RDB_ENC_INT16 = 1
export const RDB_ENC_INT32 = 2
export const RDB_ENC_LZF = 3
