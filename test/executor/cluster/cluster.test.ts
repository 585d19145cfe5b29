/**
 * The cluster executor against a real 6-node Redis Cluster (3 masters, 3 replicas) on loopback:
 * discovery, routing, split and cluster-wide commands, pipelines, transactions, pub/sub, MONITOR,
 * and the gateway in front of it.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest'
import { ClusterExecutor } from '../../../src/executor/cluster/cluster-executor.js'
import { RedisExecutor } from '../../../src/executor/cluster/redis-executor.js'
import { keySlot } from '../../../src/executor/cluster/slot.js'
import type { MonitorEvent, PubSubEvent } from '../../../src/executor/executor.js'
import { createGateway } from '../../../src/rest/gateway.js'
import { ReplyError, Status, type Reply } from '../../../src/reply.js'
import { liveSuiteName, redisServerSkipReason, startRedisServer } from '../../support/redis-server.js'
import { startRedisCluster, waitFor, type RedisCluster } from '../../support/redis-cluster.js'
import { requester } from '../../support/gateway.js'
import { serve } from '../../../src/workflow/index.js'
import { serveResp } from '../../../src/adapters/resp-server.js'
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { Counter, listenFetch, startQueue, TOKEN } from '../../queue/support.js'
import { fresh, startCli, stop } from '../../cli/cli-process.js'

const text = (reply: Reply): unknown => {
  if (reply instanceof Uint8Array) return Buffer.from(reply).toString()
  if (Array.isArray(reply)) return reply.map(text)
  if (reply instanceof ReplyError) return `error: ${reply.message}`
  if (reply instanceof Status) return reply.text
  return reply
}

/** Keys that land on every master: one per slot range of a 3-master cluster. */
const SPREAD = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h']

