/**
 * Sharded pub/sub (SSUBSCRIBE, SUNSUBSCRIBE, SPUBLISH, PUBSUB SHARDCHANNELS / SHARDNUMSUB) through
 * the RESP listener, differentially: the same steps run on redis-server 7.0.15 directly, on the
 * listener over the memory engine and on the listener over a socket executor to that
 * redis-server; every client's frames (replies, confirmations one per channel, messages) must be
 * the same on all three.
 *
 * redis-server's transcript is read up to a PING barrier (a subscribed RESP2 connection answers
 * `pong` after everything owed to it); the listeners' are read to the same number of frames.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { Reply } from '../../src/reply.js'
import { MemoryExecutor } from '../../src/executor/memory/memory-executor.js'
import { SocketExecutor } from '../../src/executor/socket/socket-executor.js'
import { serveResp, type RespServer } from '../../src/adapters/resp-server.js'
import { liveSuiteName, redisServerSkipReason, startRedisServer, type RedisServer } from '../support/redis-server.js'
import { RawClient, multibulk, show } from '../executor/socket/support.js'

interface Step {
  readonly client: number
  readonly command: readonly string[]
  /**
   * Redis lists names in its dict order: `frames` (SUNSUBSCRIBE of all) compares the names as a
   * multiset, kinds and counts in order; `array` (SHARDCHANNELS) compares the array as a set.
   */
  readonly unordered?: 'frames' | 'array'
}

interface Case {
  readonly name: string
  readonly clients: number
  readonly steps: readonly Step[]
}

const cases: Case[] = [
  {
    name: 'SSUBSCRIBE counts shard channels only; SPUBLISH reaches them, PUBLISH does not; SUNSUBSCRIBE with and without names',
    clients: 2,
    steps: [
      { client: 0, command: ['SSUBSCRIBE', 'a', 'b', 'a'] },
      { client: 0, command: ['SUBSCRIBE', 'x'] },
      { client: 0, command: ['PSUBSCRIBE', 'a*'] },
      { client: 0, command: ['GET', 'k'] },
      { client: 0, command: ['PING', 'hi'] },
      { client: 1, command: ['SPUBLISH', 'a', 'm1'] },
      { client: 1, command: ['PUBLISH', 'a', 'm2'] },
      { client: 1, command: ['SPUBLISH', 'x', 'm3'] },
      { client: 1, command: ['SPUBLISH', 'b', ''] },
      { client: 1, command: ['PUBSUB', 'SHARDCHANNELS'], unordered: 'array' },
      { client: 1, command: ['PUBSUB', 'SHARDCHANNELS', 'a*'] },
      { client: 1, command: ['PUBSUB', 'SHARDNUMSUB', 'a', 'b', 'zz'] },
      { client: 1, command: ['PUBSUB', 'NUMSUB', 'a'] },
      { client: 1, command: ['PUBSUB', 'SHARDNUMSUB'] },
      { client: 0, command: ['SUNSUBSCRIBE', 'zz'] },
      { client: 0, command: ['SUNSUBSCRIBE', 'a'] },
      { client: 0, command: ['SUBSCRIBE', 'y'] },
      { client: 0, command: ['SSUBSCRIBE', 'c', 'd'] },
      { client: 0, command: ['SUNSUBSCRIBE'], unordered: 'frames' },
      { client: 0, command: ['SUNSUBSCRIBE'] },
      { client: 1, command: ['SPUBLISH', 'b', 'gone'] },
      { client: 0, command: ['UNSUBSCRIBE'], unordered: 'frames' },
      { client: 0, command: ['PUNSUBSCRIBE'] },
      { client: 0, command: ['PING'] },
      { client: 1, command: ['PUBSUB', 'SHARDCHANNELS'] },
    ],
  },
  {
    name: 'shard channels alone put a connection in subscribed mode; SUNSUBSCRIBE of the last leaves it; errors',
    clients: 2,
    steps: [
      { client: 0, command: ['SSUBSCRIBE'] },
      { client: 0, command: ['SUNSUBSCRIBE'] },
      { client: 0, command: ['SSUBSCRIBE', 'only'] },
      { client: 0, command: ['SET', 'k', 'v'] },
      { client: 0, command: ['PING'] },
      { client: 1, command: ['SSUBSCRIBE', 'only'] },
      { client: 0, command: ['SPUBLISH', 'only', 'refused here'] },
      { client: 1, command: ['PING'] },
      { client: 1, command: ['SUNSUBSCRIBE', 'only', 'only'] },
      { client: 1, command: ['SPUBLISH', 'only', 'to one'] },
      { client: 1, command: ['SPUBLISH', 'only'] },
      { client: 0, command: ['SUNSUBSCRIBE', 'only'] },
      { client: 0, command: ['SET', 'k', 'v'] },
      { client: 0, command: ['SPUBLISH', 'only', 'to none'] },
    ],
  },
  {
    name: 'binary shard channels and messages; RESET drops shard channels',
    clients: 2,
    steps: [
      { client: 0, command: ['SSUBSCRIBE', '\u00ff\u0000bin', '{tag}one'] },
      { client: 1, command: ['SPUBLISH', '\u00ff\u0000bin', '\r\n\u0000'] },
      { client: 1, command: ['SPUBLISH', '{tag}one', 'tagged'] },
      { client: 0, command: ['RESET'] },
      { client: 1, command: ['SPUBLISH', '{tag}one', 'after reset'] },
      { client: 1, command: ['PUBSUB', 'SHARDCHANNELS'] },
      { client: 0, command: ['GET', 'k'] },
    ],
  },
]

