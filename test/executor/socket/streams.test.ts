import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { Reply } from '../../../src/reply.js'
import { BackendUnavailableError, type PubSubEvent } from '../../../src/executor/executor.js'
import { SocketExecutor } from '../../../src/executor/socket/socket-executor.js'
import { liveSuiteName, redisServerSkipReason, startRedisServer, type RedisServer } from '../../support/redis-server.js'
import { RestartableRedis, waitFor } from './support.js'

const text = (bytes: Reply): string => Buffer.from(bytes as Uint8Array).toString('utf8')

/** A PubSubEvent as `type,channel,…` text. */
function line(event: PubSubEvent): string {
  switch (event.type) {
    case 'subscribe':
    case 'psubscribe':
    case 'ssubscribe':
    case 'sunsubscribe':
      return `${event.type},${text(event.channel)},${event.count}`
    case 'message':
    case 'smessage':
      return `${event.type},${text(event.channel)},${text(event.message)}`
    case 'pmessage':
      return `pmessage,${text(event.pattern)},${text(event.channel)},${text(event.message)}`
  }
}

/** Server-side connections whose CLIENT LIST flags contain `flag` (P: pub/sub, O: monitor). */
async function serverConnections(executor: SocketExecutor, flag: string): Promise<number> {
  const list = text(await executor.exec(['CLIENT', 'LIST']))
  return list.split('\n').filter((row) => (/ flags=(\S+)/.exec(row)?.[1] ?? '').includes(flag)).length
}

