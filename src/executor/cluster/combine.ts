/**
 * How the replies of the nodes a command went to become one reply: the `response_policy` tips
 * of the command table (agg_sum, all_succeeded …), the per-slot parts of a split multi-key
 * command, and INFO's keyspace summed over the masters.
 *
 */

import { OK, ReplyError, type Reply } from '../../reply.js'
import { asBuffer } from '../../resp/protocol.js'
import type { Combine } from './route.js'

function firstError(replies: readonly Reply[]): ReplyError | undefined {
  for (const reply of replies) if (reply instanceof ReplyError) return reply
  return undefined
}

function add(a: number | bigint, b: number | bigint): number | bigint {
  if (typeof a === 'number' && typeof b === 'number') {
    const sum = a + b
    if (Number.isSafeInteger(sum)) return sum
  }
  const big = BigInt(a) + BigInt(b)
  return big >= BigInt(Number.MIN_SAFE_INTEGER) && big <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(big) : big
}

function isInteger(reply: Reply): reply is number | bigint {
  return typeof reply === 'number' || typeof reply === 'bigint'
}

/** Element by element (SCRIPT EXISTS' arrays of 0/1), or the integers themselves. */
function logical(replies: readonly Reply[], and: boolean): Reply {
  const first = replies[0]
  if (Array.isArray(first)) {
    return (first as readonly Reply[]).map((_, i) => {
      const values = replies.map((reply) => (Array.isArray(reply) ? Number(reply[i] ?? 0) : 0))
      return (and ? values.every((v) => v !== 0) : values.some((v) => v !== 0)) ? 1 : 0
    })
  }
  const values = replies.map((reply) => (isInteger(reply) ? Number(reply) : 0))
  return (and ? values.every((v) => v !== 0) : values.some((v) => v !== 0)) ? 1 : 0
}

/** One reply from the replies of every node a command went to. */
export function combineReplies(policy: Combine, replies: readonly Reply[]): Reply {
  if (replies.length === 0) return policy === 'concat' ? [] : OK
  if (policy === 'one_succeeded') return replies.find((reply) => !(reply instanceof ReplyError)) ?? replies[0]
  const error = firstError(replies)
  if (error !== undefined) return error
  switch (policy) {
    case 'all_succeeded':
      return replies[0]
    case 'agg_sum':
      return replies.every(isInteger) ? replies.reduce<number | bigint>((sum, reply) => add(sum, reply as number | bigint), 0) : replies[0]
    case 'agg_min':
    case 'agg_max': {
      if (!replies.every(isInteger)) return replies[0]
      const pick = (a: number | bigint, b: number | bigint): number | bigint => ((policy === 'agg_min' ? b < a : b > a) ? b : a)
      return (replies as readonly (number | bigint)[]).reduce(pick)
    }
    case 'agg_logical_and':
      return logical(replies, true)
    case 'agg_logical_or':
      return logical(replies, false)
    case 'concat':
      return replies.every(Array.isArray) ? (replies as readonly (readonly Reply[])[]).flat() : replies[0]
  }
}

/** MGET's parts: each part's values go back to the positions of its keys. */
export function combineMget(keyCount: number, parts: readonly { readonly keys: readonly number[]; readonly reply: Reply }[]): Reply {
  const values: Reply[] = new Array<Reply>(keyCount).fill(null)
  for (const part of parts) {
    if (part.reply instanceof ReplyError) return part.reply
    if (!Array.isArray(part.reply)) return new ReplyError('ERR unexpected MGET reply from a cluster node')
    part.keys.forEach((key, i) => (values[key] = (part.reply as readonly Reply[])[i] ?? null))
  }
  return values
}

/**
 * INFO's text with its `# Keyspace` section summed over every master's (`db0:keys=…,expires=…,
 * avg_ttl=…`: keys and expires added, avg_ttl weighted by expires). The other sections are the
 * first master's.
 */
export function combineInfo(replies: readonly Reply[]): Reply {
  const error = firstError(replies)
  if (error !== undefined) return error
  const texts = replies.map((reply) => (reply instanceof Uint8Array ? asBuffer(reply).toString('utf8') : ''))
  const first = texts[0] ?? ''
  const start = first.indexOf('# Keyspace\r\n')
  if (start === -1) return replies[0]
  const totals = new Map<string, { keys: number; expires: number; ttl: number }>()
  for (const text of texts) {
    for (const match of text.matchAll(/^(db\d+):keys=(\d+),expires=(\d+),avg_ttl=(\d+)/gm)) {
      const entry = totals.get(match[1]) ?? { keys: 0, expires: 0, ttl: 0 }
      entry.keys += Number(match[2])
      entry.expires += Number(match[3])
      entry.ttl += Number(match[4]) * Number(match[3])
      totals.set(match[1], entry)
    }
  }
  const header = start + '# Keyspace\r\n'.length
  const next = first.indexOf('\r\n#', header)
  const end = next === -1 ? first.length : next + 2
  const lines = [...totals]
    .sort(([a], [b]) => Number(a.slice(2)) - Number(b.slice(2)))
    .map(([db, t]) => `${db}:keys=${t.keys},expires=${t.expires},avg_ttl=${t.expires === 0 ? 0 : Math.round(t.ttl / t.expires)}\r\n`)
  const section = lines.join('') + (next === -1 ? '' : '\r\n')
  return Buffer.from(first.slice(0, header) + section + first.slice(end), 'utf8')
}