const latin1 = (text: string): Buffer => Buffer.from(text, 'latin1')

/** Sends one step's command to `client`. */
function send(client: RawClient, command: readonly string[]): void {
  client.write(multibulk(command.map(latin1)))
}

function isPong(reply: Reply): boolean {
  const shown = show(reply)
  return shown === '+PONG' || (Array.isArray(shown) && shown[0] === 'pong' && shown[1] === 'barrier')
}

/** Frames `client` received up to the answer to a PING barrier (which is not included). */
async function readToBarrier(client: RawClient): Promise<Reply[]> {
  client.write(multibulk(['PING', 'barrier']))
  const frames: Reply[] = []
  for (;;) {
    const [reply] = await client.read(1)
    // Outside subscribed mode PING barrier answers the bulk "barrier".
    if (isPong(reply) || show(reply) === 'barrier') return frames
    frames.push(reply)
  }
}

function normalise(frames: Reply[], step: Step, forClient: boolean): unknown[] {
  const shown = frames.map(show)
  if (!forClient || step.unordered === undefined) return shown
  if (step.unordered === 'frames') {
    // Kinds and counts in order; the names (in Redis's dict order) as a multiset.
    const names = shown.map((frame) => String((frame as unknown[])[1])).sort()
    return shown.map((frame, i) => [(frame as unknown[])[0], names[i], (frame as unknown[])[2]])
  }
  return shown.map((frame) => (Array.isArray(frame) ? [...frame].map(String).sort() : frame))
}

/** Runs a case's steps on `connect`'s clients; per step, each client's frames. */
async function transcript(kase: Case, connect: () => Promise<RawClient>, reference?: unknown[][][]): Promise<unknown[][][]> {
  const clients = await Promise.all(Array.from({ length: kase.clients }, connect))
  const out: unknown[][][] = []
  try {
    for (const [s, step] of kase.steps.entries()) {
      send(clients[step.client], step.command)
      const perClient: unknown[][] = []
      for (const [c, client] of clients.entries()) {
        // The reference (redis-server) reads to a barrier; the others read as many frames.
        const frames = reference === undefined ? await readToBarrier(client) : await client.read(reference[s][c].length)
        perClient.push(normalise(frames, step, c === step.client))
      }
      out.push(perClient)
    }
  } finally {
    for (const client of clients) client.destroy()
  }
  return out
}

describe.skipIf(redisServerSkipReason !== undefined)(liveSuiteName('RESP listener: sharded pub/sub as redis-server answers it'), () => {
  let redis: RedisServer
  let memory: MemoryExecutor
  let socket: SocketExecutor
  let overMemory: RespServer
  let overSocket: RespServer

  beforeAll(async () => {
    redis = await startRedisServer()
    memory = new MemoryExecutor()
    socket = new SocketExecutor({ port: redis.port })
    overMemory = await serveResp(memory, { port: 0 })
    overSocket = await serveResp(socket, { port: 0 })
  }, 30_000)
  afterAll(async () => {
    await overMemory?.close()
    await overSocket?.close()
    await memory?.close()
    await socket?.close()
    await redis?.stop()
  })

  for (const kase of cases) {
    test(kase.name, async () => {
      const reference = await transcript(kase, () => RawClient.connect(redis.port))
      expect(await transcript(kase, () => RawClient.connect(overMemory.address.port), reference)).toEqual(reference)
      expect(await transcript(kase, () => RawClient.connect(overSocket.address.port), reference)).toEqual(reference)
      // Nothing is left behind on either engine once the clients are gone.
      await expect.poll(() => memory.engine.pubsub.size).toEqual({ clients: 0, channels: 0, patterns: 0, shardChannels: 0 })
      await expect.poll(async () => show(await socket.exec(['PUBSUB', 'SHARDCHANNELS']))).toEqual([])
    })
  }
})
