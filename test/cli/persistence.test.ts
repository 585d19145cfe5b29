import { once } from 'node:events'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, test } from 'vitest'
import { startCli } from './cli-process.js'

/** The CLI is durable by default: its data directory, the banner's word on it, and the opt-out. */

const dirs: string[] = []
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

async function call(url: string, token: string, path: string): Promise<unknown> {
  const response = await fetch(`${url}${path}`, { headers: { authorization: `Bearer ${token}` } })
  const body = (await response.json()) as { result?: unknown; error?: string }
  return body.error ?? body.result
}

describe('restis CLI persistence', () => {
  test('--dir keeps the data across a SIGTERM and a restart; the banner names the file and the save points', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'restis-cli-dir-'))
    dirs.push(dir)
    const first = startCli(['--dir', dir, '--token', 't'])
    const { url } = await first.ready
    expect(first.output()).toContain(`data: ${join(dir, 'dump.rdb')} (save points "3600 1 300 100 60 10000", and on shutdown)`)
    expect(await call(url, 't', '/set/kept/across-restarts')).toBe('OK')
    first.child.kill('SIGTERM')
    expect((await once(first.child, 'exit'))[0]).toBe(0)
    expect(existsSync(join(dir, 'dump.rdb'))).toBe(true)
    const second = startCli(['--dir', dir, '--token', 't', '--save', ''])
    const again = await second.ready
    expect(second.output()).toContain('(no save points: written by SAVE and BGSAVE only)')
    expect(await call(again.url, 't', '/get/kept')).toBe('across-restarts')
    expect(await call(again.url, 't', '/lastsave')).toEqual(expect.any(Number))
    second.child.kill('SIGTERM')
    await once(second.child, 'exit')
  })

  test('--no-persistence writes nothing and says so; contradictory or bad flags exit with status 2', async () => {
    const cli = startCli(['--no-persistence', '--token', 't'])
    const { url } = await cli.ready
    expect(cli.output()).toContain('data: in memory only (--no-persistence): nothing is written to disk')
    expect(await call(url, 't', '/save')).toMatch(/persistence is off/)
    cli.child.kill('SIGTERM')
    await once(cli.child, 'exit')
    for (const [args, message] of [
      [['--no-persistence', '--dir', '/tmp/x'], '--dir contradicts --no-persistence'],
      [['--save', '60'], 'invalid save points'],
      [['--redis', 'redis://127.0.0.1:1', '--save', '60 1'], '--save is for the in-memory engine'],
    ] as const) {
      const bad = startCli([...args])
      const [code] = await once(bad.child, 'exit')
      expect(code).toBe(2)
      expect(bad.errors()).toContain(message)
    }
  })
})
