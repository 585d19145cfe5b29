/**
 * The CLI's append-only file under `kill -9`: a real restis process takes writes from concurrent
 * clients, is killed without warning, and a new process on the same --dir must hold every write
 * that was acknowledged, under every fsync policy: the writes of a turn reach the OS before its
 * replies leave (the policies differ only when the machine fails: fsync before the reply, once a
 * second, or when the OS decides). The counts are printed. A corrupt AOF keeps the CLI from starting, with the offset in the message.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, test } from 'vitest'
import { startCli, stop, type Banner, type Cli } from './cli-process.js'

const dirs: string[] = []
const running: Cli[] = []
afterAll(async () => {
  await Promise.all(running.map((cli) => stop(cli.child, 'SIGKILL')))
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true })
})

function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'restis-aof-cli-'))
  dirs.push(dir)
  return dir
}

function launch(args: string[]): Cli {
  const cli = startCli(args)
  running.push(cli)
  return cli
}

async function call(banner: Banner, ...words: string[]): Promise<unknown> {
  const response = await fetch(`${banner.url}/${words.map(encodeURIComponent).join('/')}`, { headers: { authorization: `Bearer ${banner.token}` } })
  return ((await response.json()) as { result?: unknown }).result
}

const CLIENTS = 16
const WRITES_BEFORE_KILL = 1500

/**
 * Writes `key<n>` from {@link CLIENTS} clients until {@link WRITES_BEFORE_KILL} were acknowledged,
 * kills the process with SIGKILL while writes are still in flight, and returns the acknowledged keys.
 */
async function writeUntilKilled(cli: Cli, banner: Banner): Promise<string[]> {
  const acknowledged: string[] = []
  let next = 0
  let killed = false
  const client = async (): Promise<void> => {
    while (!killed) {
      const key = `key${next++}`
      try {
        if ((await call(banner, 'SET', key, 'v')) === 'OK' && !killed) acknowledged.push(key)
      } catch {
        return // the process is gone
      }
      if (acknowledged.length >= WRITES_BEFORE_KILL && !killed) {
        killed = true
        cli.child.kill('SIGKILL')
      }
    }
  }
  await Promise.all(Array.from({ length: CLIENTS }, client))
  await new Promise((resolve) => (cli.child.exitCode !== null || cli.child.signalCode !== null ? resolve(undefined) : cli.child.once('exit', resolve)))
  return acknowledged
}

describe('kill -9 under write load', () => {
  test.each(['always', 'everysec', 'no'] as const)('appendfsync %s: acknowledged writes survive', async (policy) => {
    const dir = tempDir()
    const first = launch(['--dir', dir, '--appendonly', 'yes', '--appendfsync', policy])
    const banner = await first.ready
    expect(first.output()).toContain(`data: ${dir}/dump.rdb (save points "3600 1 300 100 60 10000", and on shutdown; append-only file on, appendfsync ${policy})`)
    const acknowledged = await writeUntilKilled(first, banner)
    const second = launch(['--dir', dir, '--appendonly', 'yes'])
    const again = await second.ready
    const present = (await call(again, 'MGET', ...acknowledged)) as (string | null)[]
    const lost = present.filter((value) => value === null).length
    console.log(`appendfsync ${policy}: ${acknowledged.length} acknowledged writes, ${lost} lost after kill -9`)
    // Every policy hands a turn's writes to the OS before its replies (as Redis does), so killing
    // the process loses none; the policies differ when the machine itself fails.
    expect(lost).toBe(0)
    await stop(second.child, 'SIGTERM')
  })
})

describe('a damaged AOF at start', () => {
  test('a cut tail is dropped and reported; corruption in the middle stops the CLI naming the offset', async () => {
    const dir = tempDir()
    const first = launch(['--dir', dir, '--appendonly', 'yes', '--appendfsync', 'always'])
    const banner = await first.ready
    await call(banner, 'SET', 'a', '1')
    await call(banner, 'SET', 'b', '2')
    await stop(first.child, 'SIGTERM')
    const incr = path.join(dir, 'appendonlydir', 'appendonly.aof.1.incr.aof')
    fs.appendFileSync(incr, '*3\r\n$3\r\nSET\r\n$1\r\nc')
    const cut = launch(['--dir', dir, '--appendonly', 'yes'])
    const cutBanner = await cut.ready
    expect(cut.output()).toMatch(/appendonly\.aof\.1\.incr\.aof was cut: loaded up to offset \d+, dropped the last 18 bytes/)
    expect(await call(cutBanner, 'MGET', 'a', 'b', 'c')).toEqual(['1', '2', null])
    await stop(cut.child, 'SIGTERM')
    const bytes = fs.readFileSync(incr, 'latin1')
    const at = bytes.lastIndexOf('*3')
    fs.writeFileSync(incr, `${bytes.slice(0, at)}#garbage\r\n${bytes.slice(at)}`, 'latin1')
    const corrupt = launch(['--dir', dir, '--appendonly', 'yes'])
    await expect(corrupt.ready).rejects.toThrow(/exited with 1/)
    expect(corrupt.errors()).toContain(`Bad file format reading the append only file appendonly.aof.1.incr.aof at offset ${at}`)
  })
})
