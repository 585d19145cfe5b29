/**
 * The AOF against redis-server 7.0.15: the commands restis logs for each rewritten command equal
 * those redis-server logs for the same commands (timestamps and generated stream IDs compared
 * within a few seconds), redis-check-aof accepts restis's manifest, and redis-server loads
 * restis's AOF directory to the same keyspace. Then the seeded random run (generator.ts) replayed
 * from restis's own AOF ends with the keyspace it was logged from.
 */
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, test } from 'vitest'
import { handlers } from '../../src/executor/memory/commands/index.js'
import { MemoryExecutor } from '../../src/executor/memory/memory-executor.js'
import { replayAof } from '../../src/executor/memory/persistence/aof-format.js'
import { SocketExecutor } from '../../src/executor/socket/socket-executor.js'
import type { Command, Reply } from '../../src/reply.js'
import { keyspaceOf } from '../support/keyspace-snapshot.js'
import { startRedisServer } from '../support/redis-server.js'
import { CATALOGUE, generateSequence } from './generator.js'
import { describeDifferential } from './harness.js'

const made: string[] = []
function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'restis-aof-diff-'))
  made.push(dir)
  return dir
}
afterAll(() => {
  for (const dir of made) fs.rmSync(dir, { recursive: true, force: true })
})

const redisDir = tempDir()
const restisDir = tempDir()

/** The increment file a manifest lists last. */
function incrPath(dir: string): string {
  const folder = path.join(dir, 'appendonlydir')
  const manifest = fs.readFileSync(path.join(folder, 'appendonly.aof.manifest'), 'utf8')
  const names = [...manifest.matchAll(/file (\S+) seq \d+ type i/g)].map((match) => match[1])
  return path.join(folder, names.at(-1)!)
}

/** The commands of `file` from byte `from` on. */
function commandsFrom(file: string, from: number): string[][] {
  const out: string[][] = []
  replayAof(fs.readFileSync(file).subarray(from).toString('latin1'), file, (argv) => out.push(argv))
  return out
}

/** Epoch-millisecond words near now (and stream IDs made of them) become placeholders. */
function normalized(commands: string[][]): string[][] {
  const now = Date.now()
  const near = (ms: string): boolean => Math.abs(Number(ms) - now) < 600_000
  return commands.map((argv) =>
    argv.map((word) => {
      if (/^\d{13}$/.test(word) && near(word)) return '<ms>'
      const id = /^(\d{13})-(\d+)$/.exec(word)
      if (id !== null && near(id[1])) return `<ms>-${id[2]}`
      return word
    }),
  )
}

/** A reply as compared: generated IDs as placeholders, SPOP's members in order (Redis picks at random). */
function comparable(command: Command, reply: Reply): unknown {
  const value = text(reply)
  if (String(command[0]).toUpperCase() === 'SPOP' && Array.isArray(value)) return [...(value as string[])].sort()
  return typeof value === 'string' ? normalized([[value]])[0][0] : value
}

const text = (reply: Reply): unknown => (Buffer.isBuffer(reply) ? reply.toString('latin1') : Array.isArray(reply) ? reply.map(text) : reply)

