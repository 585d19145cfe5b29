import { existsSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, test } from 'vitest'
import { makeDirectory } from '../../../../src/executor/memory/persistence/make-directory.js'

const dirs: string[] = []
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

function scratch(): string {
  const dir = mkdtempSync(join(tmpdir(), 'restis-mkdir-'))
  dirs.push(dir)
  return dir
}

const HAS_PROCFS = existsSync('/proc/self')

describe('makeDirectory (the data directory and appendonlydir)', () => {
  test('makes every missing level, and a directory already there is fine', () => {
    const root = scratch()
    const deep = join(root, 'a', 'b', 'c')
    makeDirectory(deep)
    expect(statSync(deep).isDirectory()).toBe(true)
    makeDirectory(deep)
    makeDirectory(join(root, 'a'))
    expect(statSync(deep).isDirectory()).toBe(true)
  })

  test('a file in the way is refused with what mkdir reported', () => {
    const root = scratch()
    const file = join(root, 'plain-file')
    writeFileSync(file, '')
    expect(() => makeDirectory(file)).toThrow(expect.objectContaining({ code: 'EEXIST' }))
    expect(() => makeDirectory(join(file, 'data'))).toThrow(expect.objectContaining({ code: 'ENOTDIR' }))
  })

  test('a parent that is a dangling symlink (an unmounted volume) is refused with ENOENT', () => {
    const root = scratch()
    symlinkSync(join(root, 'not-mounted'), join(root, 'volume'))
    expect(() => makeDirectory(join(root, 'volume', 'data'))).toThrow(expect.objectContaining({ code: 'ENOENT' }))
  })

  // procfs answers ENOENT to mkdir under an existing directory: Node's recursive mkdir spins on it forever.
  test.skipIf(!HAS_PROCFS)('under /proc (no procfs on this platform: skipped) it throws ENOENT at once instead of spinning', () => {
    expect(() => makeDirectory('/proc/restis-not-a-dir/data')).toThrow(expect.objectContaining({ code: 'ENOENT', path: '/proc/restis-not-a-dir' }))
    expect(() => makeDirectory('/proc/restis-not-a-dir')).toThrow(expect.objectContaining({ code: 'ENOENT' }))
  })
})
