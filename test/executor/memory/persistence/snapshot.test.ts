import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, test } from 'vitest'
import { Engine } from '../../../../src/executor/memory/engine.js'
import type { Session } from '../../../../src/executor/memory/command.js'
import { toReply } from '../../../../src/executor/memory/memory-executor.js'
import { writeFileAtomic } from '../../../../src/executor/memory/persistence/atomic-file.js'
import { startSnapshot } from '../../../../src/executor/memory/persistence/snapshot.js'
import { SnapshotMarks } from '../../../../src/executor/memory/persistence/snapshot-marks.js'
import { KeyspaceState } from '../../../../src/executor/memory/key-access.js'
import { plain, type Plain } from '../../../support/engine.js'
import { redisServerSkipReason, startRedisServer } from '../../../support/redis-server.js'
import { SocketExecutor } from '../../../../src/executor/socket/socket-executor.js'

/**
 * The point-in-time guarantee of `persistence/snapshot.ts`: whatever commands run while the
 * slices are written, the file loads to exactly the keyspace of the moment the snapshot began.
 */

const dirs: string[] = []
const engines: Engine[] = []

afterEach(() => {
  for (const engine of engines.splice(0)) engine.close()
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'restis-snapshot-'))
  dirs.push(dir)
  return dir
}

function open(dir: string): { engine: Engine; session: Session; run: (...argv: string[]) => Plain } {
  const engine = new Engine({ activeExpiryInterval: 0, persistence: { dir, save: '' } })
  engines.push(engine)
  const session = engine.createSession()
  return { engine, session, run: (...argv) => plain(toReply(engine.call(session, argv))) }
}

/** Every key of every database in a comparable form: type, content, absolute expiry. */
function keyspaceOf(engine: Engine): Map<string, unknown> {
  const session = engine.createSession()
  const run = (...argv: string[]): Plain => plain(toReply(engine.call(session, argv)))
  // Looking must not restamp the keys' access clocks, where a snapshot keeps its marks.
  session.noTouch = true
  const out = new Map<string, unknown>()
  engine.databases.forEach((db, index) => {
    session.db = index
    for (const key of [...db.data.keys()].sort()) {
      const type = run('TYPE', key) as string
      const content =
        type === 'string' ? run('GET', key)
        : type === 'list' ? run('LRANGE', key, '0', '-1')
        : type === 'hash' ? (run('HGETALL', key) as string[])
        : type === 'set' ? (run('SMEMBERS', key) as string[]).sort()
        : type === 'zset' ? run('ZRANGE', key, '0', '-1', 'WITHSCORES')
        : run('XINFO', 'STREAM', key, 'FULL')
      const fields = type === 'hash' ? pairsSorted(content as string[]) : content
      out.set(`${index}:${key}`, { type, content: fields, expireAt: db.getExpire(key) })
    }
  })
  return out
}

function pairsSorted(flat: string[]): string[][] {
  const pairs: string[][] = []
  for (let i = 0; i < flat.length; i += 2) pairs.push([flat[i], flat[i + 1]])
  return pairs.sort((a, b) => (a[0] < b[0] ? -1 : 1))
}

/** Keys of every type in databases 0 and 2, some with TTLs, streams with a group and pending entries. */
function fill(run: (...argv: string[]) => Plain, session: Session, perType: number): void {
  for (const db of [0, 2]) {
    session.db = db
    for (let i = 0; i < perType; i++) {
      run('SET', `s:${i}`, `value-${i}-${'x'.repeat(i % 50)}`)
      run('SET', `n:${i}`, String(i * 7))
      run('RPUSH', `l:${i}`, ...Array.from({ length: 5 + (i % 20) }, (_, j) => `item${j}`))
      run('HSET', `h:${i}`, ...Array.from({ length: 3 + (i % 10) }, (_, j) => [`f${j}`, `v${i}.${j}`]).flat())
      run('SADD', `set:${i}`, ...Array.from({ length: 3 + (i % 10) }, (_, j) => (i % 2 === 0 ? String(j) : `m${j}`)))
      run('ZADD', `z:${i}`, ...Array.from({ length: 3 + (i % 10) }, (_, j) => [String(j * 1.5), `z${j}`]).flat())
      if (i % 10 === 0) {
        for (let j = 1; j <= 5; j++) run('XADD', `x:${i}`, `${j}-0`, 'field', `v${j}`)
        run('XGROUP', 'CREATE', `x:${i}`, 'g', '0')
        run('XREADGROUP', 'GROUP', 'g', 'alice', 'COUNT', '3', 'STREAMS', `x:${i}`, '>')
      }
      if (i % 3 === 0) run('PEXPIRE', `s:${i}`, String(3_600_000 + i))
    }
  }
  session.db = 0
}

