/**
 * Rewritten AOF directories between the engine and redis-server 7.0.15, in both base forms
 * (`aof-use-rdb-preamble yes`: `.base.rdb`, `no`: `.base.aof`): redis-server loads the directory
 * the engine left after BGREWRITEAOF and writes after it, and the engine loads the directory
 * redis-server left after its own BGREWRITEAOF, each to the same keyspace (every type and
 * encoding of the RDB dataset, TTLs, databases, function libraries). And, as with Redis's own
 * files, redis-server without the RedisJSON module cannot load a file holding JSON documents.
 */
import { spawnSync } from 'node:child_process'
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, test, vi } from 'vitest'
import type { Executor } from '../../src/executor/executor.js'
import { MemoryExecutor } from '../../src/executor/memory/memory-executor.js'
import { SocketExecutor } from '../../src/executor/socket/socket-executor.js'
import { ReplyError, type Command } from '../../src/reply.js'
import { describeKeyspace } from '../support/keyspace.js'
import { liveSuiteName, REDIS_SERVER_BIN, redisServerSkipReason, startRedisServer } from '../support/redis-server.js'
import { datasetCommands, FUNCTION_COMMANDS } from './rdb-dataset.js'

const directories: string[] = []
afterAll(() => {
  for (const dir of directories) rmSync(dir, { recursive: true, force: true })
})

function temporaryDirectory(): string {
  const dir = mkdtempSync(join(tmpdir(), 'restis-aof-redis-'))
  directories.push(dir)
  return dir
}

/** Runs the dataset's commands and fails on the first error reply. */
async function build(executor: Executor): Promise<void> {
  for (const command of FUNCTION_COMMANDS) expect(await executor.exec(command)).not.toBeInstanceOf(ReplyError)
  for (const [db, list] of datasetCommands()) {
    const replies = await executor.pipeline(list, { db })
    replies.forEach((reply, i) => expect(reply, String(list[i][0])).not.toBeInstanceOf(ReplyError))
  }
}

/** Writes after the rewrite started: they must be in the new increment, once. */
const AFTER: readonly Command[] = [
  ['SET', 'after:string', 'v'],
  ['INCR', 'str:int8'],
  ['RPUSH', 'after:list', 'a', 'b'],
  ['DEL', 'str:short'],
]

async function persistenceInfo(executor: Executor): Promise<string> {
  return String(await executor.exec(['INFO', 'persistence']))
}

async function rewriteFinished(executor: Executor): Promise<void> {
  await vi.waitFor(
    async () => {
      const info = await persistenceInfo(executor)
      expect(info).toMatch(/aof_rewrite_in_progress:0\r\n/)
      expect(info).toMatch(/aof_rewrite_scheduled:0\r\n/)
      expect(info).toMatch(/aof_last_bgrewrite_status:ok\r\n/)
    },
    { timeout: 20_000, interval: 50 },
  )
}

/** Consumers' seen-time is the time a replayed command touched them. */
function withoutSeenTime(lines: string[]): string[] {
  return lines.map((line) => line.replace(/"seen-time", \(integer\) \d+/g, '"seen-time", <replayed>'))
}

function manifestOf(dir: string): string {
  return readFileSync(join(dir, 'appendonlydir', 'appendonly.aof.manifest'), 'utf8')
}

const FORMATS = [
  { preamble: 'yes', suffix: '.base.rdb' },
  { preamble: 'no', suffix: '.base.aof' },
] as const

