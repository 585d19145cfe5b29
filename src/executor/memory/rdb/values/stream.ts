import type { ValueCodec } from '../codec.js'
import { isInstance } from '../codec.js'
import { RDB_VERSION_7_0, RdbType } from '../constants.js'
import { readListpack, writeListpack } from '../listpack.js'
import { check, type RdbReader } from '../reader.js'
import type { RdbWriter } from '../writer.js'
import { readInt64 } from '../../lib/numbers.js'
import { StreamEntry, StreamValue } from '../../types/stream.js'
import { hasSameFields } from '../../types/stream-listpack.js'
import { Consumer, ConsumerGroup, ENTRIES_READ_UNKNOWN, sortedByName, type PendingEntry } from '../../types/stream-group.js'
import { compareIds, exact, MIN_ID, type StreamId, type U64 } from '../../types/stream-id.js'

/**
 * Streams. Redis 7.0 writes RDB_TYPE_STREAM_LISTPACKS_2 and loads the 5.0 form
 * (RDB_TYPE_STREAM_LISTPACKS, without first ID, deletion watermark, entries-added and group
 * read counters, which it derives); Redis 7.2's RDB_TYPE_STREAM_LISTPACKS_3 adds each
 * consumer's active time, read and dropped here. The engine writes RDB_TYPE_STREAM_LISTPACKS_2.
 *
 * Layout: the node count; per node its master ID (16 bytes, big-endian ms and seq: the radix-tree
 * key) and its listpack; the length; the last ID; (v2) the first ID, the highest deleted ID and
 * entries-added; the groups, each with its name, last delivered ID, (v2) entries-read, its PEL
 * (raw ID, delivery time, delivery count) and its consumers (name, seen time, (v3) active time,
 * the raw IDs of their PEL).
 *
 * A node's listpack (`t_stream.c`): a master entry `count, deleted, field count, fields…, 0`,
 * then per entry `flags, ms delta, seq delta, [field count, field, value…] | [value…], lp-count`,
 * the short form when the entry has exactly the master's fields (flag SAMEFIELDS, 2); flag
 * DELETED (1) marks a tombstone; lp-count is the number of elements before it in the entry.
 */

const FLAG_DELETED = 1
const FLAG_SAME_FIELDS = 2
/** `SCG_INVALID_ENTRIES_READ` as saved: (uint64)-1. */
const UNKNOWN_READ_SAVED = (1n << 64n) - 1n

export const streamCodec: ValueCodec<StreamValue> = {
  types: [RdbType.STREAM_LISTPACKS, RdbType.STREAM_LISTPACKS_2, RdbType.STREAM_LISTPACKS_3],
  accepts: isInstance(StreamValue),
  decode: (type, reader) => readStream(type, reader),
  encode(stream, writer) {
    writeStream(stream, writer)
    return { type: RdbType.STREAM_LISTPACKS_2, version: RDB_VERSION_7_0 }
  },
}

// ---- reading ----

interface LoadedNode {
  readonly master: StreamId
  readonly masterFields: string[]
  readonly entries: StreamEntry[]
}

function readStream(type: number, reader: RdbReader): StreamValue {
  const stream = new StreamValue()
  const nodeCount = reader.length()
  const nodes: LoadedNode[] = []
  for (let i = 0; i < nodeCount; i++) {
    const key = reader.string()
    check(key.length === 16, 'stream node key is not the size of a stream ID')
    nodes.push(readNode(rawId(key, 0), reader.string()))
  }
  // The radix tree orders nodes by key whatever the order of the payload.
  nodes.sort((a, b) => compareIds(a.master, b.master))
  let live = 0
  let previous: StreamId | undefined
  for (const node of nodes) {
    check(previous === undefined || compareIds(previous, node.master) < 0, 'listpack re-added with existing key')
    for (const entry of node.entries) {
      check(previous === undefined || compareIds(previous, entry) < 0, 'stream entries out of order')
      previous = entry
      if (!entry.deleted) live++
    }
    stream.restoreNode(node.master, node.masterFields, node.entries)
  }

  // The engine's reads rely on the count: a payload contradicting its own entries is refused.
  check(reader.length64() === BigInt(live), 'stream length does not match its entries')
  stream.length = live
  stream.lastId = readId(reader)
  if (type === RdbType.STREAM_LISTPACKS) {
    stream.maxDeletedId = MIN_ID
    stream.entriesAdded = stream.length
    stream.firstId = firstLiveId(nodes)
  } else {
    stream.firstId = readId(reader)
    stream.maxDeletedId = readId(reader)
    stream.entriesAdded = u64(reader.length64())
  }

  const groupCount = reader.length()
  for (let i = 0; i < groupCount; i++) readGroup(type, reader, stream)
  return stream
}

