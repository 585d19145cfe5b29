/**
 * A keyspace as a comparable object, for persistence tests: every key of the databases with its
 * type, its value and whether it has a TTL. `exact` compares values by their DUMP payload (one
 * engine against itself); `logical` by their contents (restis against redis-server, whose
 * encodings of the same contents may differ). Streams compare by XINFO STREAM FULL without the
 * consumers' seen/active times, which are when the server last saw the consumer (after a load:
 * the load), not data, and without the groups' entries-read (see MASKED).
 */
import type { Executor } from '../../src/executor/executor.js'
import type { Command, Reply } from '../../src/reply.js'

export type Comparison = 'exact' | 'logical'

const text = (reply: Reply): unknown => (Buffer.isBuffer(reply) ? reply.toString('latin1') : Array.isArray(reply) ? reply.map(text) : reply)

/**
 * After an AOF load a group read by XREADGROUP has `entries-read` nil: Redis 7.0 logs the read as
 * XCLAIM … LASTID, which does not carry the counter (redis-server 7.0.15 reloads it as nil too).
 */
const MASKED = new Set(['seen-time', 'active-time', 'entries-read'])

function withoutSeenTimes(reply: unknown): unknown {
  if (!Array.isArray(reply)) return reply
  return reply.map((item, i) => (MASKED.has(reply[i - 1] as string) ? 'any' : withoutSeenTimes(item)))
}

/** What the contents of a key of `type` read as, in an order that does not depend on encodings. */
function contentsCommand(type: string, key: string): Command {
  switch (type) {
    case 'string':
      return ['GET', key]
    case 'list':
      return ['LRANGE', key, '0', '-1']
    case 'set':
      return ['SMEMBERS', key]
    case 'zset':
      return ['ZRANGE', key, '0', '-1', 'WITHSCORES']
    case 'hash':
      return ['HGETALL', key]
    default:
      return ['DUMP', key]
  }
}

async function valueOf(executor: Executor, db: number, key: string, type: string, comparison: Comparison): Promise<unknown> {
  if (type === 'stream') return withoutSeenTimes(text(await executor.exec(['XINFO', 'STREAM', key, 'FULL'], { db })))
  if (comparison === 'exact') return text(await executor.exec(['DUMP', key], { db }))
  const value = text(await executor.exec(contentsCommand(type, key), { db }))
  if (type === 'set') return [...(value as string[])].sort()
  if (type === 'hash') {
    const pairs = value as string[]
    const entries: string[] = []
    for (let i = 0; i < pairs.length; i += 2) entries.push(`${pairs[i]}=${pairs[i + 1]}`)
    return entries.sort()
  }
  return value
}

/** Every key of databases 0..`databases`-1 as `db:key` → [type, value, 'ttl' | -1]. */
export async function keyspaceOf(executor: Executor, comparison: Comparison, databases = 16): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {}
  for (let db = 0; db < databases; db++) {
    const keys = (text(await executor.exec(['KEYS', '*'], { db })) as string[]).sort()
    for (const key of keys) {
      const [type, pttl] = (await executor.pipeline([['TYPE', key], ['PTTL', key]], { db })).map(text)
      out[`${db}:${key}`] = [String(type), await valueOf(executor, db, key, String(type), comparison), (pttl as number) > 0 ? 'ttl' : pttl]
    }
  }
  return out
}
