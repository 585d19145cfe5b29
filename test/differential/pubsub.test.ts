import { setMaxListeners } from 'node:events'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { Subscription } from '../../src/executor/executor.js'
import { Engine } from '../../src/executor/memory/engine.js'
import { toArgv, toReply } from '../../src/executor/memory/memory-executor.js'
import { isSubscriptionCommand } from '../../src/executor/memory/pubsub.js'
import type { Command, Reply } from '../../src/reply.js'
import { liveSuiteName, redisServerSkipReason, startRedisServer, type RedisServer } from '../support/redis-server.js'
import { runDifferential, showReply, withDifferentialExecutors } from './harness.js'
import { pubsubCases } from './pubsub.cases.js'
import { Collector, RawClient, showEvent } from './pubsub.support.js'

runDifferential('pubsub', pubsubCases)

/**
 * How a step's transcripts may differ, only where Redis walks a hash table:
 * - `unorderedNames`: UNSUBSCRIBE without arguments goes through the client's channel dict; the
 *   kinds and counts must match in order, the names as a multiset
 * - `unorderedReplies`: one client gets several pmessages for one PUBLISH, in pattern-dict order
 * - `unorderedArray`: PUBSUB (SHARD)CHANNELS lists the channel dict
 */
type StepRelaxation = 'unorderedNames' | 'unorderedReplies' | 'unorderedArray'

interface Step {
  readonly client: number
  readonly command: Command
  readonly relax?: StepRelaxation
}

interface ConnectionCase {
  readonly name: string
  readonly clients: number
  readonly steps: readonly Step[]
}

const bin = (...bytes: number[]): Buffer => Buffer.from(bytes)

/**
 * Connection-mode pub/sub: each client is a RESP2 connection to redis-server on one side and an
 * engine session attached to the hub on the other (what the RESP listener does). After every
 * step each client's transcript (command replies, one per channel for the subscription
 * commands, and pushed messages) is compared.
 */
