/**
 * BGREWRITEAOF with `appendonly no`, against redis-server 7.0.15 doing the same steps: both
 * leave a base-only AOF directory (one base, a manifest listing only it), replace it on the next
 * rewrite, continue its sequence numbers when the AOF is turned on, and drop the increments when
 * it is turned off and rewritten again; redis-server loads the directory the engine left. And
 * what a crash leaves is cleared at start: the temporary files of interrupted saves and rewrites
 * (every other file left alone), and the files a manifest lists as history, as redis-server does.
 */
import { spawnSync } from 'node:child_process'
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, test, vi } from 'vitest'
import type { Executor } from '../../src/executor/executor.js'
import { MemoryExecutor } from '../../src/executor/memory/memory-executor.js'
import { SocketExecutor } from '../../src/executor/socket/socket-executor.js'
import type { Command, Reply } from '../../src/reply.js'
import { describeKeyspace } from '../support/keyspace.js'
import { liveSuiteName, redisServerSkipReason, startRedisServer } from '../support/redis-server.js'

const directories: string[] = []
afterAll(() => {
  for (const dir of directories) rmSync(dir, { recursive: true, force: true })
})

function temporaryDirectory(): string {
  const dir = mkdtempSync(join(tmpdir(), 'restis-aof-off-'))
  directories.push(dir)
  return dir
}

async function rewriteFinished(executor: Executor): Promise<void> {
  await vi.waitFor(
    async () => {
      const info = String(await executor.exec(['INFO', 'persistence']))
      expect(info).toMatch(/aof_rewrite_in_progress:0\r\n/)
      expect(info).toMatch(/aof_rewrite_scheduled:0\r\n/)
      expect(info).toMatch(/aof_last_bgrewrite_status:ok\r\n/)
    },
    { timeout: 20_000, interval: 20 },
  )
}

/** What the AOF directory holds: its file names and the manifest. */
function layout(dir: string): { files: string[]; manifest: string } {
  const folder = join(dir, 'appendonlydir')
  return { files: readdirSync(folder).sort(), manifest: readFileSync(join(folder, 'appendonly.aof.manifest'), 'utf8') }
}

interface Step {
  readonly commands: readonly Command[]
  /** Wait for the rewrite the step started before looking at the directory. */
  readonly rewrites: boolean
}

const STEPS: readonly Step[] = [
  { commands: [['SET', 'a', '1'], ['BGREWRITEAOF']], rewrites: true },
  { commands: [['RPUSH', 'list', 'x', 'y'], ['BGREWRITEAOF']], rewrites: true },
  { commands: [['CONFIG', 'SET', 'appendonly', 'yes']], rewrites: true },
  { commands: [['SET', 'b', '2'], ['CONFIG', 'SET', 'appendonly', 'no'], ['BGREWRITEAOF']], rewrites: true },
  // Inside MULTI/EXEC both schedule the rewrite; it starts after the block.
  { commands: [['MULTI'], ['SET', 'c', '3'], ['BGREWRITEAOF'], ['EXEC']], rewrites: true },
]

interface Trace {
  readonly replies: (Reply | string)[][]
  readonly layouts: { files: string[]; manifest: string }[]
  readonly keyspace: string[]
}

async function trace(executor: Executor, dir: string): Promise<Trace> {
  const replies: (Reply | string)[][] = []
  const layouts: { files: string[]; manifest: string }[] = []
  for (const step of STEPS) {
    const stepReplies: Reply[] = []
    for (const command of step.commands) stepReplies.push(await executor.exec(command))
    replies.push(stepReplies.map((reply) => (reply instanceof Error ? `error: ${reply.message}` : reply)))
    if (step.rewrites) await rewriteFinished(executor)
    layouts.push(layout(dir))
  }
  return { replies, layouts, keyspace: await describeKeyspace(executor) }
}

