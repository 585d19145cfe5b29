import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, test } from 'vitest'
import { MemoryExecutor } from '../../../../src/executor/memory/index.js'
import { checkPersistenceOptions } from '../../../../src/executor/memory/persistence/persistence-options.js'

const dirs: string[] = []
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

function dataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'restis-options-'))
  dirs.push(dir)
  return dir
}

/** What a JavaScript caller may pass, past the types. */
const make = (persistence: unknown) => () => new MemoryExecutor({ persistence } as never)

describe('persistence options from JavaScript: refused by name, never ignored', () => {
  test('valid options pass, every key included', () => {
    expect(() =>
      checkPersistenceOptions({ dir: '/data', dbfilename: 'dump.rdb', save: '', appendonly: true, appendfsync: 'no', appendfilename: 'a.aof', appenddirname: 'aofs', log: () => {} }),
    ).not.toThrow()
  })

  test.each([
    [{ dir: '/d', appendfsync: 'sometimes' }, 'invalid persistence.appendfsync: "sometimes" (\'always\', \'everysec\' or \'no\')'],
    [{ dir: '/d', appendonly: 'yes' }, 'invalid persistence.appendonly: "yes" (true or false)'],
    [{ dir: '' }, 'invalid persistence.dir: "" (a directory path, not empty)'],
    [{ dir: 7 }, 'invalid persistence.dir: 7 (a directory path, not empty)'],
    [{ appendonly: true }, 'persistence.dir is required: the data directory'],
    [{ dir: '/d', dbfilename: '../outside.rdb' }, 'invalid persistence.dbfilename: "../outside.rdb" (a file name, not a path, as Redis\'s dbfilename)'],
    [{ dir: '/d', dbfilename: '..' }, 'invalid persistence.dbfilename: ".."'],
    [{ dir: '/d', appendfilename: 'sub/a.aof' }, 'invalid persistence.appendfilename: "sub/a.aof"'],
    [{ dir: '/d', appenddirname: '/tmp/aof' }, 'invalid persistence.appenddirname: "/tmp/aof"'],
    [{ dir: '/d', save: 3600 }, 'invalid persistence.save: 3600'],
    [{ dir: '/d', log: 'console' }, 'invalid persistence.log: "console" (a function taking a line)'],
    [{ dir: '/d', appendFsync: 'always' }, "unknown persistence option 'appendFsync' (known: dir, dbfilename, save, appendonly, appendfsync, appendfilename, appenddirname, log)"],
    ['/data', 'persistence must be an object with at least dir, got "/data"'],
  ])('%j is refused: %s', (options, message) => {
    expect(() => checkPersistenceOptions(options)).toThrow(TypeError)
    expect(() => checkPersistenceOptions(options)).toThrow(message)
  })

  test('MemoryExecutor checks before it touches the disk: nothing is written, not even the lock', () => {
    const dir = dataDir()
    expect(make({ dir, appendonly: true, appendfsync: 'bogus' })).toThrow('invalid persistence.appendfsync')
    expect(make({ dir, dbfilename: '../escape.rdb' })).toThrow('invalid persistence.dbfilename')
    expect(readdirSync(dir)).toEqual([])
    expect(existsSync(join(dir, '..', 'escape.rdb'))).toBe(false)
  })
})