const connectionCases: ConnectionCase[] = [
  {
    name: 'SUBSCRIBE / PSUBSCRIBE counts, duplicates, UNSUBSCRIBE and PUNSUBSCRIBE with and without names',
    clients: 2,
    steps: [
      { client: 0, command: ['SUBSCRIBE', 'a', 'b', 'a'] },
      { client: 0, command: ['PSUBSCRIBE', 'a*', 'b?', 'a*'] },
      { client: 1, command: ['PUBLISH', 'a', 'm1'] },
      { client: 1, command: ['PUBLISH', 'bb', 'm2'] },
      { client: 1, command: ['PUBLISH', 'c', 'm3'] },
      { client: 1, command: ['PUBSUB', 'NUMSUB', 'a', 'b', 'zz'] },
      { client: 1, command: ['PUBSUB', 'NUMPAT'] },
      { client: 0, command: ['UNSUBSCRIBE', 'zz'] },
      { client: 0, command: ['UNSUBSCRIBE'], relax: 'unorderedNames' },
      { client: 0, command: ['UNSUBSCRIBE'] },
      { client: 0, command: ['PUNSUBSCRIBE', 'nope'] },
      { client: 0, command: ['PUNSUBSCRIBE'] },
      { client: 0, command: ['PUNSUBSCRIBE'] },
      { client: 1, command: ['PUBLISH', 'a', 'gone'] },
      { client: 1, command: ['PUBSUB', 'NUMPAT'] },
    ],
  },
  {
    name: 'UNSUBSCRIBE without channels counts the patterns left; PUNSUBSCRIBE without patterns the channels',
    clients: 1,
    steps: [
      { client: 0, command: ['PSUBSCRIBE', '*', 'x'] },
      { client: 0, command: ['UNSUBSCRIBE'] },
      { client: 0, command: ['PUNSUBSCRIBE', 'x'] },
      { client: 0, command: ['SUBSCRIBE', 'c'] },
      { client: 0, command: ['PUNSUBSCRIBE'] },
      { client: 0, command: ['PUNSUBSCRIBE'] },
      { client: 0, command: ['unsubscribe'] },
    ],
  },
  {
    name: 'PUBLISH counts one receiver per client subscription, patterns included',
    clients: 4,
    steps: [
      { client: 0, command: ['SUBSCRIBE', 'a'] },
      { client: 0, command: ['PSUBSCRIBE', 'a*', '*'] },
      { client: 1, command: ['PSUBSCRIBE', 'a*'] },
      { client: 2, command: ['SUBSCRIBE', 'a', 'b'] },
      { client: 3, command: ['PUBLISH', 'a', 'x'], relax: 'unorderedReplies' },
      { client: 3, command: ['PUBLISH', 'b', 'y'] },
      { client: 3, command: ['PUBSUB', 'NUMPAT'] },
      { client: 3, command: ['PUBSUB', 'NUMSUB', 'a', 'b'] },
      { client: 3, command: ['PUBSUB', 'CHANNELS'], relax: 'unorderedArray' },
      { client: 3, command: ['PUBSUB', 'CHANNELS', 'a*'] },
      { client: 2, command: ['UNSUBSCRIBE', 'a'] },
      { client: 3, command: ['PUBLISH', 'a', 'z'], relax: 'unorderedReplies' },
    ],
  },
  {
    name: 'messages arrive in publish order on every subscriber',
    clients: 3,
    steps: [
      { client: 0, command: ['SUBSCRIBE', 'a', 'b'] },
      { client: 1, command: ['SUBSCRIBE', 'b'] },
      { client: 1, command: ['PSUBSCRIBE', 'a'] },
      { client: 2, command: ['PUBLISH', 'a', '1'] },
      { client: 2, command: ['PUBLISH', 'b', '2'] },
      { client: 2, command: ['PUBLISH', 'a', '3'] },
      { client: 2, command: ['PUBLISH', 'b', '4'] },
      { client: 2, command: ['PUBLISH', 'c', '5'] },
    ],
  },
  {
    name: 'shard channels: their own namespace and count; SPUBLISH never reaches patterns',
    clients: 2,
    steps: [
      { client: 0, command: ['SSUBSCRIBE', 'a', 'b', 'a'] },
      { client: 0, command: ['SUBSCRIBE', 'a'] },
      { client: 0, command: ['PSUBSCRIBE', '*'] },
      { client: 1, command: ['SPUBLISH', 'a', 'm1'] },
      { client: 1, command: ['PUBLISH', 'a', 'm2'] },
      { client: 1, command: ['SPUBLISH', 'c', 'm3'] },
      { client: 1, command: ['PUBSUB', 'SHARDCHANNELS'], relax: 'unorderedArray' },
      { client: 1, command: ['PUBSUB', 'SHARDCHANNELS', 'b'] },
      { client: 1, command: ['PUBSUB', 'SHARDNUMSUB', 'a', 'x'] },
      { client: 1, command: ['PUBSUB', 'CHANNELS'] },
      { client: 0, command: ['SUNSUBSCRIBE', 'x'] },
      { client: 0, command: ['SUNSUBSCRIBE'], relax: 'unorderedNames' },
      { client: 0, command: ['SUNSUBSCRIBE'] },
      { client: 0, command: ['UNSUBSCRIBE'] },
      { client: 0, command: ['PUNSUBSCRIBE'] },
      { client: 1, command: ['PUBSUB', 'SHARDNUMSUB', 'a'] },
    ],
  },
  {
    name: 'patterns match as stringmatchlen: classes, escapes, `?`, and the empty channel',
    clients: 2,
    steps: [
      { client: 0, command: ['PSUBSCRIBE', 'h[ae]llo', 'h\\*', 'x?[^a]', '*'] },
      { client: 1, command: ['PUBLISH', 'hello', '1'], relax: 'unorderedReplies' },
      { client: 1, command: ['PUBLISH', 'h*', '2'], relax: 'unorderedReplies' },
      { client: 1, command: ['PUBLISH', 'hxllo', '3'] },
      { client: 1, command: ['PUBLISH', 'xyb', '4'], relax: 'unorderedReplies' },
      { client: 1, command: ['PUBLISH', 'xya', '5'] },
      { client: 1, command: ['PUBLISH', '', '6'] },
      { client: 0, command: ['SUBSCRIBE', ''] },
      { client: 1, command: ['PUBSUB', 'CHANNELS', '*'] },
      { client: 1, command: ['PUBSUB', 'CHANNELS', ''] },
      { client: 1, command: ['PUBLISH', '', '7'] },
      { client: 0, command: ['PSUBSCRIBE', ''] },
      { client: 1, command: ['PUBLISH', '', '8'] },
    ],
  },
  {
    name: 'binary channel names and messages keep every byte',
    clients: 2,
    steps: [
      { client: 0, command: ['SUBSCRIBE', bin(0, 255, 13, 10), 'é'] },
      { client: 0, command: ['PSUBSCRIBE', bin(0x2a, 0xff)] },
      { client: 1, command: ['PUBLISH', bin(0, 255, 13, 10), bin(0, 1, 2)] },
      { client: 1, command: ['PUBLISH', 'é', '✓'] },
      { client: 1, command: ['PUBLISH', bin(1, 0xff), 'p'] },
      { client: 1, command: ['PUBSUB', 'NUMSUB', bin(0, 255, 13, 10), 'é'] },
    ],
  },
  {
    name: 'a channel leaves PUBSUB CHANNELS with its last subscriber',
    clients: 3,
    steps: [
      { client: 0, command: ['SUBSCRIBE', 'a'] },
      { client: 1, command: ['SUBSCRIBE', 'a'] },
      { client: 2, command: ['PUBSUB', 'CHANNELS'] },
      { client: 0, command: ['UNSUBSCRIBE', 'a'] },
      { client: 2, command: ['PUBSUB', 'NUMSUB', 'a'] },
      { client: 1, command: ['UNSUBSCRIBE', 'a'] },
      { client: 2, command: ['PUBSUB', 'CHANNELS'] },
      { client: 2, command: ['PUBLISH', 'a', 'x'] },
    ],
  },
]