describe.skipIf(redisServerSkipReason !== undefined)(liveSuiteName('BGREWRITEAOF with appendonly no, as redis-server 7.0.15'), () => {
  test('the same replies, the same AOF directory after each step, and redis-server loads the engine’s', async () => {
    const redisDir = temporaryDirectory()
    const server = await startRedisServer({ args: ['--appendonly', 'no', '--save', '', '--dir', redisDir] })
    const redis = new SocketExecutor({ url: server.url })
    let expected: Trace
    try {
      expected = await trace(redis, redisDir)
    } finally {
      await redis.close()
      await server.stop()
    }
    expect(expected.layouts[0]).toEqual({ files: ['appendonly.aof.1.base.rdb', 'appendonly.aof.manifest'], manifest: 'file appendonly.aof.1.base.rdb seq 1 type b\n' })
    expect(expected.layouts[4].manifest).toBe('file appendonly.aof.5.base.rdb seq 5 type b\n')

    const dir = temporaryDirectory()
    const memory = new MemoryExecutor({ activeExpiryInterval: 0, persistence: { dir, save: '', appendonly: false } })
    let actual: Trace
    try {
      actual = await trace(memory, dir)
    } finally {
      await memory.close()
    }
    expect(actual).toEqual(expected)

    const check = spawnSync('redis-check-aof', [join(dir, 'appendonlydir', 'appendonly.aof.manifest')], { encoding: 'utf8' })
    expect(check.stdout + check.stderr).toContain('All AOF files and manifest are valid')
    const loader = await startRedisServer({ args: ['--appendonly', 'yes', '--dir', dir] })
    const loaded = new SocketExecutor({ url: loader.url })
    try {
      expect(await describeKeyspace(loaded)).toEqual(expected.keyspace)
    } finally {
      await loaded.close()
      await loader.stop()
    }
  }, 60_000)
})

describe('BGREWRITEAOF with appendonly no, in the engine alone', () => {
  test('the base holds the keyspace of the moment; the engine loads it with the AOF on', async () => {
    const dir = temporaryDirectory()
    const first = new MemoryExecutor({ activeExpiryInterval: 0, persistence: { dir, save: '' } })
    let expected: string[]
    try {
      await first.exec(['HSET', 'h', 'f', 'v'])
      await first.exec(['SET', 'ttl', 'v', 'PX', '600000'])
      expect(String(await first.exec(['BGREWRITEAOF']))).toBe('Background append only file rewriting started')
      expected = await describeKeyspace(first)
      // Written after the command: not in the base, as the fork's copy would not hold it.
      await first.exec(['SET', 'later', 'x'])
      await first.exec(['HSET', 'h', 'f', 'changed'])
      await rewriteFinished(first)
      expect(String(await first.exec(['INFO', 'persistence']))).toMatch(/aof_enabled:0\r\n[^]*aof_rewrites:1\r\n/)
    } finally {
      await first.close()
    }
    const second = new MemoryExecutor({ activeExpiryInterval: 0, persistence: { dir, save: '', appendonly: true } })
    try {
      expect(await describeKeyspace(second)).toEqual(expected)
    } finally {
      await second.close()
    }
  })

  test.each([
    ['on an empty keyspace (the AOF base written at once)', 0],
    ['on data (the AOF base written in slices)', 20_000],
  ])('CONFIG SET appendonly yes while it runs %s: the rewrite is abandoned, the AOF’s files stay whole', async (_, keys) => {
    const dir = temporaryDirectory()
    const memory = new MemoryExecutor({ activeExpiryInterval: 0, persistence: { dir, save: '' } })
    let expected: string[]
    try {
      for (let i = 0; i < keys; i++) memory.execSync(['SET', `k${i}`, 'v'.repeat(50)])
      // The same turn: the AOF starts before the rewrite's snapshot has written anything.
      expect(String(memory.execSync(['BGREWRITEAOF']))).toBe('Background append only file rewriting started')
      expect(String(memory.execSync(['CONFIG', 'SET', 'appendonly', 'yes']))).toBe('OK')
      memory.execSync(['SET', 'after', '1'])
      await rewriteFinished(memory)
      expected = await describeKeyspace(memory)
    } finally {
      await memory.close()
    }
    expect(layout(dir)).toEqual({
      files: ['appendonly.aof.1.base.rdb', 'appendonly.aof.1.incr.aof', 'appendonly.aof.manifest'],
      manifest: 'file appendonly.aof.1.base.rdb seq 1 type b\nfile appendonly.aof.1.incr.aof seq 1 type i\n',
    })
    const reloaded = new MemoryExecutor({ activeExpiryInterval: 0, persistence: { dir, save: '', appendonly: true } })
    try {
      expect(await describeKeyspace(reloaded)).toEqual(expected)
      expect(await reloaded.exec(['DBSIZE'])).toBe(keys + 1)
    } finally {
      await reloaded.close()
    }
  })

  test('an executor without a data directory still refuses it, saying why', async () => {
    const memory = new MemoryExecutor()
    try {
      expect(String(await memory.exec(['BGREWRITEAOF']))).toMatch(/^ERR BGREWRITEAOF needs a data directory/)
    } finally {
      await memory.close()
    }
  })
})