describe.skipIf(redisServerSkipReason !== undefined)(liveSuiteName('rewritten AOF directories with redis-server 7.0.15'), () => {
  test.each(FORMATS)('aof-use-rdb-preamble $preamble: redis-server loads the engine’s directory after BGREWRITEAOF', async ({ preamble, suffix }) => {
    const dir = temporaryDirectory()
    const memory = new MemoryExecutor({ activeExpiryInterval: 0, persistence: { dir, save: '', appendonly: true, appendfsync: 'always' } })
    let expected: string[]
    try {
      await memory.exec(['CONFIG', 'SET', 'aof-use-rdb-preamble', preamble])
      await build(memory)
      expect(String(await memory.exec(['BGREWRITEAOF']))).toBe('Background append only file rewriting started')
      await memory.pipeline([...AFTER])
      await rewriteFinished(memory)
      expected = await describeKeyspace(memory)
    } finally {
      await memory.close()
    }
    expect(manifestOf(dir)).toBe(`file appendonly.aof.2${suffix} seq 2 type b\nfile appendonly.aof.2.incr.aof seq 2 type i\n`)
    expect(readdirSync(join(dir, 'appendonlydir')).sort()).toEqual([`appendonly.aof.2${suffix}`, 'appendonly.aof.2.incr.aof', 'appendonly.aof.manifest'])
    const check = spawnSync('redis-check-aof', [join(dir, 'appendonlydir', 'appendonly.aof.manifest')], { encoding: 'utf8' })
    expect(check.stdout + check.stderr).toContain('All AOF files and manifest are valid')
    const server = await startRedisServer({ args: ['--appendonly', 'yes', '--dir', dir] })
    const redis = new SocketExecutor({ url: server.url })
    try {
      expect(expected.length).toBeGreaterThanOrEqual(40)
      expect(await describeKeyspace(redis)).toEqual(expected)
    } finally {
      await redis.close()
      await server.stop()
    }
  }, 60_000)

  test('redis-server without the RedisJSON module refuses a file holding JSON documents, naming the module type', async () => {
    const dir = temporaryDirectory()
    const memory = new MemoryExecutor({ activeExpiryInterval: 0, persistence: { dir, save: '' } })
    try {
      await memory.exec(['JSON.SET', 'doc', '$', '{"a":1}'])
      expect(String(await memory.exec(['SAVE']))).toBe('OK')
    } finally {
      await memory.close()
    }
    // No TCP listener (a socket file in the directory instead): the load fails before serving.
    const args = ['--port', '0', '--unixsocket', join(dir, 'redis.sock'), '--dir', dir, '--save', '', '--appendonly', 'no']
    const run = spawnSync(REDIS_SERVER_BIN, args, { encoding: 'utf8', timeout: 20_000 })
    expect(run.signal, 'redis-server stopped by itself, it did not start serving').toBeNull()
    expect(run.stdout).toContain("The RDB file contains module data I can't load: no matching module type 'ReJSON-RL'")
    // Its built-in redis-check-rdb then walks the module value (opcodes, module EOF) and the
    // checksum: the framing is Redis's, only the module is missing.
    expect(run.stdout).toContain('RDB looks OK!')
  }, 30_000)

  test.each(FORMATS)('aof-use-rdb-preamble $preamble: the engine loads redis-server’s directory after its BGREWRITEAOF', async ({ preamble, suffix }) => {
    const dir = temporaryDirectory()
    const server = await startRedisServer({ args: ['--appendonly', 'yes', '--appendfsync', 'always', '--aof-use-rdb-preamble', preamble, '--dir', dir] })
    const redis = new SocketExecutor({ url: server.url })
    let expected: string[]
    try {
      await build(redis)
      expect(String(await redis.exec(['BGREWRITEAOF']))).toBe('Background append only file rewriting started')
      await rewriteFinished(redis)
      await redis.pipeline([...AFTER])
      expected = await describeKeyspace(redis)
    } finally {
      await redis.close()
      await server.stop()
    }
    expect(manifestOf(dir)).toContain(`${suffix} seq 2 type b\n`)
    if (preamble === 'no') {
      // Redis's command form rebuilds each stream entry by entry (XADD, XSETID, XGROUP, XCLAIM):
      // the radix tree's shape and the consumers' seen-time come from the replay, in redis-server
      // too. The reference is then redis-server loading the same directory, seen-time aside.
      const copy = temporaryDirectory()
      cpSync(join(dir, 'appendonlydir'), join(copy, 'appendonlydir'), { recursive: true })
      const again = await startRedisServer({ args: ['--appendonly', 'yes', '--dir', copy] })
      const reloaded = new SocketExecutor({ url: again.url })
      try {
        expected = withoutSeenTime(await describeKeyspace(reloaded))
      } finally {
        await reloaded.close()
        await again.stop()
      }
    }
    const memory = new MemoryExecutor({ activeExpiryInterval: 0, persistence: { dir, save: '', appendonly: true } })
    try {
      expect(expected.length).toBeGreaterThanOrEqual(40)
      const loaded = await describeKeyspace(memory)
      expect(preamble === 'no' ? withoutSeenTime(loaded) : loaded).toEqual(expected)
    } finally {
      await memory.close()
    }
  }, 60_000)
})