/** A node's listpack: the master entry, then its entries (tombstones included). */
function readNode(master: StreamId, blob: string): LoadedNode {
  const elements = readListpack(blob)
  check(elements.length > 0, 'empty listpack inside stream')
  let at = 0
  const next = (): string => {
    check(at < elements.length, 'stream listpack entry truncated')
    return elements[at++]
  }
  const count = integer(next())
  const deleted = integer(next())
  const fieldCount = integer(next())
  check(fieldCount >= 0n, 'negative stream field count')
  const masterFields: string[] = []
  for (let i = 0n; i < fieldCount; i++) masterFields.push(next())
  check(next() === '0', 'stream master entry not terminated')

  const entries: StreamEntry[] = []
  let tombstones = 0n
  while (at < elements.length) {
    const flags = integer(next())
    const id = { ms: wrap(BigInt(master.ms) + integer(next())), seq: wrap(BigInt(master.seq) + integer(next())) }
    const pairs: string[] = []
    let elementsBefore: bigint
    if ((flags & BigInt(FLAG_SAME_FIELDS)) !== 0n) {
      for (const field of masterFields) pairs.push(field, next())
      elementsBefore = BigInt(masterFields.length) + 3n
    } else {
      const pairCount = integer(next())
      check(pairCount >= 0n, 'negative stream field count')
      for (let i = 0n; i < pairCount; i++) pairs.push(next(), next())
      elementsBefore = 2n * pairCount + 4n
    }
    check(integer(next()) === elementsBefore, 'stream entry lp-count mismatch')
    const entry = new StreamEntry(id.ms, id.seq, pairs)
    if ((flags & BigInt(FLAG_DELETED)) !== 0n) {
      entry.deleted = true
      tombstones++
    }
    check(compareIds(entry, master) >= 0, 'stream entry before its node master')
    entries.push(entry)
  }
  check(BigInt(entries.length) - tombstones === count && tombstones === deleted, 'stream node counters mismatch')
  return { master, masterFields, entries }
}

function readGroup(type: number, reader: RdbReader, stream: StreamValue): void {
  const name = reader.string()
  const lastId = readId(reader)
  let entriesRead: U64
  if (type === RdbType.STREAM_LISTPACKS) entriesRead = stream.estimateEntriesRead(lastId)
  else {
    const saved = reader.length64()
    entriesRead = saved === UNKNOWN_READ_SAVED ? ENTRIES_READ_UNKNOWN : u64(saved)
  }
  check(!stream.groups.has(name), 'duplicated consumer group name')
  const group = new ConsumerGroup(name, lastId, entriesRead)
  stream.groups.set(name, group)

  const pendingCount = reader.length()
  for (let i = 0; i < pendingCount; i++) {
    const id = rawId(reader.bytes(16), 0)
    check(group.pending.get(id) === undefined, 'duplicated global PEL entry')
    const deliveryTime = Number(reader.millis())
    const deliveryCount = u64(reader.length64())
    group.pending.set({ id, consumer: null, deliveryTime, deliveryCount })
  }

  const consumerCount = reader.length()
  for (let i = 0; i < consumerCount; i++) {
    const consumerName = reader.string()
    check(!group.consumers.has(consumerName), 'duplicate stream consumer detected')
    const consumer = new Consumer(consumerName, Number(reader.millis()))
    // Redis 7.2's active time: the engine keeps one activity time, the seen time.
    if (type === RdbType.STREAM_LISTPACKS_3) reader.millis()
    group.consumers.set(consumerName, consumer)
    const owned = reader.length()
    for (let j = 0; j < owned; j++) {
      const id = rawId(reader.bytes(16), 0)
      const entry = group.pending.get(id)
      check(entry !== undefined, 'consumer entry not found in group global PEL')
      check(consumer.pending.get(id) === undefined, 'duplicated consumer PEL entry')
      group.assign(entry, consumer)
    }
  }
}

