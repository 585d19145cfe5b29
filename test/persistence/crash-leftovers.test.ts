/**
 * A process killed (SIGKILL) in the middle of a BGSAVE and in the middle of the first AOF base
 * leaves its temporary files in the data directory; the next executor opened on the directory
 * removes them and starts from what was complete before the crash.
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, test, vi } from 'vitest'
import { MemoryExecutor } from '../../src/executor/memory/memory-executor.js'

const directories: string[] = []
afterAll(() => {
  for (const dir of directories) rmSync(dir, { recursive: true, force: true })
})

const KEYS = 200_000

/**
 * A child process that fills an engine with {@link KEYS} keys on `dir`, then runs `command`
 * (a background save or rewrite, written in slices between event-loop turns) and stays alive.
 */
function writer(dir: string, command: readonly string[], appendonly: boolean) {
  const script = `
    import { MemoryExecutor } from './src/executor/memory/memory-executor.ts'
    const memory = new MemoryExecutor({ persistence: { dir: ${JSON.stringify(dir)}, save: '', appendonly: ${appendonly} } })
    for (let i = 0; i < ${KEYS}; i++) memory.execSync(['SET', 'key:' + i, 'x'.repeat(100)])
    console.log(String(memory.execSync(${JSON.stringify(command)})))
    setInterval(() => memory.execSync(['INCR', 'alive']), 1)
  `
  const child = spawn(process.execPath, ['--import', 'tsx', '--import', './scripts/text-import.mjs', '--input-type=module', '-e', script], {
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()))
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  return { child, exited, output: () => output }
}

function temporaryFiles(folder: string): string[] {
  try {
    return readdirSync(folder).filter((name) => name.startsWith('temp-'))
  } catch {
    return []
  }
}

describe('kill -9 during a save or a rewrite', () => {
  test('BGSAVE: the partial temporary snapshot is removed at the next start; no dump.rdb appears', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'restis-crash-bgsave-'))
    directories.push(dir)
    const proc = writer(dir, ['BGSAVE'], false)
    try {
      await vi.waitFor(() => expect(temporaryFiles(dir), proc.output()).not.toEqual([]), { timeout: 60_000, interval: 1 })
    } finally {
      proc.child.kill('SIGKILL')
      await proc.exited
    }
    const left = temporaryFiles(dir)
    expect(left).toEqual([expect.stringMatching(/^temp-\d+-\d+-dump\.rdb$/)])
    const memory = new MemoryExecutor({ persistence: { dir, save: '' } })
    try {
      expect(await memory.exec(['DBSIZE'])).toBe(0)
    } finally {
      await memory.close()
    }
    expect(readdirSync(dir)).toEqual([])
  }, 90_000)

  test('CONFIG SET appendonly yes on data: the temporary base and increment are removed; the AOF starts afresh', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'restis-crash-aof-'))
    directories.push(dir)
    const folder = join(dir, 'appendonlydir')
    const proc = writer(dir, ['CONFIG', 'SET', 'appendonly', 'yes'], false)
    try {
      await vi.waitFor(() => expect(temporaryFiles(folder).length, proc.output()).toBe(2), { timeout: 60_000, interval: 1 })
    } finally {
      proc.child.kill('SIGKILL')
      await proc.exited
    }
    expect(temporaryFiles(folder).sort()).toEqual([expect.stringMatching(/^temp-\d+-\d+-appendonly\.aof\.1\.base\.rdb$/), 'temp-appendonly.aof.incr'])
    const memory = new MemoryExecutor({ persistence: { dir, save: '', appendonly: true } })
    try {
      expect(await memory.exec(['DBSIZE'])).toBe(0)
    } finally {
      await memory.close()
    }
    expect(readdirSync(folder).sort()).toEqual(['appendonly.aof.1.base.rdb', 'appendonly.aof.1.incr.aof', 'appendonly.aof.manifest'])
  }, 90_000)
})