/**
 * Reads of keys the next turns change: an access restamps a key's LRU or LFU clock, where the
 * snapshot keeps its mark of the keys it wrote (`snapshot-marks.ts`).
 */
function touch(run: (...argv: string[]) => Plain, turn: number, perType: number): void {
  for (let k = 0; k < 8; k++) {
    const i = ((turn + 1 + k) * 37) % perType
    const j = ((turn + 1 + k) * 53 + 11) % perType
    run('GET', `s:${i}`)
    run('GET', `n:${j}`)
    run('LRANGE', `l:${i}`, '0', '0')
    run('HGET', `h:${j}`, 'f0')
    run('OBJECT', 'FREQ', `z:${i}`)
  }
}

/** One turn's worth of changes of every kind, to keys written and not yet written alike. */
function churn(engine: Engine, run: (...argv: string[]) => Plain, session: Session, turn: number, perType: number): void {
  const i = (turn * 37) % perType
  const j = (turn * 53 + 11) % perType
  session.db = turn % 2 === 0 ? 0 : 2
  touch(run, turn, perType)
  run('SET', `s:${i}`, `overwritten-${turn}`)
  run('DEL', `n:${j}`)
  run('SET', `new:${turn}`, 'created after the start')
  run('LPUSH', `l:${i}`, 'pushed')
  run('RPOP', `l:${j}`)
  run('HSET', `h:${i}`, 'f0', 'changed', 'extra', '1')
  run('HDEL', `h:${j}`, 'f1')
  run('SADD', `set:${i}`, 'added')
  run('SREM', `set:${j}`, '0', 'm0')
  run('ZADD', `z:${i}`, '99', 'z0')
  run('ZINCRBY', `z:${j}`, '5', 'z1')
  run('XADD', `x:${i - (i % 10)}`, '*', 'more', '1')
  run('XACK', `x:${j - (j % 10)}`, 'g', '1-0')
  run('XREADGROUP', 'GROUP', 'g', 'bob', 'STREAMS', `x:${j - (j % 10)}`, '>')
  run('EXPIRE', `l:${j}`, '100')
  run('PERSIST', `s:${j - (j % 3)}`)
  run('RENAME', `z:${(i + 1) % perType}`, `renamed:${turn}`)
  run('MOVE', `h:${(j + 2) % perType}`, '1')
  run('COPY', `l:${(i + 3) % perType}`, `copied:${turn}`, 'DB', '2', 'REPLACE')
  run('EVAL', "redis.call('INCR', KEYS[1]); return redis.call('APPEND', KEYS[2], 'x')", '2', `n:${(i + 4) % perType}`, `s:${(j + 5) % perType}`)
  engine.transaction(session, [['SET', `s:${(i + 6) % perType}`, 'in a transaction'], ['LTRIM', `l:${(j + 7) % perType}`, '0', '1']])
}