describe.skipIf(redisServerSkipReason !== undefined)(liveSuiteName('cluster executor on a 6-node cluster'), () => {
  let cluster: RedisCluster
  let executor: ClusterExecutor

  beforeAll(async () => {
    cluster = await startRedisCluster()
    // Seeded at a replica: discovery must still find the masters.
    executor = new ClusterExecutor({ url: cluster.url(5) })
    await executor.connect()
  }, 60_000)
  afterAll(async () => {
    await executor?.close()
    await cluster?.stop()
  })
  beforeEach(async () => {
    await executor.exec(['FLUSHALL'])
  })

  test('discovers the three masters from any node, and slots agree with CLUSTER KEYSLOT', async () => {
    expect(executor.stats.masters).toHaveLength(3)
    for (const key of ['x', '{tag}y', 'user:1000', '']) {
      expect(Number(await cluster.cli(0, 'CLUSTER', 'KEYSLOT', key))).toBe(keySlot(key))
    }
  })

  test('the RedisExecutor detects a cluster at one node, and one server as one server', async () => {
    const detected = new RedisExecutor({ url: cluster.url(2) })
    expect(text(await detected.exec(['SET', 'k', 'v']))).toBe('OK')
    expect(detected.topology).toBe('cluster')
    await detected.close()
    const server = await startRedisServer()
    const single = new RedisExecutor({ url: server.url })
    expect(text(await single.exec(['PING']))).toEqual(expect.anything())
    expect(single.topology).toBe('single')
    await single.close()
    await server.stop()
  })

  test('a user without +info: the first MOVED tells the RedisExecutor it talks to a cluster', async () => {
    // ACL SETUSER goes to every node.
    expect(text(await executor.exec(['ACL', 'SETUSER', 'noinfo', 'on', '>pw', '~*', '&*', '+@all', '-info']))).toBe('OK')
    const port = cluster.ports[0]
    const detected = new RedisExecutor({ url: `redis://noinfo:pw@127.0.0.1:${port}` })
    // Keys on every master: some answer MOVED from the first node.
    for (const key of SPREAD) expect(text(await detected.exec(['SET', key, `v-${key}`]))).toBe('OK')
    expect(detected.topology).toBe('cluster')
    expect(text(await detected.exec(['MGET', ...SPREAD]))).toEqual(SPREAD.map((key) => `v-${key}`))
    await detected.close()
    await executor.exec(['ACL', 'DELUSER', 'noinfo'])
  })

  test('several seeds: a dead one is skipped', async () => {
    const seeded = new RedisExecutor({ url: `redis://127.0.0.1:1,${cluster.url(1)}` })
    await seeded.exec(['SET', 'seeded', '1'])
    expect(text(await seeded.exec(['GET', 'seeded']))).toBe('1')
    expect(seeded.topology).toBe('cluster')
    await seeded.close()
  })

  test('keys on every master are written and read back', async () => {
    for (const key of SPREAD) expect(text(await executor.exec(['SET', key, `v-${key}`]))).toBe('OK')
    for (const key of SPREAD) expect(text(await executor.exec(['GET', key]))).toBe(`v-${key}`)
    // Each master holds some of them, straight from redis-cli.
    const sizes = await Promise.all(executor.stats.masters.map(async (node) => Number(await cluster.cli(cluster.indexOf(Number(node.split(':')[1])), 'DBSIZE'))))
    expect(sizes.reduce((a, b) => a + b)).toBe(SPREAD.length)
    expect(sizes.every((size) => size > 0)).toBe(true)
  })

  test('the odd key specs route to their keys', async () => {
    expect(text(await executor.exec(['EVAL', "return redis.call('SET', KEYS[1], ARGV[1])", '1', 'ev', 'x']))).toBe('OK')
    expect(text(await executor.exec(['GET', 'ev']))).toBe('x')
    await executor.exec(['XADD', '{s}1', '1-1', 'f', 'v'])
    await executor.exec(['XADD', '{s}2', '1-1', 'f', 'w'])
    expect(text(await executor.exec(['XREAD', 'STREAMS', '{s}1', '{s}2', '0', '0']))).toEqual([['{s}1', [['1-1', ['f', 'v']]]], ['{s}2', [['1-1', ['f', 'w']]]]])
    await executor.exec(['ZADD', '{z}a', '1', 'm'])
    await executor.exec(['ZADD', '{z}b', '2', 'm'])
    expect(await executor.exec(['ZUNIONSTORE', '{z}d', '2', '{z}a', '{z}b'])).toBe(1)
    expect(text(await executor.exec(['ZINTER', '2', '{z}a', '{z}b', 'WITHSCORES']))).toEqual(['m', '3'])
    await executor.exec(['RPUSH', '{l}src', '3', '1', '2'])
    expect(await executor.exec(['SORT', '{l}src', 'STORE', '{l}dst'])).toBe(3)
    expect(text(await executor.exec(['LRANGE', '{l}dst', '0', '-1']))).toEqual(['1', '2', '3'])
    await executor.exec(['GEOADD', '{g}src', '13.361389', '38.115556', 'Palermo'])
    expect(await executor.exec(['GEORADIUS', '{g}src', '15', '37', '200', 'km', 'STORE', '{g}dst'])).toBe(1)
    expect(text(await executor.exec(['LMPOP', '2', '{l}none', '{l}dst', 'LEFT']))).toEqual(['{l}dst', ['1']])
    expect(text(await executor.exec(['ZMPOP', '1', '{z}a', 'MIN']))).toEqual(['{z}a', [['m', '1']]])
    expect(text(await executor.exec(['OBJECT', 'ENCODING', '{l}src']))).toBe('quicklist')
    expect(typeof (await executor.exec(['MEMORY', 'USAGE', '{l}src']))).toBe('number')
    expect(text(await executor.exec(['SORT', 'a', 'STORE', 'b']))).toBe("error: CROSSSLOT Keys in request don't hash to the same slot")
  })

  test('MGET, MSET, DEL, EXISTS, UNLINK and TOUCH split across slots; MSETNX answers CROSSSLOT', async () => {
    expect(text(await executor.exec(['MSET', ...SPREAD.flatMap((key) => [key, key.toUpperCase()])]))).toBe('OK')
    expect(text(await executor.exec(['MGET', ...SPREAD, 'missing']))).toEqual([...SPREAD.map((key) => key.toUpperCase()), null])
    expect(await executor.exec(['EXISTS', 'a', 'b', 'a', 'missing'])).toBe(3)
    expect(await executor.exec(['TOUCH', 'a', 'b', 'c'])).toBe(3)
    expect(await executor.exec(['DEL', 'a', 'b', 'missing'])).toBe(2)
    expect(await executor.exec(['UNLINK', 'c', 'd'])).toBe(2)
    expect(text(await executor.exec(['MSETNX', 'x1', '1', 'x2', '2']))).toBe("error: CROSSSLOT Keys in request don't hash to the same slot")
  })

  test('DBSIZE sums, KEYS and SCAN walk every master, RANDOMKEY and INFO keyspace see them all', async () => {
    const keys = Array.from({ length: 60 }, (_, i) => `key:${i}`)
    for (const key of keys) await executor.exec(['SET', key, '1'])
    expect(await executor.exec(['DBSIZE'])).toBe(60)
    expect((text(await executor.exec(['KEYS', 'key:*'])) as string[]).sort()).toEqual([...keys].sort())
    const seen: string[] = []
    let cursor = '0'
    let calls = 0
    do {
      const [next, batch] = text(await executor.exec(['SCAN', cursor, 'MATCH', 'key:*', 'COUNT', '7'])) as [string, string[]]
      seen.push(...batch)
      cursor = next
      calls++
    } while (cursor !== '0' && calls < 1000)
    expect([...new Set(seen)].sort()).toEqual([...keys].sort())
    expect(keys).toContain(text(await executor.exec(['RANDOMKEY'])))
    expect(text(await executor.exec(['INFO', 'keyspace']))).toMatch(/db0:keys=60,/)
    expect(text(await executor.exec(['FLUSHDB']))).toBe('OK')
    expect(await executor.exec(['DBSIZE'])).toBe(0)
    expect(await executor.exec(['RANDOMKEY'])).toBe(null)
  })

  test('SCRIPT LOAD and FUNCTION LOAD reach every master', async () => {
    const sha = text(await executor.exec(['SCRIPT', 'LOAD', "return redis.call('GET', KEYS[1])"])) as string
    await executor.exec(['FUNCTION', 'FLUSH'])
    expect(text(await executor.exec(['FUNCTION', 'LOAD', "#!lua name=lib\nredis.register_function('echo1', function(keys, args) return args[1] end)"]))).toBe('lib')
    for (const key of SPREAD) {
      await executor.exec(['SET', key, key])
      expect(text(await executor.exec(['EVALSHA', sha, '1', key]))).toBe(key)
      expect(text(await executor.exec(['FCALL', 'echo1', '1', key, `hi-${key}`]))).toBe(`hi-${key}`)
    }
    expect(text(await executor.exec(['SCRIPT', 'EXISTS', sha, '0000000000000000000000000000000000000000']))).toEqual([1, 0])
  })

  test('a pipeline across nodes answers in request order', async () => {
    const commands = SPREAD.flatMap((key, i) => [['SET', key, String(i)], ['INCR', key], ['GET', key]])
    const replies = text(await executor.pipeline([...commands, ['DBSIZE'], ['SORT', 'a', 'STORE', 'b']])) as unknown[]
    SPREAD.forEach((_, i) => expect(replies.slice(i * 3, i * 3 + 3)).toEqual(['OK', i + 1, String(i + 1)]))
    expect(replies.at(-1)).toBe("error: CROSSSLOT Keys in request don't hash to the same slot")
  })

  test('a transaction in one slot runs as MULTI/EXEC; across slots it is one CROSSSLOT error', async () => {
    expect(text(await executor.transaction([['SET', '{acct}1', '10'], ['INCRBY', '{acct}1', '5'], ['GET', '{acct}1']]))).toEqual(['OK', 15, '15'])
    expect(text(await executor.transaction([['SET', 'a', '1'], ['SET', 'b', '2']]))).toBe("error: CROSSSLOT Keys in request don't hash to the same slot")
    expect(await executor.exec(['EXISTS', 'a', 'b'])).toBe(0)
    expect(text(await executor.transaction([['PING'], ['ECHO', 'x']]))).toEqual(['PONG', 'x'])
  })

  test('subscriptions across nodes, and PUBLISH counts every local stream', async () => {
    // Channels chosen on different masters.
    const channels = ['news', 'sport', 'weather']
    const events: PubSubEvent[][] = [[], [], []]
    const controllers = [new AbortController(), new AbortController(), new AbortController()]
    const done = controllers.map((controller, i) => executor.subscribe({ kind: 'channel', names: channels }, (event) => events[i].push(event), controller.signal))
    const patternEvents: PubSubEvent[] = []
    const pattern = new AbortController()
    const patternDone = executor.subscribe({ kind: 'pattern', names: ['n*'] }, (event) => patternEvents.push(event), pattern.signal)
    await waitFor('subscriptions confirmed', async () => events.every((list) => list.length === 3) && patternEvents.length === 1, 10_000, 20)
    expect(events[0].map((event) => (event.type === 'subscribe' ? event.count : -1)).sort()).toEqual([1, 2, 3])
    expect(await executor.exec(['PUBLISH', 'news', 'hello'])).toBe(4)
    expect(await executor.exec(['PUBLISH', 'sport', 'goal'])).toBe(3)
    expect(await executor.exec(['PUBLISH', 'nothing', 'x'])).toBe(1)
    await waitFor('messages delivered', async () => events.every((list) => list.length === 5) && patternEvents.length === 3, 10_000, 20)
    // `news` and `sport` live on different masters, each read on its own connection: no order between them.
    expect(events[1].slice(3).map((event) => (event.type === 'message' ? Buffer.from(event.message).toString() : '')).sort()).toEqual(['goal', 'hello'])
    // Counted alike in pipelines and transactions.
    expect(await executor.pipeline([['PUBLISH', 'news', 'p'], ['PUBLISH', 'sport', 'p'], ['SET', 'x', '1']])).toEqual([4, 3, expect.anything()])
    expect(await executor.transaction([['PUBLISH', 'news', 't']])).toEqual([4])
    for (const controller of [...controllers, pattern]) controller.abort()
    await Promise.all([...done, patternDone])
    expect(await executor.exec(['PUBLISH', 'news', 'gone'])).toBe(0)
  })

  test('MONITOR merges every master', async () => {
    const lines: MonitorEvent[] = []
    const controller = new AbortController()
    const done = executor.monitor((event) => lines.push(event), controller.signal)
    // MONITOR is confirmed per master: keep writing until every key's SET was seen.
    await waitFor('a SET on every master in MONITOR', async () => {
      await Promise.all(SPREAD.map((key) => executor.exec(['SET', key, 'm'])))
      return SPREAD.every((key) => lines.some((line) => line.line.includes(`"SET" "${key}" "m"`)))
    }, 10_000, 50)
    controller.abort()
    await done
  })

  test('the gateway in front of the cluster: commands, pipelines, a CROSSSLOT transaction is a 400', async () => {
    const send = requester(createGateway({ executor, token: 'token' }), 'token')
    expect((await send('GET', '/set/a/1')).json).toEqual({ result: 'OK' })
    expect((await send('GET', '/mget/a/b')).json).toEqual({ result: ['1', null] })
    const pipeline = await send('POST', '/pipeline', { body: JSON.stringify(SPREAD.map((key) => ['SET', key, key])) })
    expect(pipeline.json).toEqual(SPREAD.map(() => ({ result: 'OK' })))
    expect((await send('GET', '/dbsize')).json).toEqual({ result: SPREAD.length })
    const crossed = await send('POST', '/multi-exec', { body: '[["SET","a","x"],["SET","b","y"]]' })
    expect(crossed.status).toBe(400)
    expect(crossed.json).toEqual({ error: "CROSSSLOT Keys in request don't hash to the same slot" })
    const tagged = await send('POST', '/multi-exec', { body: '[["SET","{t}a","x"],["GET","{t}a"]]' })
    expect(tagged.json).toEqual([{ result: 'OK' }, { result: 'x' }])
  })

  test('the queue service runs workflows with its state in the cluster (keys under one hash tag)', async () => {
    const queue = await startQueue({ executor, prefix: '{restis:queue}:', concurrency: 3, pollInterval: 20 })
    const counter = new Counter()
    const endpoint = await listenFetch(
      serve<{ n: number }>(async (context) => {
        let sum = 0
        for (const name of ['one', 'two']) sum += await context.run(name, async () => (counter.hit(`${context.workflowRunId}/${name}`), context.requestPayload.n))
        return sum
      }, { queueUrl: queue.url, token: TOKEN, env: {} }),
    )
    try {
      const runIds = await Promise.all(Array.from({ length: 5 }, async (_, n) => {
        const response = await fetch(`${endpoint.url}/wf`, { method: 'POST', body: JSON.stringify({ n }) })
        return ((await response.json()) as { workflowRunId: string }).workflowRunId
      }))
      for (const [n, runId] of runIds.entries()) {
        const detail = await queue.waitForRun(runId)
        expect(detail.run.state).toBe('RUN_SUCCESS')
        expect(JSON.parse(detail.run.result!)).toBe(2 * n)
      }
      expect([...counter.counts.values()]).toEqual(Array(10).fill(1))
    } finally {
      await endpoint.close()
      await queue.close()
    }
  })

  test('the CLI with --redis at a node (two seeds, one dead) and --workers 2 serves the cluster', async () => {
    const cli = startCli(['--token', 'cli-token', '--workers', '2', '--redis', `redis://127.0.0.1:1,${cluster.url(3)}`])
    try {
      const { url } = await cli.ready
      expect(JSON.parse((await fresh(`${url}/mset/a/1/b/2/c/3`, 'cli-token')).body)).toEqual({ result: 'OK' })
      expect(JSON.parse((await fresh(`${url}/mget/a/b/c`, 'cli-token')).body)).toEqual({ result: ['1', '2', '3'] })
      expect(JSON.parse((await fresh(`${url}/dbsize`, 'cli-token')).body)).toEqual({ result: 3 })
    } finally {
      await stop(cli.child, 'SIGTERM')
    }
  })

  test('the RESP listener in front of the cluster serves redis-cli', async () => {
    const resp = await serveResp(executor, { port: 0, host: '127.0.0.1' })
    const cli = async (...args: string[]) => (await promisify(execFile)('redis-cli', ['-p', String(resp.address.port), ...args])).stdout.trim()
    try {
      expect(await cli('MSET', 'a', '1', 'b', '2', 'c', '3')).toBe('OK')
      expect(await cli('MGET', 'a', 'b', 'c')).toBe('1\n2\n3')
      expect(await cli('DBSIZE')).toBe('3')
      expect(await cli('RENAME', 'a', 'b')).toBe("CROSSSLOT Keys in request don't hash to the same slot")
    } finally {
      await resp.close()
    }
  })

  test('reads from replicas when asked', async () => {
    const reader = new ClusterExecutor({ url: cluster.url(0), readFromReplicas: true })
    await executor.exec(['SET', 'replicated', 'yes'])
    await waitFor('the replica to have the key', async () => text(await reader.exec(['GET', 'replicated'])) === 'yes', 10_000, 20)
    expect(text(await reader.exec(['SET', 'w', '1']))).toBe('OK')
    await reader.close()
    // The GETs were answered by a replica (writes still went to the master).
    const masterPorts = executor.stats.masters.map((node) => Number(node.split(':')[1]))
    const replicas = cluster.ports.filter((port) => !masterPorts.includes(port))
    const stats = await Promise.all(replicas.map((port) => cluster.cli(cluster.indexOf(port), 'INFO', 'commandstats')))
    expect(stats.some((section) => /cmdstat_get:calls=[1-9]/.test(section))).toBe(true)
  })
})