describe.skipIf(redisServerSkipReason !== undefined)(liveSuiteName('socket executor pub/sub and MONITOR'), () => {
  let server: RedisServer
  let executor: SocketExecutor

  beforeAll(async () => {
    server = await startRedisServer()
    executor = new SocketExecutor({ url: server.url })
  })
  afterAll(async () => {
    await executor?.close()
    await server?.stop()
  })

  test('N subscribers to one channel share one server connection, and each gets every message once', async () => {
    const n = 50
    const aborts = Array.from({ length: n }, () => new AbortController())
    const events: string[][] = aborts.map(() => [])
    const done = aborts.map((abort, i) => executor.subscribe({ kind: 'channel', names: ['news'] }, (event) => events[i].push(line(event)), abort.signal))
    await waitFor(() => events.every((list) => list.length === 1), 'every confirmation')
    // Each subscriber's first event is its own confirmation, counting its own channels.
    for (const list of events) expect(list).toEqual(['subscribe,news,1'])
    expect(await serverConnections(executor, 'P')).toBe(1)
    expect(executor.stats.subscriberConnections).toBe(1)
    expect(executor.stats.subscribers).toBe(n)
    expect(await executor.exec(['PUBSUB', 'NUMSUB', 'news'])).toEqual([Buffer.from('news'), 1])

    // The server counts the shared connection once; PUBLISH answers every local stream, as the memory executor does.
    expect(await executor.exec(['PUBLISH', 'news', 'hello'])).toBe(n)
    await waitFor(() => events.every((list) => list.length === 2), 'every message')
    for (const list of events) expect(list).toEqual(['subscribe,news,1', 'message,news,hello'])

    // Half leave: the channel stays subscribed for the rest.
    for (const abort of aborts.slice(0, n / 2)) abort.abort()
    await Promise.all(done.slice(0, n / 2))
    expect(await executor.exec(['PUBLISH', 'news', 'again'])).toBe(n / 2)
    await waitFor(() => events.slice(n / 2).every((list) => list.length === 3), 'the second message')
    expect(events.slice(0, n / 2).every((list) => list.length === 2)).toBe(true)

    // All leave: unsubscribed and the shared connection is closed at once.
    for (const abort of aborts) abort.abort()
    await Promise.all(done)
    await waitFor(async () => (await serverConnections(executor, 'P')) === 0, 'the subscriber connection to close')
    expect(executor.stats.subscriberConnections).toBe(0)
  })

  test('shard subscribers share the subscriber connection; SPUBLISH counts every local stream; PUBLISH never reaches them', async () => {
    const n = 10
    const aborts = Array.from({ length: n }, () => new AbortController())
    const events: string[][] = aborts.map(() => [])
    const done = aborts.map((abort, i) => executor.subscribe({ kind: 'shard', names: ['orders', 'stock'] }, (event) => events[i].push(line(event)), abort.signal))
    const plain = new AbortController()
    const channelEvents: string[] = []
    const channel = executor.subscribe({ kind: 'channel', names: ['orders'] }, (event) => channelEvents.push(line(event)), plain.signal)
    await waitFor(() => events.every((list) => list.length === 2) && channelEvents.length === 1, 'every confirmation')
    for (const list of events) expect(list).toEqual(['ssubscribe,orders,1', 'ssubscribe,stock,2'])
    expect(await serverConnections(executor, 'P')).toBe(1)
    expect(await executor.exec(['PUBSUB', 'SHARDNUMSUB', 'orders', 'stock'])).toEqual([Buffer.from('orders'), 1, Buffer.from('stock'), 1])
    expect(await executor.exec(['SPUBLISH', 'orders', 'o1'])).toBe(n)
    expect(await executor.pipeline([['SPUBLISH', 'stock', 's1'], ['SPUBLISH', 'none', 'x'], ['PUBLISH', 'orders', 'c1']])).toEqual([n, 0, 1])
    expect(await executor.transaction([['SPUBLISH', 'orders', 'o2']])).toEqual([n])
    await waitFor(() => events.every((list) => list.length === 5) && channelEvents.length === 2, 'every message')
    for (const list of events) expect(list).toEqual(['ssubscribe,orders,1', 'ssubscribe,stock,2', 'smessage,orders,o1', 'smessage,stock,s1', 'smessage,orders,o2'])
    expect(channelEvents).toEqual(['subscribe,orders,1', 'message,orders,c1'])
    for (const abort of [...aborts, plain]) abort.abort()
    await Promise.all([...done, channel])
    await waitFor(async () => (await serverConnections(executor, 'P')) === 0, 'the subscriber connection to close')
    expect(await executor.exec(['PUBSUB', 'SHARDCHANNELS'])).toEqual([])
  })

  test('confirmations come in name order with a per-subscriber count; patterns get pmessage', async () => {
    const abort = new AbortController()
    const channels: string[] = []
    const patterns: string[] = []
    const a = executor.subscribe({ kind: 'channel', names: ['a', 'b', 'a'] }, (event) => channels.push(line(event)), abort.signal)
    const p = executor.subscribe({ kind: 'pattern', names: ['n*', 'x?'] }, (event) => patterns.push(line(event)), abort.signal)
    await waitFor(() => channels.length === 3 && patterns.length === 2, 'confirmations')
    expect(channels).toEqual(['subscribe,a,1', 'subscribe,b,2', 'subscribe,a,2'])
    expect(patterns).toEqual(['psubscribe,n*,1', 'psubscribe,x?,2'])
    await executor.exec(['PUBLISH', 'news', 'n'])
    await executor.exec(['PUBLISH', 'b', 'to-b'])
    await waitFor(() => channels.length === 4 && patterns.length === 3, 'messages')
    expect(channels[3]).toBe('message,b,to-b')
    expect(patterns[2]).toBe('pmessage,n*,news,n')
    expect(await serverConnections(executor, 'P')).toBe(1)
    // Counted per matching subscription, channels and patterns alike, in pipelines and transactions too.
    const other = new AbortController()
    const more = executor.subscribe({ kind: 'pattern', names: ['n*'] }, () => {}, other.signal)
    await waitFor(async () => (await executor.exec(['PUBLISH', 'news', 'count'])) === 2, 'the second pattern stream to count')
    expect(await executor.exec(['PUBLISH', 'b', 'count'])).toBe(1)
    expect(await executor.pipeline([['PUBLISH', 'news', 'p'], ['PUBLISH', 'a', 'p'], ['PUBLISH', 'zz', 'p']])).toEqual([2, 1, 0])
    expect(await executor.transaction([['PUBLISH', 'news', 't'], ['PUBLISH', 'zz', 't']])).toEqual([2, 0])
    other.abort()
    await more
    abort.abort()
    await Promise.all([a, p])
  })

  test('a subscriber joining a channel already subscribed is confirmed without another SUBSCRIBE and gets later messages', async () => {
    const first = new AbortController()
    const second = new AbortController()
    const one: string[] = []
    const two: string[] = []
    const p1 = executor.subscribe({ kind: 'channel', names: ['shared'] }, (event) => one.push(line(event)), first.signal)
    await waitFor(() => one.length === 1, 'first confirmation')
    const p2 = executor.subscribe({ kind: 'channel', names: ['other', 'shared'] }, (event) => two.push(line(event)), second.signal)
    await waitFor(() => two.length === 2, 'second confirmations')
    expect(two).toEqual(['subscribe,other,1', 'subscribe,shared,2'])
    await executor.exec(['PUBLISH', 'shared', 'both'])
    await waitFor(() => one.length === 2 && two.length === 3, 'messages')
    first.abort()
    second.abort()
    await Promise.all([p1, p2])
  })

  test('an already aborted signal resolves at once without connecting', async () => {
    const abort = new AbortController()
    abort.abort()
    await executor.subscribe({ kind: 'channel', names: ['x'] }, () => {}, abort.signal)
    await executor.monitor(() => {}, abort.signal)
    expect(executor.stats.subscriberConnections).toBe(0)
    expect(executor.stats.monitorConnections).toBe(0)
  })

  test('MONITOR listeners share one connection; each sees the commands; leaving closes it', async () => {
    const aborts = Array.from({ length: 5 }, () => new AbortController())
    const lines: string[][] = aborts.map(() => [])
    const done = aborts.map((abort, i) => executor.monitor((event) => lines[i].push(event.line), abort.signal))
    await waitFor(async () => {
      await executor.exec(['SET', 'monitored', '1'])
      return lines.every((list) => list.some((entry) => entry.includes('"SET" "monitored" "1"')))
    }, 'every listener to see SET')
    expect(lines[0][0]).toMatch(/^\d+\.\d{6} \[0 127\.0\.0\.1:\d+\] "SET" "monitored" "1"$/)
    expect(await serverConnections(executor, 'O')).toBe(1)
    expect(executor.stats.monitorConnections).toBe(1)
    for (const abort of aborts) abort.abort()
    await Promise.all(done)
    await waitFor(async () => (await serverConnections(executor, 'O')) === 0, 'the monitor connection to close')
  })
})

