/**
 * The append-only file of the memory executor: what a restart loads, how a cut or corrupt file
 * is handled, the rewrite, the fsync policies' replies and a failing disk.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, test, vi } from 'vitest'
import { MemoryExecutor, type MemoryExecutorOptions } from '../../../src/executor/memory/memory-executor.js'
import type { PersistenceOptions } from '../../../src/executor/memory/persistence/rdb-persistence.js'
import { AofFormatError } from '../../../src/executor/memory/persistence/aof-format.js'
import { ReplyError, type Command, type Reply } from '../../../src/reply.js'
import { keyspaceOf } from '../../support/keyspace-snapshot.js'

const dirs: string[] = []
const open: MemoryExecutor[] = []

function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'restis-aof-'))
  dirs.push(dir)
  return dir
}

function executor(persistence: PersistenceOptions, options: MemoryExecutorOptions = {}): MemoryExecutor {
  const made = new MemoryExecutor({ activeExpiryInterval: 0, ...options, persistence })
  open.push(made)
  return made
}

afterEach(async () => {
  vi.restoreAllMocks()
  await Promise.all(open.splice(0).map((made) => made.close()))
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true })
})

const text = (reply: Reply): unknown => (Buffer.isBuffer(reply) ? reply.toString('latin1') : Array.isArray(reply) ? reply.map(text) : reply)

const keyspace = (made: MemoryExecutor) => keyspaceOf(made, 'exact', 4)

function folder(dir: string): string {
  return path.join(dir, 'appendonlydir')
}

function incrFile(dir: string): string {
  const manifest = fs.readFileSync(path.join(folder(dir), 'appendonly.aof.manifest'), 'utf8')
  const name = /file (\S+) seq \d+ type i/.exec(manifest)![1]
  return path.join(folder(dir), name)
}

const WRITES: Command[] = [
  ['SET', 'plain', 'v'],
  ['SET', 'timed', 'v', 'EX', '1000'],
  ['SETEX', 'setex', '1000', 'v'],
  ['INCRBYFLOAT', 'float', '1.25'],
  ['RPUSH', 'list', 'a', 'b', 'c'],
  ['SADD', 'set', 'a', 'b', 'c', 'd'],
  ['SPOP', 'set'],
  ['HSET', 'hash', 'f', '1', 'g', '2'],
  ['HINCRBYFLOAT', 'hash', 'f', '0.5'],
  ['ZADD', 'zset', '1', 'a', '2', 'b'],
  ['XADD', 'stream', '*', 'field', 'value'],
  ['XGROUP', 'CREATE', 'stream', 'group', '0'],
  ['XREADGROUP', 'GROUP', 'group', 'consumer', 'COUNT', '1', 'STREAMS', 'stream', '>'],
  ['EXPIRE', 'list', '5000'],
  ['EVAL', "redis.call('set', KEYS[1], 'a'); redis.call('append', KEYS[1], 'b')", '1', 'script'],
  ['SELECT', '2'],
  ['SET', 'in-db-2', 'x'],
  ['PFADD', 'hll', 'a', 'b'],
]

describe('AOF load after a restart', () => {
  test('every type, TTLs, scripts and databases come back as they were', async () => {
    const dir = tempDir()
    const first = executor({ dir, appendonly: true, appendfsync: 'always' })
    await first.pipeline(WRITES)
    await first.transaction([['SET', 'tx-a', '1'], ['INCR', 'tx-b']])
    const before = await keyspace(first)
    await first.close()
    const second = executor({ dir, appendonly: true })
    expect(await keyspace(second)).toEqual(before)
    expect(Object.keys(before)).toContain('2:in-db-2')
  })

  test('a key whose deadline passed while the server was down stays gone; one still due keeps its deadline', async () => {
    const dir = tempDir()
    let now = 1_000_000
    const clock = () => now
    const first = executor({ dir, appendonly: true, appendfsync: 'always' }, { clock })
    await first.exec(['SET', 'k', 'v', 'PX', '100'])
    now += 50
    // APPEND on a live key keeps its TTL; replayed later, it must not see the key as expired.
    await first.exec(['APPEND', 'k', 'x'])
    await first.close()
    now += 10
    const early = executor({ dir, appendonly: true }, { clock })
    expect(text(await early.exec(['GET', 'k']))).toBe('vx')
    expect(await early.exec(['PTTL', 'k'])).toBe(40)
    await early.close()
    now += 1000
    const late = executor({ dir, appendonly: true }, { clock })
    expect(await late.exec(['GET', 'k'])).toBe(null)
  })

  test('a cut last command is dropped, reported with its size, and the file is cut there', async () => {
    const dir = tempDir()
    const first = executor({ dir, appendonly: true, appendfsync: 'always' })
    await first.exec(['SET', 'a', '1'])
    await first.close()
    const file = incrFile(dir)
    const complete = fs.statSync(file).size
    const cut = '*3\r\n$3\r\nSET\r\n$1\r\nb\r\n$5\r\nhel'
    fs.appendFileSync(file, cut)
    const lines: string[] = []
    const second = executor({ dir, appendonly: true, log: (line) => lines.push(line) })
    expect(text(await second.exec(['GET', 'a']))).toBe('1')
    expect(await second.exec(['EXISTS', 'b'])).toBe(0)
    expect(lines.join('\n')).toContain(`dropped the last ${cut.length} bytes`)
    expect(fs.statSync(file).size).toBe(complete)
  })

  test('a MULTI without its EXEC at the end is dropped as a cut', async () => {
    const dir = tempDir()
    const first = executor({ dir, appendonly: true, appendfsync: 'always' })
    await first.exec(['SET', 'a', '1'])
    await first.close()
    fs.appendFileSync(incrFile(dir), '*1\r\n$5\r\nMULTI\r\n*3\r\n$3\r\nSET\r\n$1\r\nb\r\n$1\r\n2\r\n')
    const second = executor({ dir, appendonly: true })
    expect(await second.exec(['EXISTS', 'b'])).toBe(0)
  })

  test('corruption in the middle refuses to start, naming the file and the offset', async () => {
    const dir = tempDir()
    const first = executor({ dir, appendonly: true, appendfsync: 'always' })
    await first.exec(['SET', 'a', '1'])
    await first.exec(['SET', 'b', '2'])
    await first.close()
    const file = incrFile(dir)
    const bytes = fs.readFileSync(file, 'latin1')
    const at = bytes.indexOf('*3', bytes.indexOf('SET'))
    fs.writeFileSync(file, `${bytes.slice(0, at)}garbage\r\n${bytes.slice(at)}`, 'latin1')
    let thrown: unknown
    try {
      executor({ dir, appendonly: true })
    } catch (error) {
      thrown = error
    }
    expect(thrown).toBeInstanceOf(AofFormatError)
    expect((thrown as AofFormatError).offset).toBe(at)
    expect((thrown as Error).message).toContain(`${path.basename(file)} at offset ${at}`)
    expect(fs.readFileSync(file, 'latin1')).toContain('garbage') // nothing rewritten behind the user's back
  })
})

describe('BGREWRITEAOF', () => {
  test('compacts into a new base and increment, removes the old files, and loads the same keyspace', async () => {
    const dir = tempDir()
    const lines: string[] = []
    const first = executor({ dir, appendonly: true, appendfsync: 'always', log: (line) => lines.push(line) })
    for (let i = 0; i < 50; i++) await first.exec(['INCR', 'counter'])
    await first.pipeline(WRITES)
    expect(await first.exec(['BGREWRITEAOF'])).toMatchObject({ text: 'Background append only file rewriting started' })
    await first.exec(['SET', 'after-rewrite', 'yes'])
    await vi.waitFor(() => expect(lines).toContain('Background AOF rewrite finished successfully'))
    const files = fs.readdirSync(folder(dir)).sort()
    expect(files).toEqual(['appendonly.aof.2.base.rdb', 'appendonly.aof.2.incr.aof', 'appendonly.aof.manifest'])
    expect(fs.readFileSync(path.join(folder(dir), 'appendonly.aof.2.base.rdb'), 'latin1')).toMatch(/^REDIS0010/)
    expect(fs.readFileSync(path.join(folder(dir), 'appendonly.aof.2.incr.aof'), 'latin1')).toContain('after-rewrite')
    const info = text(await first.exec(['INFO', 'persistence'])) as string
    expect(info).toMatch(/aof_rewrites:1\r\n/)
    expect(info).toMatch(/aof_last_bgrewrite_status:ok\r\n/)
    const before = await keyspace(first)
    await first.close()
    expect(await keyspace(executor({ dir, appendonly: true }))).toEqual(before)
  })

  test('starts by itself once the AOF grew by auto-aof-rewrite-percentage past auto-aof-rewrite-min-size', async () => {
    const dir = tempDir()
    const lines: string[] = []
    const made = executor({ dir, appendonly: true, appendfsync: 'always', log: (line) => lines.push(line) })
    await made.exec(['CONFIG', 'SET', 'auto-aof-rewrite-min-size', '2000', 'auto-aof-rewrite-percentage', '100'])
    for (let i = 0; i < 20; i++) await made.exec(['SET', 'same-key', 'x'.repeat(50)])
    expect(lines.filter((line) => line.startsWith('Starting automatic rewriting'))).toEqual([])
    for (let i = 0; i < 20; i++) await made.exec(['SET', 'same-key', 'x'.repeat(50)])
    await vi.waitFor(() => expect(lines).toContain('Background AOF rewrite finished successfully'))
    expect(lines.find((line) => line.startsWith('Starting automatic rewriting'))).toMatch(/^Starting automatic rewriting of AOF on \d+% growth$/)
    // The rewrite compacted 40 SETs of one key into one command.
    expect(fs.statSync(path.join(folder(dir), 'appendonly.aof.2.base.rdb')).size).toBeLessThan(200)
  })

  test('aof-use-rdb-preamble no writes the base as commands (RESTORE, JSON.SET, FUNCTION LOAD), which loads back', async () => {
    const dir = tempDir()
    const lines: string[] = []
    const first = executor({ dir, appendonly: true, appendfsync: 'always', log: (line) => lines.push(line) })
    expect(text(await first.exec(['CONFIG', 'GET', 'aof-use-rdb-preamble']))).toEqual(['aof-use-rdb-preamble', 'yes'])
    await first.exec(['CONFIG', 'SET', 'aof-use-rdb-preamble', 'no'])
    await first.pipeline(WRITES)
    await first.exec(['JSON.SET', 'doc', '$', '{"a":[1,2.5,"x"],"b":null}'])
    await first.exec(['PEXPIREAT', 'doc', String(Date.now() + 600_000)])
    await first.exec(['FUNCTION', 'LOAD', "#!lua name=lib\nredis.register_function('f', function() return 1 end)"])
    await first.exec(['BGREWRITEAOF'])
    await vi.waitFor(() => expect(lines).toContain('Background AOF rewrite finished successfully'))
    const base = fs.readFileSync(path.join(folder(dir), 'appendonly.aof.2.base.aof'), 'latin1')
    expect(base).toMatch(/^\*3\r\n\$8\r\nFUNCTION\r\n\$4\r\nLOAD\r\n/)
    expect(base).toContain('$7\r\nRESTORE\r\n')
    expect(base).toContain('$8\r\nJSON.SET\r\n$3\r\ndoc\r\n$1\r\n$\r\n$26\r\n{"a":[1,2.5,"x"],"b":null}\r\n')
    const before = await keyspace(first)
    const ttl = await first.exec(['PEXPIRETIME', 'doc'])
    await first.close()
    const second = executor({ dir, appendonly: true })
    expect(await keyspace(second)).toEqual(before)
    expect(text(await second.exec(['JSON.GET', 'doc']))).toBe('{"a":[1,2.5,"x"],"b":null}')
    expect(await second.exec(['PEXPIRETIME', 'doc'])).toBe(ttl)
    expect(text(await second.exec(['FCALL', 'f', '0']))).toBe(1)
  })

  test('JSON documents go through the RDB base and load back', async () => {
    const dir = tempDir()
    const lines: string[] = []
    const first = executor({ dir, appendonly: true, appendfsync: 'always', log: (line) => lines.push(line) })
    await first.exec(['JSON.SET', 'doc', '$', '{"n":1e300,"s":"caf\u00e9","l":[true,false,{}]}'])
    await first.exec(['BGREWRITEAOF'])
    await vi.waitFor(() => expect(lines).toContain('Background AOF rewrite finished successfully'))
    expect(fs.readFileSync(path.join(folder(dir), 'appendonly.aof.2.base.rdb'), 'latin1')).toContain('"n":1e300')
    const before = text(await first.exec(['JSON.GET', 'doc']))
    await first.close()
    expect(text(await executor({ dir, appendonly: true }).exec(['JSON.GET', 'doc']))).toBe(before)
  })

  test.each(['yes', 'no'])('aof-use-rdb-preamble %s: writes during the rewrite land in the new increment only, after a restart each counts exactly once', async (preamble) => {
    const dir = tempDir()
    const lines: string[] = []
    const first = executor({ dir, appendonly: true, appendfsync: 'no', save: '', log: (line) => lines.push(line) })
    await first.exec(['CONFIG', 'SET', 'aof-use-rdb-preamble', preamble])
    const keys = 40_000
    for (let i = 0; i < keys; i += 5000) {
      await first.pipeline(Array.from({ length: 5000 }, (_, j): Command => ['SET', `key:${i + j}`, String(i + j)]))
    }
    await first.exec(['RPUSH', 'log', 'before'])
    await first.exec(['BGREWRITEAOF'])
    let writesWhileRewriting = 0
    for (let round = 0; round < 10_000 && /aof_rewrite_in_progress:1/.test(text(await first.exec(['INFO', 'persistence'])) as string); round++) {
      // Keys the walk has not reached yet and keys it has written, changed in the same turn.
      await first.pipeline([
        ['INCR', `key:${keys - 1 - round}`],
        ['INCR', `key:${round}`],
        ['RPUSH', 'log', String(round)],
        ['DEL', `key:${keys / 2 + round}`],
        ['SET', `new:${round}`, 'x'],
      ])
      writesWhileRewriting++
    }
    expect(writesWhileRewriting).toBeGreaterThan(2)
    await vi.waitFor(() => expect(lines).toContain('Background AOF rewrite finished successfully'))
    const before = await keyspaceOf(first, 'exact')
    await first.close()
    const second = executor({ dir, appendonly: true, save: '' })
    expect(await keyspaceOf(second, 'exact')).toEqual(before)
    expect(text(await second.exec(['GET', `key:${keys - 1}`]))).toBe(String(keys))
    expect(text(await second.exec(['LRANGE', 'log', '0', '2']))).toEqual(['before', '0', '1'])
  })

  test('a rewrite that fails leaves the previous manifest valid and INFO says err', async () => {
    const dir = tempDir()
    const lines: string[] = []
    const first = executor({ dir, appendonly: true, appendfsync: 'always', log: (line) => lines.push(line) })
    await first.pipeline(WRITES)
    // The new base cannot be renamed into place: a directory holds its name.
    fs.mkdirSync(path.join(folder(dir), 'appendonly.aof.2.base.rdb'))
    await first.exec(['BGREWRITEAOF'])
    await first.exec(['SET', 'during', '1'])
    await vi.waitFor(() => expect(lines.some((line) => line.startsWith('Background AOF rewrite failed'))).toBe(true))
    const info = text(await first.exec(['INFO', 'persistence'])) as string
    expect(info).toMatch(/aof_last_bgrewrite_status:err\r\n/)
    expect(info).toMatch(/aof_rewrites_consecutive_failures:1\r\n/)
    expect(info).toMatch(/aof_rewrite_in_progress:0\r\n/)
    const manifest = fs.readFileSync(path.join(folder(dir), 'appendonly.aof.manifest'), 'utf8')
    expect(manifest).toBe('file appendonly.aof.1.base.rdb seq 1 type b\nfile appendonly.aof.1.incr.aof seq 1 type i\nfile appendonly.aof.2.incr.aof seq 2 type i\n')
    expect(fs.readdirSync(folder(dir)).filter((name) => name.startsWith('temp-'))).toEqual([])
    await first.exec(['SET', 'after', '1'])
    const before = await keyspace(first)
    await first.close()
    expect(await keyspace(executor({ dir, appendonly: true }))).toEqual(before)
  })

  test('growth stops retrying after 3 failed rewrites in a row (Redis’s rewrite limit)', async () => {
    const dir = tempDir()
    const lines: string[] = []
    const made = executor({ dir, appendonly: true, appendfsync: 'always', log: (line) => lines.push(line) })
    await made.exec(['CONFIG', 'SET', 'auto-aof-rewrite-min-size', '200', 'auto-aof-rewrite-percentage', '100'])
    // Every attempt's base is appendonly.aof.2.base.rdb (the base sequence moves only on success).
    fs.mkdirSync(path.join(folder(dir), 'appendonly.aof.2.base.rdb'))
    for (let i = 0; lines.filter((line) => line.startsWith('Background AOF rewrite failed')).length < 3 && i < 1000; i++) {
      await made.exec(['SET', 'k', 'x'.repeat(50)])
      await new Promise((resolve) => setImmediate(resolve))
    }
    for (let i = 0; i < 20; i++) await made.exec(['SET', 'k', 'x'.repeat(50)])
    expect(lines).toContain('Background AOF rewrite has repeatedly failed and triggered the limit, will retry in 1 minutes')
    expect(lines.filter((line) => line.startsWith('Starting automatic rewriting'))).toHaveLength(3)
    expect(text(await made.exec(['INFO', 'persistence']))).toMatch(/aof_rewrites_consecutive_failures:3\r\n/)
  })

  test('inside MULTI/EXEC the rewrite is scheduled and starts after the block', async () => {
    const dir = tempDir()
    const lines: string[] = []
    const first = executor({ dir, appendonly: true, appendfsync: 'always', log: (line) => lines.push(line) })
    const replies = await first.transaction([['INCR', 'n'], ['BGREWRITEAOF'], ['INCR', 'n']])
    expect(replies).toMatchObject([1, { text: 'Background append only file rewriting scheduled' }, 2])
    await vi.waitFor(() => expect(lines).toContain('Background AOF rewrite finished successfully'))
    await first.close()
    expect(text(await executor({ dir, appendonly: true }).exec(['GET', 'n']))).toBe('2')
  })

  test('without a data directory it says so instead of pretending', async () => {
    const made = new MemoryExecutor({ activeExpiryInterval: 0 })
    open.push(made)
    expect(await made.exec(['BGREWRITEAOF'])).toEqual(new ReplyError('ERR BGREWRITEAOF needs a data directory: this executor runs without persistence'))
  })
})

describe('CONFIG SET appendonly / appendfsync', () => {
  test('appendonly yes starts the AOF from the keyspace (a rewrite); no stops it', async () => {
    const dir = tempDir()
    const made = executor({ dir })
    await made.exec(['SET', 'before', '1'])
    expect(text(await made.exec(['CONFIG', 'GET', 'appendonly']))).toEqual(['appendonly', 'no'])
    expect(fs.existsSync(folder(dir))).toBe(false)
    expect(await made.exec(['CONFIG', 'SET', 'appendonly', 'yes'])).toMatchObject({ text: 'OK' })
    await made.exec(['SET', 'after', '2'])
    expect(text(await made.exec(['INFO', 'persistence']))).toMatch(/aof_enabled:1\r\n/)
    // The first base is written in the background; stopping before it is complete would leave
    // no AOF (as in Redis, whose rewrite child would be killed).
    await vi.waitFor(async () => expect(text(await made.exec(['INFO', 'persistence']))).toMatch(/aof_rewrite_in_progress:0\r\naof_rewrite_scheduled:0\r\n/))
    await made.exec(['CONFIG', 'SET', 'appendonly', 'no'])
    await made.exec(['SET', 'not-logged', '3'])
    await made.close()
    const reloaded = executor({ dir, appendonly: true })
    expect((text(await reloaded.exec(['KEYS', '*'])) as string[]).sort()).toEqual(['after', 'before'])
  })

  test('appendonly yes on a keyspace with data writes the first base in the background; writes meanwhile count once', async () => {
    const dir = tempDir()
    const lines: string[] = []
    const made = executor({ dir, save: '', log: (line) => lines.push(line) })
    for (let i = 0; i < 40_000; i += 5000) await made.pipeline(Array.from({ length: 5000 }, (_, j): Command => ['SET', `key:${i + j}`, '1']))
    expect(await made.exec(['CONFIG', 'SET', 'appendonly', 'yes'])).toMatchObject({ text: 'OK' })
    expect(text(await made.exec(['INFO', 'persistence']))).toMatch(/aof_enabled:1\r\naof_rewrite_in_progress:1\r\n/)
    expect(await made.exec(['BGREWRITEAOF'])).toEqual(new ReplyError('ERR Background append only file rewriting already in progress'))
    expect(fs.existsSync(path.join(folder(dir), 'appendonly.aof.manifest'))).toBe(false)
    for (let i = 0; i < 100; i++) await made.pipeline([['INCR', `key:${39_999 - i}`], ['INCR', `key:${i}`]])
    await vi.waitFor(() => expect(lines).toContain('Background AOF rewrite finished successfully'))
    expect(fs.readdirSync(folder(dir)).sort()).toEqual(['appendonly.aof.1.base.rdb', 'appendonly.aof.1.incr.aof', 'appendonly.aof.manifest'])
    const before = await keyspaceOf(made, 'exact')
    await made.close()
    const reloaded = executor({ dir, save: '', appendonly: true })
    expect(await keyspaceOf(reloaded, 'exact')).toEqual(before)
    expect(text(await reloaded.exec(['GET', 'key:0']))).toBe('2')
  })

  test('appendonly yes: a first base that fails is retried, and closing before it is complete leaves the directory as it was', async () => {
    const dir = tempDir()
    const lines: string[] = []
    const made = executor({ dir, save: '', log: (line) => lines.push(line) })
    await made.exec(['SET', 'a', '1'])
    fs.mkdirSync(path.join(folder(dir), 'appendonly.aof.1.base.rdb'), { recursive: true })
    await made.exec(['CONFIG', 'SET', 'appendonly', 'yes'])
    await vi.waitFor(() => expect(lines.some((line) => line.startsWith('Background AOF rewrite failed'))).toBe(true))
    expect(text(await made.exec(['INFO', 'persistence']))).toMatch(/aof_rewrite_scheduled:1\r\n/)
    await made.exec(['SET', 'b', '2'])
    fs.rmdirSync(path.join(folder(dir), 'appendonly.aof.1.base.rdb'))
    await vi.waitFor(() => expect(lines).toContain('Background AOF rewrite finished successfully'), { timeout: 5000 })
    await made.exec(['SET', 'c', '3'])
    await made.close()
    const reloaded = executor({ dir, save: '', appendonly: true })
    expect((text(await reloaded.exec(['KEYS', '*'])) as string[]).sort()).toEqual(['a', 'b', 'c'])
    await reloaded.close()

    const other = tempDir()
    const closing = executor({ dir: other, save: '', log: (line) => lines.push(line) })
    for (let i = 0; i < 40_000; i += 5000) await closing.pipeline(Array.from({ length: 5000 }, (_, j): Command => ['SET', `key:${i + j}`, '1']))
    await closing.exec(['CONFIG', 'SET', 'appendonly', 'yes'])
    await closing.close()
    expect(lines).toContain('The AOF was closed before its first base was complete: the directory is left as it was')
    await vi.waitFor(() => expect(fs.readdirSync(folder(other))).toEqual([]))
  })

  test('appendonly yes without a data directory is refused, not stored', async () => {
    const made = new MemoryExecutor({ activeExpiryInterval: 0 })
    open.push(made)
    const reply = await made.exec(['CONFIG', 'SET', 'appendonly', 'yes'])
    expect(reply).toBeInstanceOf(ReplyError)
    expect((reply as ReplyError).message).toMatch(/CONFIG SET failed \(possibly related to argument 'appendonly'\) - this executor has no data directory/)
    expect(text(await made.exec(['CONFIG', 'GET', 'appendonly']))).toEqual(['appendonly', 'no'])
  })

  test('appenddirname and appendfilename are immutable, as in Redis', async () => {
    const made = executor({ dir: tempDir(), appendonly: true })
    const reply = await made.exec(['CONFIG', 'SET', 'appendfilename', 'other.aof'])
    expect((reply as ReplyError).message).toMatch(/can't set immutable config/)
  })
})

describe('appendfsync always', () => {
  test('a reply is released only once its write is on disk, and one fsync serves a whole turn', async () => {
    const dir = tempDir()
    const made = executor({ dir, appendonly: true, appendfsync: 'always' })
    const fs_ = await import('node:fs')
    const syncs = vi.spyOn(fs_.default, 'fdatasync')
    const file = incrFile(dir)
    const replies = Array.from({ length: 100 }, (_, i) =>
      made.exec(['SET', `key${i}`, 'v']).then(() => fs.readFileSync(file, 'latin1').includes(`key${i}\r\n`)),
    )
    expect(await Promise.all(replies)).toEqual(Array(100).fill(true))
    expect(syncs).toHaveBeenCalledTimes(1)
  })

  /** Stands in for the disk's fsync on both paths; `slowMs` is how long one takes. Returns the path of each fsync. */
  async function fakeFsyncs(disk: { slowMs: number }): Promise<string[]> {
    const fsModule = (await import('node:fs')).default
    const paths: string[] = []
    vi.spyOn(fsModule, 'fdatasync').mockImplementation(((_fd: number, callback: (error: NodeJS.ErrnoException | null) => void) => {
      paths.push('thread pool')
      if (disk.slowMs === 0) setImmediate(() => callback(null)) // setTimeout waits at least 1 ms
      else setTimeout(() => callback(null), disk.slowMs)
    }) as typeof fsModule.fdatasync)
    vi.spyOn(fsModule, 'fdatasyncSync').mockImplementation(() => {
      paths.push('event loop')
      const until = performance.now() + disk.slowMs
      while (performance.now() < until); // the device's time, on the thread that asked
    })
    return paths
  }

  /** Runs one SET a turn until an fsync ran on the event loop (a preempted first one may take two turns). */
  async function untilOnTheLoop(made: MemoryExecutor, paths: string[]): Promise<void> {
    for (let i = 0; i < 10 && !paths.includes('event loop'); i++) await made.exec(['SET', `warm${i}`, 'v'])
    expect(paths).toContain('event loop')
  }

  test('on a quick disk the fsyncs move onto the event loop, as Redis runs them; replies still wait for them, one a turn', async () => {
    const dir = tempDir()
    const made = executor({ dir, appendonly: true, appendfsync: 'always' })
    const paths = await fakeFsyncs({ slowMs: 0 })
    await untilOnTheLoop(made, paths)
    // Nothing is known of the disk at first: the first fsync goes to the thread pool and is measured.
    expect(paths[0]).toBe('thread pool')
    const file = incrFile(dir)
    const before = paths.length
    const turn = (from: number): Promise<boolean[]> => Promise.all(Array.from({ length: 20 }, (_, i) =>
      made.exec(['SET', `key${from + i}`, 'v']).then(() => fs.readFileSync(file, 'latin1').includes(`key${from + i}\r\n`))))
    for (const from of [0, 20]) expect(await turn(from)).toEqual(Array(20).fill(true))
    expect(paths.slice(before)).toEqual(['event loop', 'event loop'])
  })

  test('fsyncs that turn slow go back to the thread pool, so the disk does not hold the event loop', async () => {
    const dir = tempDir()
    const made = executor({ dir, appendonly: true, appendfsync: 'always' })
    const disk = { slowMs: 0 }
    const paths = await fakeFsyncs(disk)
    await untilOnTheLoop(made, paths)
    const before = paths.length
    disk.slowMs = 5
    for (const key of ['a', 'b', 'c', 'd']) await made.exec(['SET', key, 'v'])
    // One 5 ms fsync lifts the average (weight 0.2) to the 1 ms limit: the next ones leave the loop.
    expect(paths.slice(before)).toEqual(['event loop', 'thread pool', 'thread pool', 'thread pool'])
  })

  test('a disk that refuses the write: MISCONF for the waiting replies and later writes, reads still served, recovery when it accepts again', async () => {
    const dir = tempDir()
    const lines: string[] = []
    const made = executor({ dir, appendonly: true, appendfsync: 'always', log: (line) => lines.push(line) })
    const fsModule = (await import('node:fs')).default
    const realWrite = fsModule.write
    let full = true
    vi.spyOn(fsModule, 'write').mockImplementation(((...args: unknown[]) => {
      const callback = args.at(-1) as (error: NodeJS.ErrnoException | null, written?: number) => void
      if (!full) return (realWrite as (...a: unknown[]) => void)(...args)
      const error: NodeJS.ErrnoException = Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' })
      process.nextTick(() => callback(error))
    }) as typeof fsModule.write)
    const refused = await made.exec(['SET', 'a', '1'])
    expect((refused as ReplyError).message).toBe('MISCONF Errors writing to the AOF file: ENOSPC: no space left on device, write')
    expect((await made.exec(['SET', 'b', '2']) as ReplyError).message).toMatch(/^MISCONF Errors writing to the AOF file/)
    expect(await made.exec(['PING'])).toMatchObject({ text: 'PONG' })
    expect(text(await made.exec(['INFO', 'persistence']))).toMatch(/aof_last_write_status:err\r\n/)
    full = false
    await vi.waitFor(() => expect(lines).toContain('AOF write error looks solved, the AOF can write again.'), { timeout: 5000 })
    expect(await made.exec(['SET', 'c', '3'])).toMatchObject({ text: 'OK' })
    await made.close()
    // `a` ran in memory before its write failed; the retry put it on disk. `b` was refused.
    const reloaded = executor({ dir, appendonly: true })
    expect((text(await reloaded.exec(['KEYS', '*'])) as string[]).sort()).toEqual(['a', 'c'])
  })
})