describe('point-in-time snapshot', () => {
  test('the file holds exactly the keyspace of the start, whatever ran during the slices', async () => {
    const dir = tempDir()
    const { engine, session, run } = open(dir)
    const perType = 400
    fill(run, session, perType)
    const expected = keyspaceOf(engine)
    let chunks = 0
    const path = join(dir, 'dump.rdb')
    const handle = startSnapshot(
      engine,
      async (source) => {
        async function* counted(): AsyncGenerator<Buffer> {
          for await (const chunk of source) {
            chunks++
            yield chunk
          }
        }
        await writeFileAtomic(path, counted())
      },
      { sliceBudgetMs: 0, chunkBytes: 4096 },
    )
    let turn = 0
    while (!handle.serialized) {
      churn(engine, run, session, turn++, perType)
      await new Promise((resolve) => setImmediate(resolve))
      // Late in the run: a whole-database change completes the snapshot synchronously first.
      if (turn === 60) run('FLUSHDB')
    }
    await handle.done
    // FLUSHDB ended it: the slices were still running after 60 turns of changes.
    expect(turn).toBe(60)
    expect(chunks).toBeGreaterThan(10)
    expect(engine.snapshots.size).toBe(0)
    const reloaded = open(dir).engine
    expect(keyspaceOf(reloaded)).toEqual(expected)
  })

  test('BGSAVE writes the keyspace of its start while SET, DEL and FLUSHALL run', async () => {
    const dir = tempDir()
    const { engine, session, run } = open(dir)
    fill(run, session, 300)
    const expected = keyspaceOf(engine)
    expect(run('BGSAVE')).toBe('Background saving started')
    expect(run('BGSAVE')).toEqual({ error: 'ERR Background save already in progress' })
    expect(run('SAVE')).toEqual({ error: 'ERR Background save already in progress' })
    expect(run('INFO', 'persistence')).toMatch(/rdb_bgsave_in_progress:1/)
    for (let i = 0; i < 50; i++) run('SET', `s:${i}`, 'changed')
    run('FLUSHALL')
    run('SET', 'after', 'flush')
    await engine.rdb!.whenIdle()
    const info = run('INFO', 'persistence') as string
    expect(info).toMatch(/rdb_bgsave_in_progress:0/)
    expect(info).toMatch(/rdb_last_bgsave_status:ok/)
    expect(info).toMatch(/rdb_saves:1\r\n/)
    // The 52 changes made during the save are not in the file: they still count.
    expect(info).toMatch(/rdb_changes_since_last_save:52\r\n/)
    expect(readdirSync(dir)).toEqual(['dump.rdb', 'restis.pid'])
    expect(keyspaceOf(open(dir).engine)).toEqual(expected)
  })

  test('SAVE writes at once; the file starts with REDIS0010 and loads back', () => {
    const dir = tempDir()
    const { engine, session, run } = open(dir)
    fill(run, session, 50)
    const expected = keyspaceOf(engine)
    expect(run('SAVE')).toBe('OK')
    expect(readFileSync(join(dir, 'dump.rdb')).subarray(0, 9).toString()).toBe('REDIS0010')
    const reloaded = open(dir)
    expect(keyspaceOf(reloaded.engine)).toEqual(expected)
    expect(reloaded.run('INFO', 'persistence')).toMatch(new RegExp(`rdb_last_load_keys_loaded:${expected.size}\r\n`))
  })

  test.skipIf(redisServerSkipReason !== undefined)('redis-server 7.0 loads a BGSAVE written while commands ran (SELECTDB switches between early writes)', async () => {
    const dir = tempDir()
    const { engine, session, run } = open(dir)
    fill(run, session, 200)
    const expected = keyspaceOf(engine)
    const handle = startSnapshot(engine, (chunks) => writeFileAtomic(join(dir, 'dump.rdb'), chunks), { sliceBudgetMs: 0, chunkBytes: 4096 })
    for (let turn = 0; !handle.serialized; turn++) {
      churn(engine, run, session, turn, 200)
      await new Promise((resolve) => setImmediate(resolve))
    }
    await handle.done
    const server = await startRedisServer({ args: ['--dir', dir] })
    try {
      for (const db of [0, 2]) {
        const client = new SocketExecutor({ url: `${server.url}/${db}` })
        try {
          const keys = [...expected.keys()].filter((name) => name.startsWith(`${db}:`))
          expect(await client.exec(['DBSIZE'])).toBe(keys.length)
          expect(String(await client.exec(['GET', 's:1']))).toBe((expected.get(`${db}:s:1`) as { content: string }).content)
          expect(await client.exec(['LLEN', 'l:5'])).toBe((expected.get(`${db}:l:5`) as { content: string[] }).content.length)
        } finally {
          await client.close()
        }
      }
    } finally {
      await server.stop()
    }
  })
})

