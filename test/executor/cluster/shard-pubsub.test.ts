/**
 * Sharded pub/sub through the cluster executor on a real 6-node cluster (cluster-node-timeout
 * 2000 ms), with the RESP listener in front of it: SSUBSCRIBE lands on the master of the
 * channel's slot, SPUBLISH from any client (or straight at that node) reaches the subscriber,
 * and the subscription follows its slot through a resharding, a CLUSTER FAILOVER (the old
 * owner sends `sunsubscribe`; the executor subscribes again at the new one, the client sees
 * nothing of it) and the kill -9 of the owner (the connection drops; the executor subscribes at
 * the promoted replica).
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { ClusterExecutor } from '../../../src/executor/cluster/cluster-executor.js'
import { keySlot } from '../../../src/executor/cluster/slot.js'
import { serveResp, type RespServer } from '../../../src/adapters/resp-server.js'
import { liveSuiteName, redisServerSkipReason } from '../../support/redis-server.js'
import { startRedisCluster, waitFor, type RedisCluster } from '../../support/redis-cluster.js'
import { SocketExecutor } from '../../../src/executor/socket/socket-executor.js'
import { ShardSubscriptionRefusedError } from '../../../src/executor/socket/streams.js'
import { RawClient, show } from '../socket/support.js'

interface Master {
  readonly id: string
  readonly port: number
  readonly slots: readonly (readonly [number, number])[]
}

/** Masters serving slots as `node i` sees them (CLUSTER NODES). */
async function masters(cluster: RedisCluster): Promise<Master[]> {
  const nodes = await cluster.cli(cluster.running()[0], 'CLUSTER', 'NODES')
  return nodes.split('\n').map((line) => line.trim().split(' ')).filter((fields) => fields.length > 8 && /master/.test(fields[2]) && !/fail/.test(fields[2]))
    .map((fields) => ({
      id: fields[0],
      port: Number(fields[1].split('@')[0].split(':')[1]),
      slots: fields.slice(8).filter((range) => !range.startsWith('[')).map((range) => {
        const [low, high = low] = range.split('-')
        return [Number(low), Number(high)] as const
      }),
    }))
}

async function ownerOf(cluster: RedisCluster, slot: number): Promise<Master> {
  const owner = (await masters(cluster)).find((master) => master.slots.some(([low, high]) => slot >= low && slot <= high))
  if (owner === undefined) throw new Error(`no master serves slot ${slot}`)
  return owner
}

/** Subscribers of shard channel `channel` on the node at `port`. */
async function subscribersAt(cluster: RedisCluster, port: number, channel: string): Promise<number> {
  const reply = await cluster.cli(cluster.indexOf(port), 'PUBSUB', 'SHARDNUMSUB', channel)
  return Number(reply.trim().split('\n')[1])
}

/** A channel name whose slot is `slot`. */
function channelIn(slot: number): string {
  for (let i = 0; ; i++) if (keySlot(`news:${i}`) === slot) return `news:${i}`
}

