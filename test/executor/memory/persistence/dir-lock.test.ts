import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, test } from 'vitest'
import { MemoryExecutor } from '../../../../src/executor/memory/index.js'
import { DirLock, DirLockedError, LOCK_FILE } from '../../../../src/executor/memory/persistence/dir-lock.js'

/** One engine per data directory: `<dir>/restis.pid` (the two-process case is in test/cli/dir-lock.test.ts). */

const dirs: string[] = []
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

function dataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'restis-lock-'))
  dirs.push(dir)
  return dir
}

/** The pid of a process that has exited (its lock is stale). */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' })
  return Number(child.stdout)
}

describe('data directory lock', () => {
  test('an executor with persistence holds restis.pid with its pid and removes it on close', async () => {
    const dir = dataDir()
    const executor = new MemoryExecutor({ persistence: { dir, save: '' } })
    expect(readFileSync(join(dir, LOCK_FILE), 'latin1')).toBe(`${process.pid}\n`)
    await executor.close()
    expect(existsSync(join(dir, LOCK_FILE))).toBe(false)
    expect(readdirSync(dir)).toEqual([])
  })

  test('a directory held by another live process is refused, naming the directory and the pid', () => {
    const dir = dataDir()
    // pid 1 always runs; the lock names it as the holder.
    writeFileSync(join(dir, LOCK_FILE), '1\n')
    let refusal: unknown
    try {
      new MemoryExecutor({ persistence: { dir, save: '' } })
    } catch (error) {
      refusal = error
    }
    expect(refusal).toBeInstanceOf(DirLockedError)
    expect((refusal as Error).message).toBe(`data directory ${dir} is in use by another process (pid 1, lock file ${join(dir, LOCK_FILE)})`)
    expect(readFileSync(join(dir, LOCK_FILE), 'latin1')).toBe('1\n')
    expect(readdirSync(dir)).toEqual([LOCK_FILE])
  })

  test('engines of one process share the lock; the file goes with the last of them', async () => {
    const dir = dataDir()
    const first = new MemoryExecutor({ persistence: { dir, save: '' } })
    const second = new MemoryExecutor({ persistence: { dir, save: '' } })
    await first.close()
    expect(readFileSync(join(dir, LOCK_FILE), 'latin1')).toBe(`${process.pid}\n`)
    await second.close()
    expect(existsSync(join(dir, LOCK_FILE))).toBe(false)
  })

  test('our own pid in a lock this process does not hold is left by an earlier process (pid reuse): stale', () => {
    const dir = dataDir()
    writeFileSync(join(dir, LOCK_FILE), `${process.pid}\n`)
    const lock = DirLock.acquire(dir)
    lock.release()
    expect(readdirSync(dir)).toEqual([])
  })

  test('a lock left by a process that died is stale and taken over', async () => {
    const dir = dataDir()
    writeFileSync(join(dir, LOCK_FILE), `${deadPid()}\n`)
    const executor = new MemoryExecutor({ persistence: { dir, save: '' } })
    expect(readFileSync(join(dir, LOCK_FILE), 'latin1')).toBe(`${process.pid}\n`)
    await executor.close()
    expect(readdirSync(dir)).toEqual([])
  })

  test('a lock file holding no pid (an interrupted writer elsewhere) is stale too', () => {
    const dir = dataDir()
    writeFileSync(join(dir, LOCK_FILE), '')
    const lock = DirLock.acquire(dir)
    expect(readFileSync(join(dir, LOCK_FILE), 'latin1')).toBe(`${process.pid}\n`)
    lock.release()
    lock.release()
    expect(readdirSync(dir)).toEqual([])
  })

  test('release leaves a lock that another process has taken since', () => {
    const dir = dataDir()
    const lock = DirLock.acquire(dir)
    writeFileSync(join(dir, LOCK_FILE), '1\n')
    lock.release()
    expect(readFileSync(join(dir, LOCK_FILE), 'latin1')).toBe('1\n')
  })
})