describe.skipIf(redisServerSkipReason !== undefined)(liveSuiteName('socket executor streams when the server dies'), () => {
  let redis: RestartableRedis
  let executor: SocketExecutor

  beforeAll(async () => {
    redis = await RestartableRedis.start()
    executor = new SocketExecutor({ url: redis.url })
  })
  afterAll(async () => {
    await executor?.close()
    await redis?.stop()
  })

  test('subscribers and monitors reject with BackendUnavailableError, and work again after a restart', async () => {
    const abort = new AbortController()
    const events: string[] = []
    const subscribed = executor.subscribe({ kind: 'channel', names: ['c'] }, (event) => events.push(line(event)), abort.signal)
    const monitored = executor.monitor(() => {}, abort.signal)
    await waitFor(() => events.length === 1 && executor.stats.monitorConnections === 1, 'the subscription and MONITOR')
    await redis.kill()
    await expect(subscribed).rejects.toBeInstanceOf(BackendUnavailableError)
    await expect(monitored).rejects.toBeInstanceOf(BackendUnavailableError)
    expect(executor.stats.subscriberConnections).toBe(0)

    // While down, a new subscription fails instead of hanging.
    await expect(executor.subscribe({ kind: 'channel', names: ['c'] }, () => {}, abort.signal)).rejects.toBeInstanceOf(BackendUnavailableError)

    await redis.startAgain()
    const again: string[] = []
    const second = new AbortController()
    const resubscribed = executor.subscribe({ kind: 'channel', names: ['c'] }, (event) => again.push(line(event)), second.signal)
    await waitFor(() => again.length === 1, 'the new confirmation')
    await waitFor(async () => (await executor.exec(['PUBLISH', 'c', 'back']).catch(() => 0)) === 1, 'PUBLISH to reach the subscriber')
    await waitFor(() => again.includes('message,c,back'), 'the message')
    second.abort()
    await resubscribed
  })
})