/** Cases: each runs on both servers from empty databases; the logged commands must match. */
const CASES: readonly { readonly name: string; readonly commands: readonly Command[]; readonly db?: number }[] = [
  { name: 'relative expirations become absolute', commands: [['SET', 'a', '1', 'EX', '100'], ['SET', 'b', '1', 'PX', '100000'], ['SET', 'c', '1', 'EXAT', '99999999999'], ['SET', 'd', '1', 'PXAT', '99999999999000'], ['SETEX', 'e', '100', 'v'], ['PSETEX', 'f', '100000', 'v'], ['EXPIRE', 'a', '200'], ['PEXPIRE', 'a', '300000'], ['EXPIREAT', 'a', '99999999999'], ['PEXPIREAT', 'a', '99999999999000']] },
  { name: 'an expiration in the past deletes, and logs DEL', commands: [['SET', 'a', '1'], ['EXPIRE', 'a', '-1'], ['SET', 'b', '1'], ['PEXPIREAT', 'b', '1000']] },
  { name: 'SET with GET, NX, XX', commands: [['SET', 'x', '1', 'NX', 'GET'], ['SET', 'x', '2', 'NX'], ['SET', 'x', '3', 'XX', 'GET'], ['SET', 'y', '1', 'XX'], ['SET', 'x', '4', 'PX', '100000', 'GET'], ['SET', 'x', '5', 'KEEPTTL']] },
  { name: 'GETEX and GETDEL', commands: [['SET', 'b', 'v'], ['GETEX', 'b'], ['GETEX', 'b', 'EX', '50'], ['GETEX', 'b', 'PERSIST'], ['GETEX', 'nokey', 'EX', '5'], ['GETDEL', 'b'], ['GETDEL', 'b']] },
  { name: 'float increments log the stored value', commands: [['INCRBYFLOAT', 'f', '1.5'], ['INCRBYFLOAT', 'f', '0.1'], ['HINCRBYFLOAT', 'h', 'x', '2.5']] },
  { name: 'SPOP logs what it removed', commands: [['SADD', 's', 'only'], ['SPOP', 's'], ['SADD', 't', 'a', 'b', 'c'], ['SPOP', 't', '5'], ['SPOP', 't'], ['SPOP', 't', '3']] },
  { name: 'writes that change nothing are not logged', commands: [['DEL', 'nokey'], ['SADD', 's', 'a'], ['SADD', 's', 'a'], ['SREM', 's', 'zz'], ['LPUSH', 'l', 'a'], ['LPOP', 'l'], ['LPOP', 'l'], ['EXPIRE', 'nokey', '10'], ['SET', 'p', '1'], ['PERSIST', 'p'], ['HSET', 'h', 'a', '1'], ['HSET', 'h', 'a', '1'], ['HDEL', 'h', 'zz'], ['ZREM', 'nokey', 'a'], ['SETNX', 'p', '2'], ['PFADD', 'hll', 'a'], ['PFADD', 'hll', 'a']] },
  { name: 'XADD logs the ID it chose; XREADGROUP logs claims and the group position', commands: [['XADD', 'st', '*', 'a', '1'], ['XADD', 'st', '5-*', 'a', '2'], ['XADD', 'nostream', 'NOMKSTREAM', '*', 'a', '1'], ['XGROUP', 'CREATE', 'st2', 'g', '0', 'MKSTREAM'], ['XADD', 'st2', '1-1', 'a', '1'], ['XADD', 'st2', '1-2', 'b', '2'], ['XREADGROUP', 'GROUP', 'g', 'c', 'COUNT', '1', 'STREAMS', 'st2', '>'], ['XREADGROUP', 'GROUP', 'g', 'c', 'NOACK', 'STREAMS', 'st2', '>'], ['XACK', 'st2', 'g', '1-1']] },
  { name: 'scripts log their effects atomically, a single effect alone', commands: [['EVAL', "redis.call('set', KEYS[1], 'v'); redis.call('incr', KEYS[2])", '2', 'k', 'n'], ['EVAL', "redis.call('set', KEYS[1], 'w')", '1', 'k'], ['EVAL', "return redis.call('get', KEYS[1])", '1', 'k']] },
  { name: 'other databases are SELECTed', db: 3, commands: [['SET', 'y', '1'], ['RPUSH', 'l', 'a', 'b']] },
]

