/**
 * Following a shard subscription when its slot leaves the node, against a stand-in cluster: the
 * slot map may still name the old node for a while after its `sunsubscribe` (a refresh read
 * before the move). After a failover the old node is a replica of the new master and Redis lets it
 * take SSUBSCRIBE for those slots, so subscribing there would be accepted and stay off the master
 * (the live-cluster case is in shard-pubsub.test.ts).
 */
import { describe, expect, test } from 'vitest'
import type { PubSubEvent } from '../../../src/executor/executor.js'
import { subscribeShards, type ShardHost } from '../../../src/executor/cluster/shard-subscribe.js'
import type { SocketExecutor } from '../../../src/executor/socket/socket-executor.js'

/** A cluster of nodes 'A' and 'B' whose slot map lags `stale` refreshes behind the real owner. */
function standIn(owner: 'A' | 'B') {
  const state = { owner, mapSays: owner as string, stale: 0, recovers: 0, subscribedAt: [] as string[] }
  const leave: Record<string, () => void> = {}
  const host: ShardHost = {
    masterOf: () => state.mapSays,
    executor: (node) =>
      ({
        subscribe: (spec: { names: readonly string[] }, onEvent: (event: PubSubEvent) => void, signal: AbortSignal) => {
          state.subscribedAt.push(node)
          for (const [i, name] of spec.names.entries()) onEvent({ type: 'ssubscribe', channel: Buffer.from(name), count: i + 1 })
          leave[node] = () => onEvent({ type: 'sunsubscribe', channel: Buffer.from(spec.names[0]), count: 0 })
          return new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }))
        },
      }) as unknown as SocketExecutor,
    moved: () => {},
    recover: async () => {
      state.recovers++
      if (state.stale > 0) state.stale--
      else state.mapSays = state.owner
    },
    retryWindow: 10_000,
    maxRedirections: 5,
    closed: false,
  }
  return { state, host, leave }
}

async function until(what: string, check: () => boolean): Promise<void> {
  for (let i = 0; i < 1000 && !check(); i++) await new Promise((resolve) => setImmediate(resolve))
  if (!check()) throw new Error(`never: ${what}`)
}

describe('a shard subscription whose slot leaves its node', () => {
  test('waits for the slot map to stop naming the node that left, then subscribes at the new master; the caller sees one confirmation', async () => {
    const { state, host, leave } = standIn('A')
    const events: string[] = []
    const abort = new AbortController()
    const done = subscribeShards(host, ['news'], (event) => events.push(event.type), abort.signal)
    await until('the first subscription', () => state.subscribedAt.length === 1)
    state.owner = 'B'
    state.stale = 2 // the next two refreshes still read the old map
    leave.A()
    await until('the subscription to be made again', () => state.subscribedAt.length === 2)
    expect(state.subscribedAt).toEqual(['A', 'B'])
    expect(state.recovers).toBe(3)
    expect(events).toEqual(['ssubscribe'])
    abort.abort()
    await done
  })

  test('a map that keeps naming the same node (the slot came back) is trusted after five refreshes', async () => {
    const { state, host, leave } = standIn('A')
    const abort = new AbortController()
    const done = subscribeShards(host, ['news'], () => {}, abort.signal)
    await until('the first subscription', () => state.subscribedAt.length === 1)
    leave.A()
    await until('the subscription to be made again', () => state.subscribedAt.length === 2)
    expect(state.subscribedAt).toEqual(['A', 'A'])
    expect(state.recovers).toBe(1 + 5)
    abort.abort()
    await done
  })
})