function canonical(reply: Reply): string {
  return showReply(typeof reply === 'bigint' ? Number(reply) : reply)
}

/** Compares one client's transcript of one step under a relaxation; a description or null. */
function compareTranscripts(ours: readonly Reply[], redis: readonly Reply[], relax: StepRelaxation | undefined): string | null {
  const show = (replies: readonly Reply[]): string => replies.map(canonical).join('\n       ')
  const differ = `memory ${show(ours)}\nredis  ${show(redis)}`
  if (ours.length !== redis.length) return differ
  let a = ours.map(canonical)
  let b = redis.map(canonical)
  if (relax === 'unorderedReplies') {
    a = a.sort()
    b = b.sort()
  } else if (relax === 'unorderedNames') {
    const shape = (replies: readonly Reply[]): string[] => replies.map((reply) => canonical([(reply as Reply[])[0], (reply as Reply[])[2]]))
    const names = (replies: readonly Reply[]): string[] => replies.map((reply) => canonical((reply as Reply[])[1])).sort()
    a = [...shape(ours), ...names(ours)]
    b = [...shape(redis), ...names(redis)]
  } else if (relax === 'unorderedArray') {
    a = ours.map((reply) => (Array.isArray(reply) ? (reply as Reply[]).map(canonical).sort().join(',') : canonical(reply)))
    b = redis.map((reply) => (Array.isArray(reply) ? (reply as Reply[]).map(canonical).sort().join(',') : canonical(reply)))
  }
  return a.join('\n') === b.join('\n') ? null : differ
}

describe.skipIf(redisServerSkipReason !== undefined)(liveSuiteName('pub/sub in connection mode (differential against redis-server)'), () => {
  let server: RedisServer
  beforeAll(async () => {
    server = await startRedisServer()
  })
  afterAll(() => server?.stop())

  for (const entry of connectionCases) {
    test(entry.name, async () => {
      const engine = new Engine({ activeExpiryInterval: 0 })
      const raw = await Promise.all(Array.from({ length: entry.clients }, () => RawClient.connect(server.port)))
      try {
        const pushed: Reply[][] = Array.from({ length: entry.clients }, () => [])
        const sessions = raw.map((_, i) => {
          const session = engine.createSession()
          engine.pubsub.attach(session.id, (reply) => pushed[i].push(toReply(reply)))
          return session
        })
        for (const [index, step] of entry.steps.entries()) {
          const argv = toArgv(step.command)
          const out = toReply(engine.call(sessions[step.client], argv))
          const ours = pushed.map(() => [] as Reply[])
          if (isSubscriptionCommand(argv[0]) && Array.isArray(out)) ours[step.client].push(...(out as Reply[]))
          else ours[step.client].push(out)
          pushed.forEach((queue, i) => ours[i].push(...queue.splice(0)))

          raw[step.client].send(step.command)
          const theirs: Reply[][] = pushed.map(() => [])
          // The acting client first: once its barrier returns, the step ran on the server.
          theirs[step.client] = await raw[step.client].barrier()
          for (let i = 0; i < raw.length; i++) if (i !== step.client) theirs[i] = await raw[i].barrier()

          for (let i = 0; i < raw.length; i++) {
            const difference = compareTranscripts(ours[i], theirs[i], step.relax)
            const shown = step.command.map((arg) => (typeof arg === 'string' ? arg : `<${Buffer.from(arg).toString('hex')}>`)).join(' ')
            expect(difference, `step ${index} (client ${step.client}: ${shown}), client ${i} got\n${difference}`).toBeNull()
          }
        }
      } finally {
        for (const client of raw) client.close()
        engine.close()
      }
    })
  }
})

