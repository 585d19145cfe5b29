/**
 * WAITAOF (Redis 7.2) through the RESP listener over the memory engine, with the AOF off and on
 * under each fsync policy. redis-server 7.0 has no WAITAOF, so the expectations are Redis 7.2's
 * (`waitaofCommand` in replication.c and its tests/unit/wait.tcl): errors in its order and texts,
 * `[numlocal acked, replicas acked]`, a block until this connection's last write is fsynced.
 */
import { afterEach, describe, expect, test } from 'vitest'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { Redis } from 'ioredis6'
import { MemoryExecutor } from '../../src/executor/memory/memory-executor.js'
import type { AppendFsync } from '../../src/executor/memory/persistence/aof.js'
import { serveResp, type RespServer } from '../../src/adapters/resp-server.js'
import { waitFor } from '../executor/socket/support.js'

const NO_AOF = 'ERR WAITAOF cannot be used when numlocal is set but appendonly is disabled.'

interface Target {
  readonly executor: MemoryExecutor
  readonly server: RespServer
  readonly dir: string
}

let targets: Target[] = []
let clients: Redis[] = []

async function start(appendfsync?: AppendFsync): Promise<Target> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'restis-waitaof-'))
  const persistence = appendfsync === undefined ? { dir } : { dir, appendonly: true, appendfsync }
  const executor = new MemoryExecutor({ activeExpiryInterval: 0, persistence })
  const server = await serveResp(executor, { port: 0 })
  const target = { executor, server, dir }
  targets.push(target)
  return target
}

function client(target: Target): Redis {
  const made = new Redis({ port: target.server.address.port, host: '127.0.0.1', maxRetriesPerRequest: null, protocol: 2 })
  clients.push(made)
  return made
}

const call = (c: Redis, ...args: (string | number)[]): Promise<unknown> => c.call(String(args[0]), ...args.slice(1).map(String))
const fails = (promise: Promise<unknown>): Promise<string> =>
  promise.then(
    (value) => `resolved ${JSON.stringify(value)}`,
    (error: Error) => error.message,
  )
const untilBlocked = (target: Target, n: number): Promise<void> =>
  waitFor(() => target.executor.engine.blocking.count === n, `${n} blocked clients`)

afterEach(async () => {
  for (const c of clients) c.disconnect()
  clients = []
  for (const { executor, server, dir } of targets) {
    await waitFor(() => executor.engine.blocking.count === 0, 'no client left blocked')
    await server.close()
    await executor.close()
    fs.rmSync(dir, { recursive: true, force: true })
  }
  targets = []
})

describe('WAITAOF with appendonly off', () => {
  test('numlocal 0 answers [0, 0] at once; numlocal 1 is refused with Redis 7.2 text', async () => {
    const c = client(await start())
    await c.set('k', 'v')
    expect(await call(c, 'WAITAOF', 0, 0, 0)).toEqual([0, 0])
    expect(await fails(call(c, 'WAITAOF', 1, 0, 0))).toBe(NO_AOF)
  })

  test('arguments are checked in Redis order: numlocal, numreplicas, timeout, then the AOF', async () => {
    const c = client(await start())
    expect(await fails(call(c, 'WAITAOF', 'x', 0, 0))).toBe('ERR value is not an integer or out of range')
    expect(await fails(call(c, 'WAITAOF', 2, 0, 0))).toBe('ERR value is out of range, value must between 0 and 1')
    expect(await fails(call(c, 'WAITAOF', -1, 'x', 'x'))).toBe('ERR value is out of range, value must between 0 and 1')
    expect(await fails(call(c, 'WAITAOF', 1, 'x', 0))).toBe('ERR value is not an integer or out of range')
    expect(await fails(call(c, 'WAITAOF', 1, -1, 0))).toBe('ERR value is out of range, must be positive')
    expect(await fails(call(c, 'WAITAOF', 1, 0, -1))).toBe('ERR timeout is negative')
    expect(await fails(call(c, 'WAITAOF', 1, 0, '1.5'))).toBe('ERR timeout is not an integer or out of range')
    expect(await fails(call(c, 'WAITAOF', 0, 0))).toBe("ERR wrong number of arguments for 'waitaof' command")
  })

  test('numreplicas ≥ 1 waits its timeout (no replica ever acknowledges); 0 waits until CLIENT UNBLOCK', async () => {
    const target = await start()
    const c = client(target)
    const started = Date.now()
    expect(await call(c, 'WAITAOF', 0, 1, 50)).toEqual([0, 0])
    expect(Date.now() - started).toBeGreaterThanOrEqual(45)
    const id = await c.client('ID')
    const forever = call(c, 'WAITAOF', 0, 1, 0)
    await untilBlocked(target, 1)
    expect(await call(client(target), 'CLIENT', 'UNBLOCK', id)).toBe(1)
    expect(await forever).toEqual([0, 0])
  })

  test('inside MULTI it answers at once; scripts may not call it', async () => {
    const c = client(await start())
    expect(await c.multi().call('WAITAOF', '0', '1', '0').exec()).toEqual([[null, [0, 0]]])
    expect(await fails(call(c, 'EVAL', "return redis.call('WAITAOF', 0, 0, 0)", 0))).toMatch(/This Redis command is not allowed from script/)
  })
})

describe('WAITAOF with appendonly on', () => {
  test('appendfsync always: the write is on disk when its reply comes, [1, 0] at once', async () => {
    const c = client(await start('always'))
    await c.set('k', 'v')
    expect(await call(c, 'WAITAOF', 1, 0, 0)).toEqual([1, 0])
    expect(await call(c, 'WAITAOF', 0, 0, 0)).toEqual([1, 0])
  })

  test('appendfsync everysec: blocks until the periodic fsync covers the last write', async () => {
    const target = await start('everysec')
    const c = client(target)
    await c.set('k', 'v')
    const waiting = call(c, 'WAITAOF', 1, 0, 0)
    expect(await waiting).toEqual([1, 0])
    // A connection that wrote nothing has nothing to wait for.
    expect(await call(client(target), 'WAITAOF', 1, 0, 0)).toEqual([1, 0])
  })

  test('appendfsync no: nothing is known on disk, so it waits the timeout and answers [0, 0]', async () => {
    const target = await start('no')
    const c = client(target)
    await c.set('k', 'v')
    const started = Date.now()
    expect(await call(c, 'WAITAOF', 1, 0, 100)).toEqual([0, 0])
    expect(Date.now() - started).toBeGreaterThanOrEqual(95)
    expect(await call(client(target), 'WAITAOF', 1, 0, 0)).toEqual([1, 0])
  })

  test('numreplicas 1 waits the timeout even once the local fsync happened: [1, 0]', async () => {
    const c = client(await start('always'))
    await c.set('k', 'v')
    const started = Date.now()
    expect(await call(c, 'WAITAOF', 1, 1, 50)).toEqual([1, 0])
    expect(Date.now() - started).toBeGreaterThanOrEqual(45)
  })

  test('a caller blocked on the local fsync gets the error when appendonly is turned off', async () => {
    const target = await start('no')
    const c = client(target)
    await c.set('k', 'v')
    const waiting = fails(call(c, 'WAITAOF', 1, 0, 0))
    await untilBlocked(target, 1)
    expect(await client(target).config('SET', 'appendonly', 'no')).toBe('OK')
    expect(await waiting).toBe(NO_AOF)
  })
})
