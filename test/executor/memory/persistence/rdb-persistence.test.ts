import { execFileSync, spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { once } from 'node:events'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, test } from 'vitest'
import { Engine } from '../../../../src/executor/memory/engine.js'
import { MemoryExecutor } from '../../../../src/executor/memory/memory-executor.js'
import { toReply } from '../../../../src/executor/memory/memory-executor.js'
import { plain, type Plain } from '../../../support/engine.js'

/** SAVE, BGSAVE, save points, SHUTDOWN and what a failing disk does (`persistence/rdb-persistence.ts`). */

const ROOT = new URL('../../../..', import.meta.url).pathname
const cleanups: (() => void)[] = []

afterEach(() => {
  for (const cleanup of cleanups.splice(0).reverse()) cleanup()
})

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'restis-rdb-'))
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

function open(dir: string, options: { save?: string; clock?: () => number; onShutdown?: () => void } = {}) {
  const engine = new Engine({ activeExpiryInterval: 0, persistence: { dir, save: options.save ?? '' }, clock: options.clock, onShutdown: options.onShutdown })
  cleanups.push(() => engine.close())
  const session = engine.createSession()
  return { engine, run: (...argv: string[]): Plain => plain(toReply(engine.call(session, argv))) }
}

const MISCONF = { error: expect.stringMatching(/^MISCONF Redis is configured to save RDB snapshots, but it's currently unable to persist to disk\./) }

describe('save points', () => {
  test('a BGSAVE starts once both the changes and the seconds of a point have passed', async () => {
    const dir = tempDir()
    let now = 1_700_000_000_000
    const { engine, run } = open(dir, { save: '10 2 100 1', clock: () => now })
    expect(run('CONFIG', 'GET', 'save')).toEqual(['save', '10 2 100 1'])
    run('SET', 'a', '1')
    now += 11_000
    engine.rdb!.cron()
    // One change: "10 2" wants two, "100 1" wants 100 s.
    expect(engine.rdb!.bgsaveInProgress).toBe(false)
    run('SET', 'b', '2')
    engine.rdb!.cron()
    expect(engine.rdb!.bgsaveInProgress).toBe(true)
    await engine.rdb!.whenIdle()
    expect(existsSync(join(dir, 'dump.rdb'))).toBe(true)
    expect(run('LASTSAVE')).toBe(1_700_000_011)
    expect(run('INFO', 'persistence')).toMatch(/rdb_changes_since_last_save:0\r\n/)
    // CONFIG SET save changes the live rules; "" turns them off.
    expect(run('CONFIG', 'SET', 'save', '')).toBe('OK')
    run('SET', 'c', '3')
    now += 1_000_000
    engine.rdb!.cron()
    expect(engine.rdb!.bgsaveInProgress).toBe(false)
  })

  test('BGSAVE inside MULTI is scheduled and starts after the block', async () => {
    const dir = tempDir()
    const { engine } = open(dir)
    const session = engine.createSession()
    const replies = engine.transaction(session, [['SET', 'k', 'v'], ['BGSAVE']]) as unknown[]
    expect(plain(toReply(replies[1] as never))).toBe('Background saving scheduled')
    expect(engine.rdb!.bgsaveInProgress).toBe(false)
    engine.rdb!.cron()
    await engine.rdb!.whenIdle()
    const reloaded = open(dir)
    expect(reloaded.run('GET', 'k')).toBe('v')
  })
})

describe('SHUTDOWN and closing', () => {
  test('SHUTDOWN SAVE writes the file then stops; NOSAVE with SAVE is a syntax error; ABORT has nothing to abort', () => {
    const dir = tempDir()
    let stopped = 0
    const { run } = open(dir, { onShutdown: () => stopped++ })
    run('SET', 'k', 'v')
    expect(run('SHUTDOWN', 'NOSAVE', 'SAVE')).toEqual({ error: 'ERR syntax error' })
    expect(run('SHUTDOWN', 'ABORT')).toEqual({ error: 'ERR No shutdown in progress.' })
    // No save points: a plain SHUTDOWN does not save.
    expect(run('SHUTDOWN')).toBe('OK')
    expect(existsSync(join(dir, 'dump.rdb'))).toBe(false)
    expect(run('SHUTDOWN', 'SAVE', 'NOW')).toBe('OK')
    expect(stopped).toBe(2)
    expect(open(dir).run('GET', 'k')).toBe('v')
  })

  test('an engine nobody can stop refuses SHUTDOWN', () => {
    const engine = new Engine({ activeExpiryInterval: 0 })
    cleanups.push(() => engine.close())
    expect(plain(toReply(engine.call(engine.createSession(), ['SHUTDOWN'])))).toEqual({ error: expect.stringMatching(/^ERR SHUTDOWN is not available/) })
  })

  test('closing an executor with save points saves; SHUTDOWN closes it', async () => {
    const dir = tempDir()
    const executor = new MemoryExecutor({ activeExpiryInterval: 0, persistence: { dir } })
    await executor.exec(['SET', 'kept', 'yes'])
    await executor.close()
    const again = new MemoryExecutor({ activeExpiryInterval: 0, persistence: { dir, save: '' } })
    expect(String(await again.exec(['GET', 'kept']))).toBe('yes')
    expect(await again.exec(['SHUTDOWN'])).toEqual(expect.objectContaining({}))
    await expect(again.exec(['PING'])).rejects.toThrow(/executor closed/)
  })
})

describe('startup', () => {
  test('the AOF wins when it is on and its manifest exists; otherwise dump.rdb loads', () => {
    const dir = tempDir()
    const first = open(dir)
    first.run('SET', 'from', 'rdb')
    first.run('SAVE')
    mkdirSync(join(dir, 'appendonlydir'))
    writeFileSync(join(dir, 'appendonlydir', 'appendonly.aof.manifest'), '')
    const withAof = new Engine({ activeExpiryInterval: 0, persistence: { dir, appendonly: true, save: '' } })
    cleanups.push(() => withAof.close())
    expect(withAof.databases[0].size).toBe(0)
    const withoutAof = open(dir)
    expect(withoutAof.run('GET', 'from')).toBe('rdb')
  })

  test('a corrupt dump.rdb refuses to start, naming the file; a data directory that is a file too', () => {
    const dir = tempDir()
    writeFileSync(join(dir, 'dump.rdb'), 'REDIS0010garbage')
    expect(() => open(dir)).toThrow(new RegExp(`cannot load ${join(dir, 'dump.rdb')}: Bad RDB file at byte`))
    const file = join(dir, 'plain-file')
    writeFileSync(file, '')
    expect(() => open(join(file, 'data'))).toThrow(/cannot use .*plain-file\/data as the data directory/)
  })
})

describe('a disk that fails', () => {
  test('a full disk fails BGSAVE cleanly, refuses writes with MISCONF, and recovers once space returns', async (context) => {
    const dir = tempDir()
    try {
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', dir], { stdio: 'ignore' })
    } catch {
      context.skip('mounting a 1 MiB tmpfs needs root (mount -t tmpfs)')
    }
    cleanups.push(() => execFileSync('umount', [dir]))
    const { engine, run } = open(dir, { save: '3600 1' })
    // Random bytes: LZF cannot shrink them below the room left.
    for (let i = 0; i < 60; i++) run('SET', `k${i}`, randomBytes(10_000).toString('base64'))
    // 600 KB of values against 1 MiB less this filler: the file cannot fit.
    writeFileSync(join(dir, 'filler'), Buffer.alloc(600_000, 1))
    expect(run('BGSAVE')).toBe('Background saving started')
    await engine.rdb!.whenIdle()
    expect(engine.rdb!.lastError?.message).toMatch(/ENOSPC/)
    expect(readdirSync(dir).sort()).toEqual(['filler', 'restis.pid'])
    expect(run('INFO', 'persistence')).toMatch(/rdb_last_bgsave_status:err/)
    expect(run('SET', 'x', '1')).toEqual(MISCONF)
    expect(run('PING')).toEqual(MISCONF)
    expect(run('GET', 'k1')).toHaveLength(13_336)
    // SAVE fails as Redis's does: a bare ERR, the old state kept.
    expect(run('SAVE')).toEqual({ error: 'ERR' })
    // stop-writes-on-bgsave-error no lifts the refusal without a save.
    run('CONFIG', 'SET', 'stop-writes-on-bgsave-error', 'no')
    expect(run('SET', 'x', '1')).toBe('OK')
    run('CONFIG', 'SET', 'stop-writes-on-bgsave-error', 'yes')
    expect(run('SET', 'x', '2')).toEqual(MISCONF)
    rmSync(join(dir, 'filler'))
    expect(run('BGSAVE')).toBe('Background saving started')
    await engine.rdb!.whenIdle()
    expect(run('INFO', 'persistence')).toMatch(/rdb_last_bgsave_status:ok/)
    expect(run('SET', 'x', '3')).toBe('OK')
    expect(readdirSync(dir)).toEqual(['dump.rdb', 'restis.pid'])
  })

  test('kill -9 during a BGSAVE leaves the previous dump.rdb whole', async () => {
    const dir = tempDir()
    const before = open(dir)
    before.run('SET', 'generation', 'old')
    before.run('SAVE')
    before.engine.close()
    // A child fills 300k keys, starts BGSAVE, says so, and is killed while the slices run.
    const script = `
      import { MemoryExecutor } from './src/executor/memory/memory-executor.ts'
      const executor = new MemoryExecutor({ activeExpiryInterval: 0, persistence: { dir: ${JSON.stringify(dir)}, save: '' } })
      executor.execSync(['SET', 'generation', 'new'])
      for (let i = 0; i < 300000; i++) executor.execSync(['SET', 'key:' + i, 'value:' + i])
      console.log(String(executor.execSync(['BGSAVE'])))
      setInterval(() => executor.execSync(['INCR', 'counter']), 1)
    `
    const child = spawn(process.execPath, ['--import', 'tsx', '--import', './scripts/text-import.mjs', '--input-type=module', '-e', script], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] })
    let output = ''
    child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()))
    while (!output.includes('Background saving started')) {
      const [chunk] = (await Promise.race([once(child.stdout!, 'data'), once(child, 'exit').then(() => { throw new Error(`child exited: ${output}`) })])) as [Buffer]
      void chunk
    }
    child.kill('SIGKILL')
    await once(child, 'exit')
    const after = open(dir)
    expect(after.run('GET', 'generation')).toBe('old')
    expect(after.run('DBSIZE')).toBe(1)
  }, 60_000)
})
