import { once } from 'node:events'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, test } from 'vitest'
import { startCli } from './cli-process.js'

/** Two CLI processes pointed at one --dir: the second refuses to start; the first's exit frees it. */

const dirs: string[] = []
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

describe('restis CLI data directory lock', () => {
  test('a second process on the same --dir exits 1 naming the directory and the holder; after SIGTERM or kill -9 of the holder it starts', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'restis-cli-lock-'))
    dirs.push(dir)
    const first = startCli(['--dir', dir, '--token', 't', '--save', ''])
    await first.ready
    const holder = first.child.pid!
    expect(readFileSync(join(dir, 'restis.pid'), 'latin1')).toBe(`${holder}\n`)

    const second = startCli(['--dir', dir, '--token', 't', '--save', ''])
    const [code] = await once(second.child, 'exit')
    expect(code).toBe(1)
    expect(second.errors()).toBe(`restis: data directory ${dir} is in use by another process (pid ${holder}, lock file ${join(dir, 'restis.pid')})\n`)

    first.child.kill('SIGTERM')
    expect((await once(first.child, 'exit'))[0]).toBe(0)
    expect(existsSync(join(dir, 'restis.pid'))).toBe(false)

    // A holder killed outright leaves its file; the next process finds the pid dead and takes over.
    const third = startCli(['--dir', dir, '--token', 't', '--save', ''])
    await third.ready
    third.child.kill('SIGKILL')
    await once(third.child, 'exit')
    expect(readFileSync(join(dir, 'restis.pid'), 'latin1')).toBe(`${third.child.pid}\n`)
    const fourth = startCli(['--dir', dir, '--token', 't', '--save', ''])
    await fourth.ready
    expect(readFileSync(join(dir, 'restis.pid'), 'latin1')).toBe(`${fourth.child.pid}\n`)
    fourth.child.kill('SIGTERM')
    await once(fourth.child, 'exit')
  })
})

describe('restis CLI data directory that cannot be made', () => {
  // procfs answers ENOENT to mkdir under an existing directory; Node's recursive mkdir spun on it
  // forever and the CLI hung at 100% CPU before its banner.
  test.skipIf(!existsSync('/proc/self'))('--dir under /proc (no procfs on this platform: skipped) exits 1 at once with the reason', async () => {
    const cli = startCli(['--dir', '/proc/restis-not-a-dir/data', '--token', 't'])
    const [code] = await once(cli.child, 'exit')
    expect(code).toBe(1)
    expect(cli.errors()).toBe(
      "restis: cannot use /proc/restis-not-a-dir/data as the data directory: ENOENT: no such file or directory, mkdir '/proc/restis-not-a-dir'\n",
    )
  })
})