/** The first live entry's ID, 0-0 when none (`streamGetEdgeID` for RDB_TYPE_STREAM_LISTPACKS). */
function firstLiveId(nodes: readonly LoadedNode[]): StreamId {
  for (const node of nodes) for (const entry of node.entries) if (!entry.deleted) return { ms: entry.ms, seq: entry.seq }
  return MIN_ID
}

function readId(reader: RdbReader): StreamId {
  return { ms: u64(reader.length64()), seq: u64(reader.length64()) }
}

/** A 128-bit big-endian ID (radix-tree keys and PEL entries) at `pos` of `bytes`. */
function rawId(bytes: string, pos: number): StreamId {
  let ms = 0n
  let seq = 0n
  for (let i = 0; i < 8; i++) ms = (ms << 8n) | BigInt(bytes.charCodeAt(pos + i))
  for (let i = 8; i < 16; i++) seq = (seq << 8n) | BigInt(bytes.charCodeAt(pos + i))
  return { ms: exact(ms), seq: exact(seq) }
}

function integer(text: string): bigint {
  const value = readInt64(text)
  check(value !== null, 'stream listpack element is not an integer')
  return value
}

/** A uint64 sum, wrapped as C's unsigned arithmetic does. */
function wrap(value: bigint): U64 {
  return exact(BigInt.asUintN(64, value))
}

function u64(value: bigint): U64 {
  return exact(value)
}

// ---- writing ----

function writeStream(stream: StreamValue, writer: RdbWriter): void {
  const nodes = stream.nodes.filter((node) => node.entries.length > 0)
  writer.length(nodes.length)
  for (const node of nodes) {
    writer.string(rawIdBytes(node.master))
    const elements: string[] = [String(node.live), String(node.tombstones), String(node.masterFields.length), ...node.masterFields, '0']
    for (const entry of node.entries) {
      const sameFields = hasSameFields(entry.fields, node.masterFields)
      const flags = (entry.deleted ? FLAG_DELETED : 0) | (sameFields ? FLAG_SAME_FIELDS : 0)
      elements.push(String(flags), delta(entry.ms, node.master.ms), delta(entry.seq, node.master.seq))
      const pairCount = entry.fields.length / 2
      if (sameFields) {
        for (let i = 1; i < entry.fields.length; i += 2) elements.push(entry.fields[i])
        elements.push(String(pairCount + 3))
      } else {
        elements.push(String(pairCount), ...entry.fields, String(2 * pairCount + 4))
      }
    }
    writer.string(writeListpack(elements))
  }
  writer.length(stream.length)
  writeId(writer, stream.lastId)
  writeId(writer, stream.firstId)
  writeId(writer, stream.maxDeletedId)
  writer.length(stream.entriesAdded)

  const groups = sortedByName(stream.groups)
  writer.length(groups.length)
  for (const group of groups) {
    writer.string(group.name)
    writeId(writer, group.lastId)
    writer.length(group.entriesRead === ENTRIES_READ_UNKNOWN ? UNKNOWN_READ_SAVED : group.entriesRead)
    const pending = group.pending.values()
    writer.length(pending.length)
    for (const entry of pending) {
      writer.raw(rawIdBytes(entry.id))
      writer.millis(BigInt(entry.deliveryTime))
      writer.length(entry.deliveryCount)
    }
    const consumers = sortedByName(group.consumers)
    writer.length(consumers.length)
    for (const consumer of consumers) {
      writer.string(consumer.name)
      writer.millis(BigInt(consumer.seenTime))
      const owned: PendingEntry[] = consumer.pending.values()
      writer.length(owned.length)
      for (const entry of owned) writer.raw(rawIdBytes(entry.id))
    }
  }
}

function writeId(writer: RdbWriter, id: StreamId): void {
  writer.length(id.ms)
  writer.length(id.seq)
}

/** `value - base` as `lpAppendInteger(int64_t)` stores an ID delta. */
function delta(value: U64, base: U64): string {
  return String(BigInt.asIntN(64, BigInt(value) - BigInt(base)))
}

function rawIdBytes(id: StreamId): string {
  const out: number[] = []
  for (const part of [BigInt(id.ms), BigInt(id.seq)]) for (let shift = 56n; shift >= 0n; shift -= 8n) out.push(Number((part >> shift) & 0xffn))
  return String.fromCharCode(...out)
}
