/**
 * BullMQ's `getWorkers()` reads CLIENT LIST for the names its workers' connections set: against
 * the RESP listener it must find the same workers as against redis-server 7.0.15.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { Queue, Worker } from 'bullmq'
import { MemoryExecutor } from '../../src/executor/memory/memory-executor.js'
import { serveResp, type RespServer } from '../../src/adapters/resp-server.js'
import { liveSuiteName, redisServerSkipReason, startRedisServer, type RedisServer } from '../support/redis-server.js'

describe.skipIf(redisServerSkipReason !== undefined)(liveSuiteName('BullMQ getWorkers() through CLIENT LIST'), () => {
  let memory: MemoryExecutor
  let listener: RespServer
  let redis: RedisServer
  beforeAll(async () => {
    memory = new MemoryExecutor()
    listener = await serveResp(memory, { port: 0 })
    redis = await startRedisServer()
  })
  afterAll(async () => {
    await listener?.close()
    await memory?.close()
    await redis?.stop()
  })

  /** Two named workers and an unnamed one on `reports`, one on `other`: what getWorkers sees. */
  async function workersSeen(port: number): Promise<unknown> {
    const connection = { host: '127.0.0.1', port }
    const queue = new Queue('reports', { connection })
    // Not started: only their connections (and the names they set) are wanted here.
    const workers = [
      new Worker('reports', async () => undefined, { connection, name: 'alpha', autorun: false }),
      new Worker('reports', async () => undefined, { connection, name: 'beta', autorun: false }),
      new Worker('reports', async () => undefined, { connection, autorun: false }),
      new Worker('other', async () => undefined, { connection, name: 'gamma', autorun: false }),
    ]
    try {
      await Promise.all(workers.map((worker) => worker.waitUntilReady()))
      const seen = await queue.getWorkers()
      return {
        count: await queue.getWorkersCount(),
        names: seen.map((worker) => worker.name).sort(),
        rawnames: seen.map((worker) => worker.rawname).sort(),
        fields: seen.every((worker) => /^\d+$/.test(worker.id) && /^127\.0\.0\.1:\d+$/.test(worker.addr)),
      }
    } finally {
      await Promise.all(workers.map((worker) => worker.close()))
      await queue.close()
    }
  }

  test('the listener lists the same workers as redis-server', async () => {
    const ours = await workersSeen(listener.address.port)
    const theirs = await workersSeen(redis.port)
    expect(ours).toEqual(theirs)
    expect(ours).toMatchObject({ count: 3, names: ['reports', 'reports', 'reports'] })
    expect((ours as { rawnames: string[] }).rawnames.filter((name) => name.endsWith(':w:alpha'))).toHaveLength(1)
  })
})