describe.skipIf(redisServerSkipReason !== undefined)(liveSuiteName('Executor.subscribe (differential: memory vs socket executor)'), () => {
  const live = withDifferentialExecutors({ memory: { activeExpiryInterval: 0 }, flushBeforeEach: false })

  /**
   * Subscribes `targets` on both executors, waits for every confirmation, publishes `messages`
   * on both (comparing the receiver counts when `compareCounts`), waits until each socket
   * subscriber got as many events as its memory twin, and compares every subscriber's events.
   */
  async function compare(targets: readonly Subscription[], messages: readonly [string, string][], compareCounts: boolean): Promise<void> {
    const controller = new AbortController()
    setMaxListeners(2 * targets.length, controller.signal) // one signal ends every subscription
    const ours = targets.map(() => new Collector<string>())
    const theirs = targets.map(() => new Collector<string>())
    const done = targets.flatMap((target, i) => [
      live.memory.subscribe(target, (event) => ours[i].push(showEvent(event)), controller.signal),
      live.redis.subscribe(target, (event) => theirs[i].push(showEvent(event)), controller.signal),
    ])
    try {
      await Promise.all(targets.map((target, i) => theirs[i].waitFor(target.names.length)))
      for (const [channel, message] of messages) {
        const [a, b] = await live.both(['PUBLISH', channel, message])
        if (compareCounts) expect(a, `PUBLISH ${channel} ${message}`).toBe(b)
      }
      await Promise.all(targets.map((_, i) => theirs[i].waitFor(ours[i].items.length)))
      targets.forEach((target, i) => expect(ours[i].items, `subscriber ${i} (${target.kind} ${target.names.join(' ')})`).toEqual(theirs[i].items))
    } finally {
      controller.abort()
      await Promise.all(done)
    }
    expect(live.memory.engine.pubsub.size).toEqual({ clients: 0, channels: 0, patterns: 0, shardChannels: 0 })
  }

  test('one subscriber per name: confirmations, counts and messages match', async () => {
    await compare(
      [
        { kind: 'channel', names: ['a', 'b', 'a'] },
        { kind: 'channel', names: ['c'] },
        { kind: 'pattern', names: ['x*'] },
        { kind: 'pattern', names: ['y?', 'q[0-9]'] },
      ],
      [['a', '1'], ['b', '2'], ['c', '3'], ['x1', '4'], ['yz', '5'], ['zz', '6'], ['q7', '7'], ['a', '8'], ['x', '9'], ['y', '10']],
      true,
    )
  })

  test('many subscribers sharing channels get the same events in the same order', async () => {
    // The socket executor subscribes each name once on its shared connection, so its PUBLISH
    // counts are per name, not per local subscriber: only the events are compared here.
    const targets: Subscription[] = []
    for (let i = 0; i < 20; i++) targets.push({ kind: 'channel', names: [`ch${i % 4}`, `ch${(i + 1) % 4}`] })
    targets.push({ kind: 'pattern', names: ['ch[02]'] }, { kind: 'pattern', names: ['ch*'] })
    const messages: [string, string][] = []
    for (let m = 0; m < 200; m++) messages.push([`ch${m % 5}`, `m${m}`])
    await compare(targets, messages, false)
  })
})