describeDifferential(
  'AOF propagation against redis-server',
  (live) => {
    let memory: MemoryExecutor
    test.each(CASES)('$name', async ({ commands, db }) => {
      memory = live.memory
      await Promise.all([live.memory.exec(['FLUSHALL']), live.redis.exec(['FLUSHALL'])])
      const [ourFile, theirFile] = [incrPath(restisDir), incrPath(redisDir)]
      const [ourStart, theirStart] = [fs.statSync(ourFile).size, fs.statSync(theirFile).size]
      for (const command of commands) {
        const [ours, theirs] = await Promise.all([live.memory.exec(command, { db }), live.redis.exec(command, { db })])
        expect(comparable(command, ours), String(command)).toEqual(comparable(command, theirs))
      }
      // appendfsync always on both: each reply came after its write reached the file.
      expect(normalized(commandsFrom(ourFile, ourStart))).toEqual(normalized(commandsFrom(theirFile, theirStart)))
    })

    test('redis-check-aof accepts the manifest, and redis-server loads the directory to the same keyspace', async () => {
      memory = live.memory
      await memory.pipeline([
        ['FLUSHALL'],
        ['SET', 's', 'v', 'EX', '1000'],
        ['RPUSH', 'l', 'a', 'b'],
        ['HSET', 'h', 'f', 'v'],
        ['ZADD', 'z', '1', 'a'],
        ['SADD', 'set', '1', '2', 'x'],
        ['XADD', 'st', '*', 'f', 'v'],
        ['XGROUP', 'CREATE', 'st', 'g', '0'],
        ['XREADGROUP', 'GROUP', 'g', 'c', 'STREAMS', 'st', '>'],
      ])
      await memory.exec(['SET', 'other-db', '1'], { db: 5 })
      await memory.exec(['BGREWRITEAOF'])
      await memory.exec(['SET', 'after-rewrite', '1'])
      const copy = tempDir()
      await expect.poll(() => memoryRewriting(memory), { timeout: 10_000 }).toBe(false)
      fs.cpSync(path.join(restisDir, 'appendonlydir'), path.join(copy, 'appendonlydir'), { recursive: true })
      const check = spawnSync('redis-check-aof', [path.join(copy, 'appendonlydir', 'appendonly.aof.manifest')], { encoding: 'utf8' })
      expect(check.stdout + check.stderr).toContain('All AOF files and manifest are valid')
      expect(check.status).toBe(0)
      const server = await startRedisServer({ args: ['--appendonly', 'yes', '--dir', copy] })
      const loaded = new SocketExecutor({ url: server.url })
      try {
        expect(await keyspaceOf(loaded, 'logical')).toEqual(await keyspaceOf(memory, 'logical'))
      } finally {
        await loaded.close()
        await server.stop()
      }
    })
  },
  {
    serverArgs: ['--appendonly', 'yes', '--appendfsync', 'always', '--dir', redisDir],
    memory: { persistence: { dir: restisDir, appendonly: true, appendfsync: 'always' } },
    flushBeforeEach: false,
  },
)

async function memoryRewriting(memory: MemoryExecutor): Promise<boolean> {
  const info = text(await memory.exec(['INFO', 'persistence'])) as string
  return /aof_rewrite_in_progress:1/.test(info)
}

const SEEDS = Number(process.env.AOF_RANDOM_SEEDS ?? 3)
const LENGTH = Number(process.env.AOF_RANDOM_LENGTH ?? 4000)
const specs = CATALOGUE.filter((entry) => handlers.has(entry.name))

describe('AOF replay of the seeded random run', () => {
  test.each(Array.from({ length: SEEDS }, (_, i) => i + 1))('seed %i: a fresh engine loaded from the AOF has the same keyspace', async (seed) => {
    const dir = tempDir()
    const first = new MemoryExecutor({ activeExpiryInterval: 0, persistence: { dir, appendonly: true, appendfsync: 'no' } })
    const sequence = generateSequence(seed, LENGTH, specs)
    for (let i = 0; i < sequence.length; i += 500) await first.pipeline(sequence.slice(i, i + 500).map((entry) => entry.command))
    const before = await keyspaceOf(first, 'exact')
    await first.close()
    const second = new MemoryExecutor({ activeExpiryInterval: 0, persistence: { dir, appendonly: true } })
    try {
      expect(Object.keys(before).length).toBeGreaterThan(0)
      expect(await keyspaceOf(second, 'exact')).toEqual(before)
    } finally {
      await second.close()
    }
  })
})
