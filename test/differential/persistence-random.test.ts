/**
 * The persistence differential of issue 16: one seeded random run of 200,000 commands (the
 * generator of the differential suite, spread over four databases) ends with the same keyspace
 * (a) after a restart from the append-only file, with a BGREWRITEAOF half-way so the reload goes
 * through an RDB-preamble base written while the run went on, plus its increment; and
 * (b) after an RDB round trip restis → redis-server 7.0.15 → restis.
 *
 * Knobs (environment): PERSISTENCE_RANDOM_SEED (default 16), PERSISTENCE_RANDOM_LENGTH
 * (default 200000).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, test, vi } from 'vitest'
import { handlers } from '../../src/executor/memory/commands/index.js'
import { MemoryExecutor } from '../../src/executor/memory/memory-executor.js'
import { loadRdbFile, saveRdbFileSync } from '../../src/executor/memory/persistence/rdb-io.js'
import { SocketExecutor } from '../../src/executor/socket/socket-executor.js'
import { describeKeyspace } from '../support/keyspace.js'
import { keyspaceOf } from '../support/keyspace-snapshot.js'
import { liveSuiteName, redisServerSkipReason, startRedisServer } from '../support/redis-server.js'
import { CATALOGUE, generateSequence } from './generator.js'

const SEED = Number(process.env.PERSISTENCE_RANDOM_SEED ?? 16)
const LENGTH = Number(process.env.PERSISTENCE_RANDOM_LENGTH ?? 200_000)
const BATCH = 1000
const DATABASES = 4

const directories: string[] = []
afterAll(() => {
  for (const dir of directories) rmSync(dir, { recursive: true, force: true })
})

function temporaryDirectory(): string {
  const dir = mkdtempSync(join(tmpdir(), 'restis-persistence-random-'))
  directories.push(dir)
  return dir
}

const specs = CATALOGUE.filter((entry) => handlers.has(entry.name))

/** Runs the seeded sequence, batch by batch, each batch on the next of {@link DATABASES}. */
async function runSequence(executor: MemoryExecutor, onHalfway: () => Promise<void>): Promise<void> {
  const sequence = generateSequence(SEED, LENGTH, specs).map((entry) => entry.command)
  for (let start = 0, batch = 0; start < sequence.length; start += BATCH, batch++) {
    if (start === Math.floor(sequence.length / BATCH / 2) * BATCH) await onHalfway()
    await executor.pipeline(sequence.slice(start, start + BATCH), { db: batch % DATABASES })
  }
}

describe.skipIf(redisServerSkipReason !== undefined)(liveSuiteName(`persistence differential: ${LENGTH} random commands, seed ${SEED}`), () => {
  const dir = temporaryDirectory()
  /** The engine reloaded from the AOF, which (b) saves from. */
  let reloaded: MemoryExecutor | undefined

  afterAll(() => reloaded?.close())

  test('(a) a restart from the AOF (rewritten half-way, RDB-preamble base + increment) has the same keyspace', async () => {
    const lines: string[] = []
    const original = new MemoryExecutor({ activeExpiryInterval: 0, persistence: { dir, save: '', appendonly: true, appendfsync: 'no', log: (line) => lines.push(line) } })
    let before: Record<string, unknown>
    try {
      await runSequence(original, async () => {
        expect(String(await original.exec(['BGREWRITEAOF']))).toBe('Background append only file rewriting started')
      })
      await vi.waitFor(() => expect(lines).toContain('Background AOF rewrite finished successfully'), { timeout: 30_000 })
      before = await keyspaceOf(original, 'exact', DATABASES)
    } finally {
      await original.close()
    }
    expect(Object.keys(before).length).toBeGreaterThan(DATABASES)
    reloaded = new MemoryExecutor({ activeExpiryInterval: 0, persistence: { dir, save: '', appendonly: true } })
    expect(await keyspaceOf(reloaded, 'exact', DATABASES)).toEqual(before)
  }, 120_000)

  test('(b) an RDB round trip restis → redis-server 7.0.15 → restis keeps the keyspace', async () => {
    const source = reloaded
    expect(source, '(a) leaves the reloaded engine').toBeDefined()
    if (source === undefined) return
    const rdbDir = temporaryDirectory()
    saveRdbFileSync(join(rdbDir, 'dump.rdb'), source.engine)
    const expected = await describeKeyspace(source, { encoding: false, databases: DATABASES })
    const server = await startRedisServer({ args: ['--dir', rdbDir] })
    const redis = new SocketExecutor({ url: server.url })
    const back = new MemoryExecutor({ activeExpiryInterval: 0 })
    try {
      expect(await describeKeyspace(redis, { encoding: false, databases: DATABASES })).toEqual(expected)
      const fromRedis = await describeKeyspace(redis, { databases: DATABASES })
      rmSync(join(rdbDir, 'dump.rdb'))
      expect(String(await redis.exec(['SAVE']))).toBe('OK')
      loadRdbFile(join(rdbDir, 'dump.rdb'), back.engine)
      expect(await describeKeyspace(back, { databases: DATABASES })).toEqual(fromRedis)
    } finally {
      await redis.close()
      await server.stop()
      await back.close()
    }
  }, 120_000)
})