/** A pid no process has: one of a child that has exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', ''])
  return child.pid!
}

describe('temporary files left by a crash', () => {
  test('are removed when an executor opens the directory; other files and live writers’ files stay', async () => {
    const dir = temporaryDirectory()
    const folder = join(dir, 'appendonlydir')
    mkdirSync(folder)
    const dead = deadPid()
    const live = process.ppid
    const stale = [
      join(dir, `temp-${dead}-7-dump.rdb`), // restis's BGSAVE
      join(dir, `temp-${process.pid}-1-dump.rdb`), // this pid: a restarted process, same pid
      join(dir, `temp-${dead}.rdb`), // redis-server's BGSAVE
      join(dir, `temp-rewriteaof-bg-${dead}.aof`), // redis-server's rewrite child
      join(dir, `temp-rewriteaof-${dead}.aof`),
      join(folder, `temp-${dead}-3-appendonly.aof.2.base.rdb`), // restis's rewrite
      join(folder, `temp-appendonly.aof.manifest.${dead}`),
      join(folder, 'temp-appendonly.aof.incr'), // either server's first increment
      join(folder, 'temp-appendonly.aof.manifest'), // redis-server's manifest
    ]
    const kept = [
      join(dir, `temp-${live}.rdb`), // a running process may still be writing it
      join(dir, `temp-rewriteaof-bg-${live}.aof`),
      join(dir, 'temp-notes.txt'),
      join(dir, 'dump.rdb.bak'),
      join(folder, 'temp-other.aof.incr'),
    ]
    for (const file of [...stale, ...kept]) writeFileSync(file, 'partial')
    const notices: string[] = []
    const memory = new MemoryExecutor({ persistence: { dir, save: '', log: (line) => notices.push(line) } })
    try {
      expect(await memory.exec(['DBSIZE'])).toBe(0)
    } finally {
      await memory.close()
    }
    const remaining = [...readdirSync(dir).map((name) => join(dir, name)), ...readdirSync(folder).map((name) => join(folder, name))]
    for (const file of stale) expect(remaining, file).not.toContain(file)
    for (const file of kept) expect(remaining, file).toContain(file)
    expect(notices.filter((line) => line.startsWith('Removed the temporary file'))).toHaveLength(stale.length)
  })
})

describe.skipIf(redisServerSkipReason !== undefined)(liveSuiteName('history files listed in the manifest, at start, as redis-server 7.0.15'), () => {
  test.each(['no', 'yes'])('appendonly %s: deleted, and the manifest written without them', async (appendonly) => {
    const source = temporaryDirectory()
    const writer = new MemoryExecutor({ persistence: { dir: source, save: '', appendonly: true } })
    try {
      await writer.exec(['SET', 'a', '1'])
    } finally {
      await writer.close()
    }
    // What a crash between the new manifest and the deletions leaves: replaced files listed as `h`.
    const folder = join(source, 'appendonlydir')
    writeFileSync(join(folder, 'appendonly.aof.7.incr.aof'), '*1\r\n$4\r\nPING\r\n')
    const manifest = readFileSync(join(folder, 'appendonly.aof.manifest'), 'utf8')
    writeFileSync(join(folder, 'appendonly.aof.manifest'), `${manifest}file appendonly.aof.7.incr.aof seq 7 type h\n`)
    const redisDir = temporaryDirectory()
    const engineDir = temporaryDirectory()
    cpSync(source, redisDir, { recursive: true })
    cpSync(source, engineDir, { recursive: true })

    const server = await startRedisServer({ args: ['--appendonly', appendonly, '--save', '', '--dir', redisDir] })
    await server.stop()
    const memory = new MemoryExecutor({ persistence: { dir: engineDir, save: '', appendonly: appendonly === 'yes' } })
    await memory.close()
    expect(layout(engineDir)).toEqual(layout(redisDir))
    expect(layout(engineDir).files).not.toContain('appendonly.aof.7.incr.aof')
    expect(layout(engineDir).manifest).toBe(manifest)
  }, 30_000)
})
