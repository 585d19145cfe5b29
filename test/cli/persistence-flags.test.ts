/**
 * The persistence flags both CLIs share (src/cli-persistence.ts): each program's defaults, the
 * data home, and the refusals, without starting a process.
 */
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { GATEWAY_PERSISTENCE, persistenceLine, persistenceUsage, QUEUE_PERSISTENCE, readPersistence } from '../../src/cli-persistence.js'

const env = { XDG_DATA_HOME: '/data/home' }
const log = (): void => undefined

describe('readPersistence', () => {
  test("each program's defaults: the gateway snapshots only, the queue logs every write with fsync always, in a folder inside the gateway's", () => {
    expect(readPersistence({}, false, env, GATEWAY_PERSISTENCE, log)).toEqual({
      dir: '/data/home/restis',
      dbfilename: undefined,
      save: '3600 1 300 100 60 10000',
      appendonly: false,
      appendfsync: 'everysec',
      log,
    })
    expect(readPersistence({}, false, env, QUEUE_PERSISTENCE, log)).toMatchObject({ dir: '/data/home/restis/queue', appendonly: true, appendfsync: 'always' })
    expect(readPersistence({}, false, { HOME: '/home/me' }, QUEUE_PERSISTENCE, log)?.dir).toMatch(new RegExp(`${join('.local', 'share', 'restis', 'queue')}$`))
  })

  test('flags override the defaults', () => {
    expect(readPersistence({ dir: 'rel', appendonly: 'NO', appendfsync: 'everysec', save: '', dbfilename: 'q.rdb' }, false, env, QUEUE_PERSISTENCE, log)).toMatchObject({
      dir: join(process.cwd(), 'rel'),
      appendonly: false,
      appendfsync: 'everysec',
      save: '',
      dbfilename: 'q.rdb',
    })
  })

  test('--no-persistence and --redis give no persistence; contradictions and bad values are refused', () => {
    expect(readPersistence({ 'no-persistence': true }, false, env, QUEUE_PERSISTENCE, log)).toBeUndefined()
    expect(readPersistence({}, true, env, QUEUE_PERSISTENCE, log)).toBeUndefined()
    expect(() => readPersistence({ dir: '/x' }, true, env, QUEUE_PERSISTENCE, log)).toThrow('--dir is for the in-memory engine: with --redis the Redis server keeps the data')
    expect(() => readPersistence({ 'no-persistence': true }, true, env, GATEWAY_PERSISTENCE, log)).toThrow('--no-persistence is for the in-memory engine')
    expect(() => readPersistence({ 'no-persistence': true, save: '' }, false, env, GATEWAY_PERSISTENCE, log)).toThrow('--save contradicts --no-persistence')
    expect(() => readPersistence({ appendonly: 'maybe' }, false, env, QUEUE_PERSISTENCE, log)).toThrow('invalid --appendonly: maybe (yes or no)')
    expect(() => readPersistence({ dbfilename: 'a/b' }, false, env, QUEUE_PERSISTENCE, log)).toThrow('invalid --dbfilename: a/b (a file name, not a path)')
  })
})

describe('banner and usage', () => {
  test("the data line says what writes a snapshot in each program", () => {
    const noSavePoints = { dir: '/d', save: '', appendonly: true, appendfsync: 'always' as const }
    expect(persistenceLine(noSavePoints, GATEWAY_PERSISTENCE)).toBe('data: /d/dump.rdb (no save points: written by SAVE and BGSAVE only; append-only file on, appendfsync always)')
    expect(persistenceLine(noSavePoints, QUEUE_PERSISTENCE)).toBe('data: /d/dump.rdb (no save points: no snapshot is written; append-only file on, appendfsync always)')
    expect(persistenceLine(undefined, QUEUE_PERSISTENCE)).toBe('data: in memory only (--no-persistence): nothing is written to disk')
  })

  test("the usage names each program's defaults", () => {
    const queue = persistenceUsage(QUEUE_PERSISTENCE, 27)
    expect(queue).toContain('  --dir <path>             data directory of the in-memory engine (default $XDG_DATA_HOME/restis/queue,\n')
    expect(queue).toContain('start, where it wins over dump.rdb (default yes)\n')
    expect(queue).toContain('always (default): a write is acknowledged once it is on disk')
    expect(queue).toContain('loaded at start and written by save points and shutdown\n')
    const gateway = persistenceUsage(GATEWAY_PERSISTENCE, 25)
    expect(gateway).toContain('written by SAVE, BGSAVE, save points and shutdown\n')
    expect(gateway).toContain('everysec (default): fsync once a second')
  })
})
