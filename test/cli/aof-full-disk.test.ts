/**
 * A full disk under the CLI's append-only file, for real: the data directory is a small tmpfs,
 * filled up while restis writes to it. Writes must then be refused with Redis's MISCONF error
 * (reads still served), accepted again once space returns, and the AOF left loadable with every
 * acknowledged write. Mounting needs root (CAP_SYS_ADMIN): elsewhere the suite is skipped with
 * the reason in its name.
 */
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { startCli, stop, type Banner, type Cli } from './cli-process.js'

const mountPoint = fs.mkdtempSync(path.join(os.tmpdir(), 'restis-aof-full-'))
const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', mountPoint], { encoding: 'utf8' })
const skipReason = mounted.status === 0 ? undefined : `cannot mount a tmpfs here: ${(mounted.stderr || mounted.error?.message || '').trim()}`

const running: Cli[] = []
afterAll(async () => {
  await Promise.all(running.map((cli) => stop(cli.child, 'SIGKILL')))
  if (skipReason === undefined) spawnSync('umount', [mountPoint])
  fs.rmSync(mountPoint, { recursive: true, force: true })
})

async function call(banner: Banner, ...words: string[]): Promise<{ result?: unknown; error?: string }> {
  const response = await fetch(`${banner.url}/${words.map(encodeURIComponent).join('/')}`, { headers: { authorization: `Bearer ${banner.token}` } })
  return (await response.json()) as { result?: unknown; error?: string }
}

describe.skipIf(skipReason !== undefined)(`AOF on a full disk${skipReason === undefined ? '' : ` (skipped: ${skipReason})`}`, () => {
  let cli: Cli
  let banner: Banner
  beforeAll(async () => {
    cli = startCli(['--dir', mountPoint, '--appendonly', 'yes', '--appendfsync', 'always'])
    running.push(cli)
    banner = await cli.ready
  })

  test('writes are refused with MISCONF while the disk is full, reads go on, and writes resume when space returns', async () => {
    const { bavail, bsize } = fs.statfsSync(mountPoint)
    // Leave about 16 KB free: a few 2 KB values fit, then the disk is full.
    const filler = path.join(mountPoint, 'filler')
    fs.writeFileSync(filler, Buffer.alloc(Math.max(0, bavail * bsize - 16 * 1024)))
    const value = 'v'.repeat(2048)
    const acknowledged: string[] = []
    let refusal: string | undefined
    for (let i = 0; i < 200 && refusal === undefined; i++) {
      const reply = await call(banner, 'SET', `key${i}`, value)
      if (reply.result === 'OK') acknowledged.push(`key${i}`)
      else refusal = reply.error
    }
    expect(refusal).toMatch(/^MISCONF Errors writing to the AOF file: ENOSPC/)
    expect(acknowledged.length).toBeGreaterThan(0)
    expect((await call(banner, 'SET', 'later', '1')).error).toMatch(/^MISCONF Errors writing to the AOF file/)
    expect((await call(banner, 'GET', acknowledged[0])).result).toBe(value)
    expect((await call(banner, 'INFO', 'persistence')).result).toMatch(/aof_last_write_status:err/)

    fs.rmSync(filler)
    await expect.poll(async () => (await call(banner, 'SET', 'after-recovery', '1')).result, { timeout: 10_000, interval: 200 }).toBe('OK')
    expect(cli.output()).toContain('AOF write error looks solved, the AOF can write again.')
    await stop(cli.child, 'SIGTERM')

    const again = startCli(['--dir', mountPoint, '--appendonly', 'yes'])
    running.push(again)
    const reopened = await again.ready
    const values = (await call(reopened, 'MGET', ...acknowledged, 'after-recovery')).result as (string | null)[]
    expect(values.slice(0, -1).every((found) => found === value)).toBe(true)
    expect(values.at(-1)).toBe('1')
    await stop(again.child, 'SIGTERM')
  })
})
