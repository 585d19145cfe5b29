/**
 * A comparable description of a whole keyspace, read through any executor (the memory engine or
 * redis-server behind the socket executor): per database its size, per key its type, its
 * OBJECT ENCODING, its absolute deadline (PEXPIRETIME) and its content in a canonical order
 * (sets and hashes sorted, since a hash table's order depends on the server's hash seed), streams
 * with their groups, pending entries and consumers (XINFO STREAM FULL); then the function
 * libraries with their code. Two keyspaces are equal when their descriptions are.
 */
import type { Executor } from '../../src/executor/executor.js'
import type { Command, Reply } from '../../src/reply.js'
import { showReply } from '../differential/harness.js'

const text = (reply: Reply): string => (reply instanceof Uint8Array ? Buffer.from(reply).toString('latin1') : showReply(reply))

/** The reads that show a key's content, by TYPE. */
function contentReads(type: string, key: string): Command[] {
  switch (type) {
    case 'string':
      return [['GET', key]]
    case 'list':
      return [['LRANGE', key, '0', '-1']]
    case 'set':
      return [['SMEMBERS', key]]
    case 'hash':
      return [['HGETALL', key]]
    case 'zset':
      return [['ZRANGE', key, '0', '-1', 'WITHSCORES']]
    case 'stream':
      return [['XINFO', 'STREAM', key, 'FULL', 'COUNT', '0']]
    default:
      return []
  }
}

/** The content reply in canonical form: members sorted for sets, field-value pairs sorted for hashes. */
function canonical(type: string, reply: Reply): string {
  if (type === 'set') return JSON.stringify((reply as Uint8Array[]).map(text).sort())
  if (type === 'hash') {
    const flat = (reply as Uint8Array[]).map(text)
    const pairs: string[] = []
    for (let i = 0; i < flat.length; i += 2) pairs.push(`${JSON.stringify(flat[i])}=${JSON.stringify(flat[i + 1])}`)
    return pairs.sort().join(' ')
  }
  return showReply(reply)
}

export interface DescribeOptions {
  /** Databases to read (default 16). */
  readonly databases?: number
  /**
   * Include OBJECT ENCODING (default true). Leave it out to compare a live keyspace with a loaded
   * copy: encodings that only ever grow (a hash that once outgrew its listpack) start afresh on load.
   */
  readonly encoding?: boolean
}

/** One line per key, plus a size line per non-empty database, then one per function library. */
export async function describeKeyspace(executor: Executor, options: DescribeOptions = {}): Promise<string[]> {
  const databases = options.databases ?? 16
  const lines: string[] = []
  for (let db = 0; db < databases; db++) {
    const keys = ((await executor.exec(['KEYS', '*'], { db })) as Uint8Array[]).map(text).sort()
    if (keys.length === 0) continue
    lines.push(`db ${db}: ${keys.length} keys`)
    const heads = await executor.pipeline(keys.flatMap((key) => [['TYPE', key], ['OBJECT', 'ENCODING', key], ['PEXPIRETIME', key]]), { db })
    const types = keys.map((_, i) => String(heads[3 * i]))
    const reads = keys.map((key, i) => contentReads(types[i], key))
    const contents = await executor.pipeline(reads.flat(), { db })
    let at = 0
    keys.forEach((key, i) => {
      const content = reads[i].map(() => canonical(types[i], contents[at++])).join(' ')
      const encoding = options.encoding === false ? '' : ` ${showReply(heads[3 * i + 1])}`
      lines.push(`db ${db} ${JSON.stringify(key)} ${types[i]}${encoding} expire=${showReply(heads[3 * i + 2])} ${content}`)
    })
  }
  const libraries = (await executor.exec(['FUNCTION', 'LIST', 'WITHCODE'])) as Reply[]
  // Libraries in name order: Redis lists them in its dict's order.
  lines.push(...libraries.map((library) => `function ${showReply(library)}`).sort())
  return lines
}
