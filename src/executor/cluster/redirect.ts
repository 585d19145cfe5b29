/**
 * The replies by which a cluster node says a command belongs elsewhere or later, as the Redis
 * Cluster specification defines them: `MOVED <slot> <host:port>` (the slot lives there now),
 * `ASK <slot> <host:port>` (this one command, preceded by ASKING, goes there while the slot
 * migrates), `TRYAGAIN` (a multi-key command during a migration) and `CLUSTERDOWN` (the cluster
 * cannot serve, e.g. during a failover).
 *
 */

import { ReplyError, type Reply } from '../../reply.js'
import type { NodeAddress } from './slot-map.js'

export type Redirect =
  | { readonly kind: 'moved' | 'ask'; readonly slot: number; readonly node: NodeAddress }
  | { readonly kind: 'tryagain' | 'clusterdown' }

/** The redirection a reply carries, or undefined for any other reply. */
export function redirectOf(reply: Reply): Redirect | undefined {
  if (!(reply instanceof ReplyError)) return undefined
  const message = reply.message
  const first = message.charCodeAt(0)
  // Only errors starting M, A, T or C can be redirections: the common path returns at once.
  if (first !== 77 && first !== 65 && first !== 84 && first !== 67) return undefined
  if (message.startsWith('MOVED ') || message.startsWith('ASK ')) {
    const [word, slot, node] = message.split(' ')
    if (node === undefined || !/^\d+$/.test(slot)) return undefined
    return { kind: word === 'MOVED' ? 'moved' : 'ask', slot: Number(slot), node }
  }
  if (message.startsWith('TRYAGAIN')) return { kind: 'tryagain' }
  if (message.startsWith('CLUSTERDOWN')) return { kind: 'clusterdown' }
  return undefined
}

/** Backoff before the next attempt: 20 ms doubling to 500 ms, with jitter so callers spread out. */
export function backoffDelay(attempt: number): number {
  const delay = Math.min(500, 20 * 2 ** Math.min(attempt, 10))
  return delay / 2 + Math.random() * (delay / 2)
}

export function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}