/** Starts a snapshot to `path` and churns a turn per event-loop turn until it is serialized; `each` runs after every turn. */
async function snapshotWhileChurning(
  target: ReturnType<typeof open>,
  path: string,
  perType: number,
  each: (turn: number) => void = () => undefined,
): Promise<number> {
  const { engine, session, run } = target
  const handle = startSnapshot(engine, (chunks) => writeFileAtomic(path, chunks), { sliceBudgetMs: 0, chunkBytes: 4096 })
  let turn = 0
  while (!handle.serialized) {
    churn(engine, run, session, turn, perType)
    each(turn++)
    await new Promise((resolve) => setImmediate(resolve))
  }
  await handle.done
  return turn
}

describe('which keys the walk wrote, kept in their access stamps', () => {
  test('under an LFU policy, where a read changes the counter, every key is written once', async () => {
    const dir = tempDir()
    const target = open(dir)
    target.run('CONFIG', 'SET', 'maxmemory-policy', 'allkeys-lfu')
    fill(target.run, target.session, 300)
    const expected = keyspaceOf(target.engine)
    expect(await snapshotWhileChurning(target, join(dir, 'dump.rdb'), 300)).toBeGreaterThan(20)
    expect(keyspaceOf(open(dir).engine)).toEqual(expected)
  })

  test('a switch between the LRU and LFU clocks drops the stamps, so it completes the snapshot first', async () => {
    const dir = tempDir()
    const target = open(dir)
    fill(target.run, target.session, 300)
    const expected = keyspaceOf(target.engine)
    const turns = await snapshotWhileChurning(target, join(dir, 'dump.rdb'), 300, (turn) => {
      if (turn === 5) target.run('CONFIG', 'SET', 'maxmemory-policy', 'allkeys-lfu')
    })
    expect(turns).toBe(6)
    expect(target.engine.keyspace.snapshotMark).toBe(0)
    expect(keyspaceOf(open(dir).engine)).toEqual(expected)
  })

  test('a save that stops near its end leaves its marks on keys; after 62 more failures the next save still writes every key once', async () => {
    const dir = tempDir()
    const target = open(dir)
    const { engine, session, run } = target
    fill(run, session, 200)
    const options = { sliceBudgetMs: 0, chunkBytes: 4096 }
    const saveFailingAfter = (chunksTaken: number): Promise<number> => {
      let taken = 0
      return startSnapshot(
        engine,
        async (chunks) => {
          if (chunksTaken === 0) throw new Error('disk full')
          for await (const chunk of chunks) if (chunk.length > 0 && ++taken === chunksTaken) throw new Error('disk full')
        },
        options,
      ).done.then(
        () => taken,
        () => -1,
      )
    }
    // One save that finishes, to count its chunks; then one that fails two chunks before the end:
    // most keys carry its mark.
    const total = await saveFailingAfter(Number.MAX_SAFE_INTEGER)
    expect(total).toBeGreaterThan(20)
    expect(await saveFailingAfter(total - 2)).toBe(-1)
    // 62 that fail before the walk starts: every mark number has been used since the last save that finished.
    for (let attempt = 0; attempt < 62; attempt++) expect(await saveFailingAfter(0)).toBe(-1)
    const expected = keyspaceOf(engine)
    await snapshotWhileChurning(target, join(dir, 'dump.rdb'), 200)
    expect(keyspaceOf(open(dir).engine)).toEqual(expected)
    // And the next one, with the marks trusted again.
    const again = keyspaceOf(engine)
    await snapshotWhileChurning(target, join(dir, 'dump.rdb'), 200)
    expect(keyspaceOf(open(dir).engine)).toEqual(again)
  })

  test('two snapshots at once (one marks, the other records in Sets) both hold the keyspace of their start', async () => {
    const dir = tempDir()
    const target = open(dir)
    const { engine, session, run } = target
    fill(run, session, 300)
    const expected = keyspaceOf(engine)
    const options = { sliceBudgetMs: 0, chunkBytes: 4096 }
    const first = startSnapshot(engine, (chunks) => writeFileAtomic(join(dir, 'first.rdb'), chunks), options)
    const second = startSnapshot(engine, (chunks) => writeFileAtomic(join(dir, 'dump.rdb'), chunks), options)
    for (let turn = 0; !first.serialized || !second.serialized; turn++) {
      churn(engine, run, session, turn, 300)
      await new Promise((resolve) => setImmediate(resolve))
    }
    await Promise.all([first.done, second.done])
    expect(keyspaceOf(open(dir).engine)).toEqual(expected)
    const firstDir = tempDir()
    writeFileSync(join(firstDir, 'dump.rdb'), readFileSync(join(dir, 'first.rdb')))
    expect(keyspaceOf(open(firstDir).engine)).toEqual(expected)
  })

  test('the marks are given up front: one snapshot at a time, a fresh number after each, untrusted when every number may be on keys', () => {
    const keyspace = new KeyspaceState()
    const first = SnapshotMarks.acquire(keyspace)!
    expect(first.trusted).toBe(true)
    expect(keyspace.snapshotMark).not.toBe(0)
    expect(SnapshotMarks.acquire(keyspace)).toBeUndefined()
    first.release(false)
    expect(keyspace.snapshotMark).toBe(0)
    // 62 more that stop early: every number from 1 to 63 may now be on some key.
    for (let i = 0; i < 62; i++) {
      const marks = SnapshotMarks.acquire(keyspace)!
      expect(marks.trusted).toBe(true)
      marks.release(false)
    }
    const exhausted = SnapshotMarks.acquire(keyspace)!
    expect(exhausted.trusted).toBe(false)
    // It finishes its walk: only its own number is left on keys.
    exhausted.release(true)
    const after = SnapshotMarks.acquire(keyspace)!
    expect(after.trusted).toBe(true)
    after.release(true)
  })

  test('a stamp keeps its clock under the mark: OBJECT IDLETIME and FREQ read the same during and after a save', async () => {
    const dir = tempDir()
    let now = Date.UTC(2026, 0, 1)
    const engine = new Engine({ activeExpiryInterval: 0, persistence: { dir, save: '' }, clock: () => now })
    engines.push(engine)
    const session = engine.createSession()
    const run = (...argv: string[]): Plain => plain(toReply(engine.call(session, argv)))
    for (let i = 0; i < 2000; i++) run('SET', `k:${i}`, 'v')
    now += 100_000
    const handle = startSnapshot(engine, (chunks) => writeFileAtomic(join(dir, 'dump.rdb'), chunks), { sliceBudgetMs: 0, chunkBytes: 1024 })
    await new Promise((resolve) => setImmediate(resolve))
    expect(handle.serialized).toBe(false)
    expect(run('OBJECT', 'IDLETIME', 'k:0')).toBe(100)
    expect(run('OBJECT', 'IDLETIME', 'k:1999')).toBe(100)
    await handle.done
    expect(run('OBJECT', 'IDLETIME', 'k:1')).toBe(100)
    run('CONFIG', 'SET', 'maxmemory-policy', 'allkeys-lfu')
    const lfu = startSnapshot(engine, (chunks) => writeFileAtomic(join(dir, 'dump.rdb'), chunks), { sliceBudgetMs: 0, chunkBytes: 1024 })
    // No stamps after the switch: the walk records these keys in its Sets.
    for (let i = 0; i < 10; i++) run('GET', 'k:5')
    await lfu.done
    expect(run('OBJECT', 'FREQ', 'k:5')).toBeGreaterThan(5)
    expect(run('OBJECT', 'FREQ', 'k:6')).toBe(5)
  })

  test('the chunk buffer is used again once the sink pulled the next chunk', async () => {
    const dir = tempDir()
    const { engine, session, run } = open(dir)
    fill(run, session, 200)
    const buffers = new Set<ArrayBufferLike>()
    const copies: Buffer[] = []
    const handle = startSnapshot(
      engine,
      async (chunks) => {
        for await (const chunk of chunks) {
          buffers.add(chunk.buffer)
          copies.push(Buffer.from(chunk))
        }
        writeFileSync(join(dir, 'dump.rdb'), Buffer.concat(copies))
      },
      { sliceBudgetMs: 0, chunkBytes: 4096 },
    )
    await handle.done
    expect(copies.length).toBeGreaterThan(20)
    expect(buffers.size).toBeLessThanOrEqual(2)
    const expected = keyspaceOf(engine)
    expect(keyspaceOf(open(dir).engine)).toEqual(expected)
  })
})