describe.skipIf(redisServerSkipReason !== undefined)(liveSuiteName('sharded pub/sub on a 6-node cluster'), () => {
  let cluster: RedisCluster
  let executor: ClusterExecutor
  let listener: RespServer
  const clients: RawClient[] = []
  const connect = async (): Promise<RawClient> => {
    const client = await RawClient.connect(listener.address.port)
    clients.push(client)
    return client
  }

  beforeAll(async () => {
    cluster = await startRedisCluster({ nodeTimeout: 2000 })
    executor = new ClusterExecutor({ url: cluster.url(0), refreshInterval: 1000 })
    await executor.connect()
    listener = await serveResp(executor, { port: 0 })
  }, 60_000)
  afterAll(async () => {
    for (const client of clients) client.destroy()
    await listener?.close()
    await executor?.close()
    await cluster?.stop()
  })

  test('a socket executor at one node: a shard channel of another node is refused with MOVED, alone; the connection serves the others', async () => {
    const [mine, other] = await masters(cluster)
    const node = new SocketExecutor({ port: mine.port })
    const abort = new AbortController()
    try {
      const events: string[] = []
      const served = channelIn(mine.slots[0][0])
      const elsewhere = channelIn(other.slots[0][0])
      const confirmed = new Promise<void>((resolve, reject) => {
        node.subscribe({ kind: 'shard', names: [served] }, (event) => {
          events.push(event.type)
          if (event.type === 'ssubscribe') resolve()
        }, abort.signal).catch(reject)
      })
      const refused = node.subscribe({ kind: 'shard', names: [elsewhere] }, () => {}, abort.signal)
      await expect(refused).rejects.toThrow(ShardSubscriptionRefusedError)
      await expect(refused).rejects.toThrow(`MOVED ${keySlot(elsewhere)} 127.0.0.1:${other.port}`)
      await confirmed
      expect(await node.exec(['SPUBLISH', served, 'still here'])).toBe(1)
      await waitFor('the message', async () => events.includes('smessage'), 5_000, 10)
      expect(node.stats.subscriberConnections).toBe(1)
    } finally {
      abort.abort()
      await node.close()
    }
  })

  test('SSUBSCRIBE lands on the master of each channel\'s slot; SPUBLISH from a client or at the node reaches it', async () => {
    const all = await masters(cluster)
    // One channel on each master.
    const channels = all.map((master) => channelIn(master.slots[0][0]))
    const subscriber = await connect()
    const publisher = await connect()
    subscriber.write(`SSUBSCRIBE ${channels.join(' ')}\r\n`)
    expect((await subscriber.read(3)).map(show)).toEqual(channels.map((channel, i) => ['ssubscribe', channel, i + 1]))
    for (const [i, channel] of channels.entries()) {
      expect(await subscribersAt(cluster, all[i].port, channel)).toBe(1)
      expect(show(await publisher.call('SPUBLISH', channel, `to ${i}`))).toBe(1)
      expect(show(await subscriber.one())).toEqual(['smessage', channel, `to ${i}`])
    }
    // Published at the node itself, by a client that is not restis.
    await cluster.cli(cluster.indexOf(all[1].port), 'SPUBLISH', channels[1], 'direct')
    expect(show(await subscriber.one())).toEqual(['smessage', channels[1], 'direct'])
    // Shard channels are not channels: PUBLISH does not reach them.
    expect(show(await publisher.call('PUBLISH', channels[0], 'plain'))).toBe(0)
    expect(show(await subscriber.call('SUNSUBSCRIBE'))).toEqual(['sunsubscribe', expect.any(String), 2])
    expect((await subscriber.read(2)).map((frame) => (show(frame) as unknown[])[2])).toEqual([1, 0])
    await waitFor('the channels to be unsubscribed at the nodes', async () => (await Promise.all(channels.map((channel, i) => subscribersAt(cluster, all[i].port, channel)))).every((count) => count === 0), 5_000, 20)
  })

  test('a subscription follows its slot through a resharding and a CLUSTER FAILOVER', async () => {
    const [from, to] = await masters(cluster)
    // redis-cli reshard moves the source's lowest slot first: a channel in it moves.
    const slot = from.slots[0][0]
    const channel = channelIn(slot)
    // A second channel of the same slot: Redis drops both at once when the slot leaves.
    const sibling = `{${channel}}:too`
    const subscriber = await connect()
    const publisher = await connect()
    subscriber.write(`SSUBSCRIBE ${channel} ${sibling}\r\n`)
    expect((await subscriber.read(2)).map(show)).toEqual([['ssubscribe', channel, 1], ['ssubscribe', sibling, 2]])
    expect(await subscribersAt(cluster, from.port, channel)).toBe(1)
    // The executor's own API, both channels in one call.
    const direct: string[] = []
    const abort = new AbortController()
    const directDone = executor.subscribe({ kind: 'shard', names: [channel, sibling] }, (event) => direct.push(event.type), abort.signal)
    try {
      await waitFor('the direct confirmations', async () => direct.length === 2, 5_000, 10)

      await cluster.clusterCheck()
      await cluster.clusterCli('reshard', `127.0.0.1:${from.port}`, '--cluster-from', from.id, '--cluster-to', to.id, '--cluster-slots', '1', '--cluster-yes')
      expect((await ownerOf(cluster, slot)).port).toBe(to.port)
      await waitFor('the subscription to move to the new owner', async () => await subscribersAt(cluster, to.port, channel) === 1, 10_000, 20)
      expect(await subscribersAt(cluster, from.port, channel)).toBe(0)
      await waitFor('the sibling to move too', async () => await subscribersAt(cluster, to.port, sibling) === 1, 10_000, 20)
      expect(show(await publisher.call('SPUBLISH', channel, 'after reshard'))).toBe(2)
      expect(show(await subscriber.one())).toEqual(['smessage', channel, 'after reshard'])
      expect(show(await publisher.call('SPUBLISH', sibling, 'sibling'))).toBe(2)
      expect(show(await subscriber.one())).toEqual(['smessage', sibling, 'sibling'])

      // The new owner's replica takes over.
      const replicas = await cluster.cli(cluster.indexOf(to.port), 'CLUSTER', 'REPLICAS', to.id)
      const replicaPort = Number(/:(\d+)@/.exec(replicas)?.[1])
      expect((await cluster.cli(cluster.indexOf(replicaPort), 'CLUSTER', 'FAILOVER')).trim()).toBe('OK')
      await waitFor('the subscriptions to move to the promoted replica', async () => await subscribersAt(cluster, replicaPort, channel) === 1 && await subscribersAt(cluster, replicaPort, sibling) === 1, 15_000, 20)
      expect(show(await publisher.call('SPUBLISH', channel, 'after failover'))).toBe(2)
      expect(show(await subscriber.one())).toEqual(['smessage', channel, 'after failover'])
      // The client saw its confirmations and the messages, nothing of the moves; so did the direct caller.
      expect(show(await subscriber.call('PING'))).toEqual(['pong', ''])
      expect(direct).toEqual(['ssubscribe', 'ssubscribe', 'smessage', 'smessage', 'smessage'])
    } finally {
      // Ended here whatever happened above, so a failure is reported as itself and not as the
      // subscription rejecting, unhandled, when afterAll closes the executor.
      abort.abort()
      directDone.catch(() => {})
    }
    await directDone
    await cluster.waitHealthy(30_000, 3)
  }, 60_000)

  test('kill -9 of the master of a subscribed slot: the subscription is made again on its replica within node-timeout + 5 s', async () => {
    const [, , owner] = await masters(cluster)
    const slot = owner.slots[0][0]
    const channel = channelIn(slot)
    const subscriber = await connect()
    const publisher = await connect()
    expect(show(await subscriber.call('SSUBSCRIBE', channel))).toEqual(['ssubscribe', channel, 1])
    // After the previous test's failover the cluster may still be attaching this master's replica.
    let replicaPort = NaN
    await waitFor('the owner to list its replica', async () => {
      const replicas = await cluster.cli(cluster.indexOf(owner.port), 'CLUSTER', 'REPLICAS', owner.id)
      replicaPort = Number(/:(\d+)@/.exec(replicas)?.[1])
      return Number.isInteger(replicaPort)
    }, 30_000)
    const killedAt = Date.now()
    await cluster.kill(cluster.indexOf(owner.port))
    const bound = cluster.nodeTimeout + 5_000
    await waitFor('the subscription to be on the promoted replica', async () => await subscribersAt(cluster, replicaPort, channel) === 1, bound, 20)
    expect(Date.now() - killedAt).toBeLessThan(bound)
    expect(show(await publisher.call('SPUBLISH', channel, 'after kill'))).toBe(1)
    expect(show(await subscriber.one())).toEqual(['smessage', channel, 'after kill'])
    expect(subscriber.isClosed).toBe(false)
    await cluster.restart(cluster.indexOf(owner.port))
    await cluster.waitHealthy(30_000, 3)
  }, 60_000)
})
