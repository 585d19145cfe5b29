/**
 * RDB files between the engine and redis-server 7.0: a file the engine saves loads in
 * redis-server to the same keyspace, and a file redis-server saves loads in the engine to the
 * same keyspace (types, encodings, deadlines, contents, streams with their groups, databases,
 * function libraries), for a dataset with every type and encoding and for seeded random runs.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, test } from 'vitest'
import type { Executor } from '../../src/executor/executor.js'
import { handlers } from '../../src/executor/memory/commands/index.js'
import { MemoryExecutor } from '../../src/executor/memory/memory-executor.js'
import { loadRdbFile, saveRdbFileSync } from '../../src/executor/memory/persistence/rdb-io.js'
import { SocketExecutor } from '../../src/executor/socket/socket-executor.js'
import type { Command } from '../../src/reply.js'
import { ReplyError } from '../../src/reply.js'
import { CATALOGUE, generateSequence } from '../differential/generator.js'
import { describeKeyspace } from '../support/keyspace.js'
import { liveSuiteName, redisServerSkipReason, startRedisServer, type RedisServer } from '../support/redis-server.js'
import { datasetCommands, FUNCTION_COMMANDS } from './rdb-dataset.js'

const RANDOM_SEEDS = Number(process.env.RDB_RANDOM_SEEDS ?? 3)
const RANDOM_LENGTH = Number(process.env.RDB_RANDOM_LENGTH ?? 3000)

const directories: string[] = []
afterAll(() => {
  for (const dir of directories) rmSync(dir, { recursive: true, force: true })
})

function temporaryDirectory(): string {
  const dir = mkdtempSync(join(tmpdir(), 'restis-rdb-'))
  directories.push(dir)
  return dir
}

/** Runs commands (per database) and fails on the first error reply: the dataset must build. */
async function build(executor: Executor, commands: Map<number, Command[]>, functions: Command[] = FUNCTION_COMMANDS): Promise<void> {
  for (const command of functions) expect(await executor.exec(command)).not.toBeInstanceOf(ReplyError)
  for (const [db, list] of commands) {
    const replies = await executor.pipeline(list, { db })
    replies.forEach((reply, i) => expect(reply, String(list[i][0])).not.toBeInstanceOf(ReplyError))
  }
}

/** A redis-server reading (and saving) `dir/dbfilename`, with the socket executor in front. */
async function redisOn(dir: string, dbfilename = 'dump.rdb'): Promise<{ server: RedisServer; redis: SocketExecutor; close(): Promise<void> }> {
  const server = await startRedisServer({ args: ['--dir', dir, '--dbfilename', dbfilename] })
  const redis = new SocketExecutor({ url: server.url })
  return {
    server,
    redis,
    async close() {
      await redis.close()
      await server.stop()
    },
  }
}

/**
 * DUMP of each key of database `db` whose bytes do not depend on a hash table's order (Redis
 * hands hash-table sets and hashes back in its own order, which a load keeps).
 */
async function dumpsOf(executor: Executor, db: number): Promise<Record<string, string>> {
  const keys = ((await executor.exec(['KEYS', '*'], { db })) as Uint8Array[]).map((key) => Buffer.from(key).toString('latin1')).sort()
  const encodings = await executor.pipeline(keys.map((key) => ['OBJECT', 'ENCODING', key]), { db })
  const ordered = keys.filter((_, i) => String(encodings[i]) !== 'hashtable')
  const dumps = await executor.pipeline(ordered.map((key) => ['DUMP', key]), { db })
  return Object.fromEntries(ordered.map((key, i) => [key, Buffer.from(dumps[i] as Uint8Array).toString('hex')]))
}

describe.skipIf(redisServerSkipReason !== undefined)(liveSuiteName('RDB files with redis-server 7.0'), () => {
  test('a file the engine saves loads in redis-server to the same keyspace', async () => {
    const dir = temporaryDirectory()
    const memory = new MemoryExecutor({ activeExpiryInterval: 0 })
    await build(memory, datasetCommands())
    saveRdbFileSync(join(dir, 'dump.rdb'), memory.engine)
    const live = await redisOn(dir)
    try {
      const expected = await describeKeyspace(memory)
      expect(expected.length).toBeGreaterThanOrEqual(40)
      expect(await describeKeyspace(live.redis)).toEqual(expected)
      // Back again: redis-server saves what it loaded, the engine loads that, and every key
      // DUMPs to the bytes it had before the trip.
      rmSync(join(dir, 'dump.rdb'))
      expect(String(await live.redis.exec(['SAVE']))).toBe('OK')
      const back = new MemoryExecutor({ activeExpiryInterval: 0 })
      loadRdbFile(join(dir, 'dump.rdb'), back.engine)
      for (const db of datasetCommands().keys()) expect(await dumpsOf(back, db)).toEqual(await dumpsOf(memory, db))
      await back.close()
    } finally {
      await live.close()
      await memory.close()
    }
  }, 60_000)

  test('a file redis-server saves loads in the engine to the same keyspace', async () => {
    const dir = temporaryDirectory()
    const live = await redisOn(dir)
    const memory = new MemoryExecutor({ activeExpiryInterval: 0 })
    try {
      await live.redis.exec(['CONFIG', 'SET', 'rdbcompression', 'yes'])
      await build(live.redis, datasetCommands())
      expect(String(await live.redis.exec(['SAVE']))).toBe('OK')
      const result = loadRdbFile(join(dir, 'dump.rdb'), memory.engine)
      expect(result.aux.get('redis-ver')).toBe('7.0.15')
      expect(await describeKeyspace(memory)).toEqual(await describeKeyspace(live.redis))
    } finally {
      await live.close()
      await memory.close()
    }
  }, 60_000)

  const specs = CATALOGUE.filter((entry) => handlers.has(entry.name))
  for (let seed = 1; seed <= RANDOM_SEEDS; seed++) {
    test(`random run, seed ${seed}: engine → redis-server → engine keeps the keyspace`, async () => {
      const dir = temporaryDirectory()
      const original = new MemoryExecutor({ activeExpiryInterval: 0 })
      const sequence = generateSequence(seed, RANDOM_LENGTH, specs).map((entry) => entry.command)
      for (let start = 0; start < sequence.length; start += 1000) await original.pipeline(sequence.slice(start, start + 1000))
      saveRdbFileSync(join(dir, 'dump.rdb'), original.engine)
      const reloaded = new MemoryExecutor({ activeExpiryInterval: 0 })
      loadRdbFile(join(dir, 'dump.rdb'), reloaded.engine)
      const live = await redisOn(dir)
      const back = new MemoryExecutor({ activeExpiryInterval: 0 })
      try {
        // The live keyspace and its loaded copies hold the same data; encodings are compared
        // between copies loaded from the same file, since a live value keeps an encoding it
        // outgrew while a loaded one starts afresh.
        const expected = await describeKeyspace(original, { encoding: false })
        expect(expected.length).toBeGreaterThan(1)
        expect(await describeKeyspace(reloaded, { encoding: false })).toEqual(expected)
        const fromRedis = await describeKeyspace(live.redis)
        expect(await describeKeyspace(reloaded)).toEqual(fromRedis)
        // redis-server writes the file afresh (the engine's copy is gone first).
        rmSync(join(dir, 'dump.rdb'))
        expect(String(await live.redis.exec(['SAVE']))).toBe('OK')
        loadRdbFile(join(dir, 'dump.rdb'), back.engine)
        expect(await describeKeyspace(back)).toEqual(fromRedis)
      } finally {
        await live.close()
        await Promise.all([original.close(), reloaded.close(), back.close()])
      }
    }, 60_000)
  }
})
