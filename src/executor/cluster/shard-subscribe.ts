/**
 * Sharded pub/sub on a cluster: shard channels live on the master serving their slot (Redis 7:
 * SSUBSCRIBE and SPUBLISH are routed by the channel's slot, and a node answers MOVED for a slot it
 * does not serve). A subscription follows its slot: when the slot leaves the node (a resharding
 * or a failover), Redis tells the subscriber with a `sunsubscribe` of its own; the subscription
 * is then made again on the slot's new master, and the caller never sees the move. Messages
 * published while it moves are not delivered (pub/sub has no history).
 */

import type { Arg } from '../../reply.js'
import { asBuffer } from '../../resp/protocol.js'
import { BackendUnavailableError, type CallContext, type PubSubEvent } from '../executor.js'
import { ShardSubscriptionRefusedError } from '../socket/streams.js'
import type { SocketExecutor } from '../socket/socket-executor.js'
import { redirectOf } from './redirect.js'
import { keySlot } from './slot.js'
import type { NodeAddress } from './slot-map.js'

/**
 * Refreshes of the slot map a subscription waits for while the map still names the node that
 * just gave the slot up, before it subscribes there anyway (backoffs of 10 to 160 ms: about 0.3 s).
 */
const STALE_REFRESHES = 5

/** What a shard subscription needs of the cluster executor. */
export interface ShardHost {
  /** The master serving `slot` as the slot map says, or undefined when none is known. */
  masterOf(slot: number): NodeAddress | undefined
  /** The executor talking to `node`. */
  executor(node: NodeAddress): SocketExecutor
  /** A MOVED said `slot` is served by `node` now. */
  moved(slot: number, node: NodeAddress): void
  /** Waits the backoff for `attempt`, then refreshes the topology. */
  recover(attempt: number): Promise<void>
  /** How long a lost subscription may take to be made again, in ms. */
  readonly retryWindow: number
  readonly maxRedirections: number
  readonly closed: boolean
}

/** Runs streams under one signal: the first to fail ends them all and is the outcome. */
export async function together(signal: AbortSignal, start: (inner: AbortSignal) => Promise<void>[]): Promise<void> {
  const inner = new AbortController()
  const abort = (): void => inner.abort()
  signal.addEventListener('abort', abort, { once: true })
  if (signal.aborted) inner.abort()
  try {
    await Promise.all(start(inner.signal).map((done) => done.catch((error: unknown) => {
      inner.abort()
      throw error
    })))
  } finally {
    signal.removeEventListener('abort', abort)
    inner.abort()
  }
}

/**
 * Subscribes shard channels `names` on the masters of their slots, one subscription per slot.
 * Confirmations come once per channel, counted over the whole call; moves are followed.
 */
export function subscribeShards(host: ShardHost, names: readonly Arg[], onEvent: (event: PubSubEvent) => void, signal: AbortSignal, context?: CallContext): Promise<void> {
  const bySlot = new Map<number, Arg[]>()
  for (const name of names) {
    const slot = keySlot(name)
    const group = bySlot.get(slot)
    if (group === undefined) bySlot.set(slot, [name])
    else group.push(name)
  }
  const confirmed = new Set<string>()
  const relay = (event: PubSubEvent): void => {
    if (event.type !== 'ssubscribe') return onEvent(event)
    const key = asBuffer(event.channel).toString('latin1')
    if (confirmed.has(key)) return // made again after a move: the caller was told once
    confirmed.add(key)
    onEvent({ ...event, count: confirmed.size })
  }
  return together(signal, (inner) => [...bySlot].map(([slot, group]) => followSlot(host, slot, group, relay, inner, context)))
}

/**
 * Keeps the shard channels of one slot subscribed on the slot's master until `signal` aborts.
 * Rejects when no master takes them within the retry window, or when the subscription is
 * refused for a reason other than a redirection.
 */
async function followSlot(host: ShardHost, slot: number, names: readonly Arg[], onEvent: (event: PubSubEvent) => void, signal: AbortSignal, context: CallContext | undefined): Promise<void> {
  let lostSince: number | undefined
  let attempt = 0
  let redirections = 0
  // The node that said the slot left it, and how many refreshes since still name it.
  let leftNode: NodeAddress | undefined
  let staleRefreshes = 0
  while (!signal.aborted) {
    const node = host.masterOf(slot)
    if (node !== undefined && node === leftNode && staleRefreshes < STALE_REFRESHES) {
      // A slot map read before the move: after a failover the old master is a replica of the
      // slot's new master, and Redis lets a replica take SSUBSCRIBE for its master's slots, so
      // subscribing there would be accepted and stay off the master. Refresh until the map moves
      // on (or, after a few tries, trust it: the slot may really be back).
      staleRefreshes++
      await host.recover(attempt++)
      continue
    }
    let redirected = false
    if (node !== undefined) {
      const inner = new AbortController()
      const stop = (): void => inner.abort()
      signal.addEventListener('abort', stop, { once: true })
      const relay = (event: PubSubEvent): void => {
        if (event.type === 'sunsubscribe') {
          leftNode = node
          staleRefreshes = 0
          return inner.abort() // the slot left the node: follow it
        }
        if (event.type === 'ssubscribe') {
          lostSince = undefined
          attempt = 0
          redirections = 0
          leftNode = undefined
        }
        onEvent(event)
      }
      try {
        await host.executor(node).subscribe({ kind: 'shard', names }, relay, inner.signal, context)
      } catch (error) {
        if (signal.aborted) return
        redirected = followRedirect(host, error, ++redirections)
      } finally {
        signal.removeEventListener('abort', stop)
      }
      if (signal.aborted) return
    }
    lostSince ??= Date.now()
    if (Date.now() - lostSince >= host.retryWindow) {
      throw new BackendUnavailableError(`cluster unavailable: no master took the shard channels of slot ${slot} within ${host.retryWindow} ms`)
    }
    if (!redirected) await host.recover(attempt++)
  }
}

/**
 * What a failed subscription means: true when a MOVED pointed at the slot's master (subscribe
 * there at once); false to wait and refresh (an unreachable node, CLUSTERDOWN, TRYAGAIN, too many
 * redirections); thrown when it cannot be followed (an ACL refusal, the executor closed).
 */
function followRedirect(host: ShardHost, error: unknown, redirections: number): boolean {
  if (host.closed || !(error instanceof BackendUnavailableError)) throw error
  if (!(error instanceof ShardSubscriptionRefusedError)) return false // the node went away
  const redirect = redirectOf(error.reply)
  if (redirect === undefined) throw error
  if (redirect.kind === 'moved' && redirections <= host.maxRedirections) {
    host.moved(redirect.slot, redirect.node)
    return true
  }
  return false
}
