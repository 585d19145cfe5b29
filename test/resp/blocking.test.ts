/**
 * Blocking commands and WATCH through the RESP listener over the memory engine, and the same
 * cases against a real redis-server 7.0, with the same assertions (ioredis 6 as the client).
 * After each case no client is left blocked and (memory) no key is left watched.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest'
import net from 'node:net'
import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { Redis } from 'ioredis6'
import { RESP_TARGETS, respTargetTitle, type RunningTarget } from '../support/resp-targets.js'
import { waitFor } from '../executor/socket/support.js'

const SWARM = fileURLToPath(new URL('../support/blocked-swarm.mjs', import.meta.url))

for (const respTarget of RESP_TARGETS) {
  describe.skipIf(respTarget.skip !== undefined)(`blocking commands and WATCH: ${respTargetTitle(respTarget)}`, () => {
    let target: RunningTarget
    let clients: Redis[] = []
    let admin: Redis

    const client = (): Redis => {
      const made = new Redis({ port: target.port, host: '127.0.0.1', maxRetriesPerRequest: null, protocol: 2 })
      clients.push(made)
      return made
    }
    const call = (c: Redis, ...args: (string | number)[]): Promise<unknown> => c.call(String(args[0]), ...args.slice(1).map(String))
    const fails = (promise: Promise<unknown>): Promise<string> =>
      promise.then(
        (value) => `resolved ${JSON.stringify(value)}`,
        (error: Error) => error.message,
      )
    const blockedClients = async (): Promise<number> => {
      const info = (await admin.info('clients')) as string
      return Number(/blocked_clients:(\d+)/.exec(info)?.[1])
    }
    const untilBlocked = (n: number): Promise<void> => waitFor(async () => (await blockedClients()) === n, `${n} blocked clients`)

    beforeAll(async () => {
      target = await respTarget.start({ maxClients: 20_000, memory: { activeExpiryInterval: 10 } })
      admin = new Redis({ port: target.port, host: '127.0.0.1', protocol: 2 })
    })
    afterEach(async () => {
      for (const c of clients) c.disconnect()
      clients = []
      await untilBlocked(0)
      await admin.flushall()
      const memory = target.memory
      if (memory !== undefined) await waitFor(() => memory.engine.watches.count === 0, 'no watched keys')
    })
    afterAll(async () => {
      admin?.disconnect()
      await target?.stop()
    })

    test('BLPOP clients on one key are served in the order they blocked, one element each', async () => {
      const waiting: Promise<unknown>[] = []
      for (let i = 0; i < 3; i++) {
        waiting.push(call(client(), 'BLPOP', 'q', 0))
        await untilBlocked(i + 1)
      }
      expect(await admin.rpush('q', 'a', 'b', 'c', 'd')).toBe(4)
      expect(await Promise.all(waiting)).toEqual([['q', 'a'], ['q', 'b'], ['q', 'c']])
      expect(await admin.lrange('q', 0, -1)).toEqual(['d'])
    })

    test('BRPOP and BLPOP on several keys: served from the key that got data, key named in the reply', async () => {
      const right = call(client(), 'BRPOP', 'a', 'b', 0)
      await untilBlocked(1)
      await admin.rpush('b', 'x', 'y')
      expect(await right).toEqual(['b', 'y'])
      await admin.rpush('a', 'first')
      expect(await call(client(), 'BLPOP', 'missing', 'a', 'b', 0)).toEqual(['a', 'first'])
    })

    test('a MULTI that pushes to several keys serves each waiting client after EXEC', async () => {
      const one = call(client(), 'BLPOP', 'k1', 0)
      await untilBlocked(1)
      const two = call(client(), 'BLPOP', 'k2', 0)
      await untilBlocked(2)
      const results = await admin.multi().lpush('k1', 'v1').lpush('k2', 'v2').del('k1').exec()
      expect(results?.map(([error]) => error)).toEqual([null, null, null])
      // The block ran whole before anyone was served: k1 was deleted again by then.
      expect(await two).toEqual(['k2', 'v2'])
      expect(await blockedClients()).toBe(1)
      await admin.lpush('k1', 'later')
      expect(await one).toEqual(['k1', 'later'])
    })

    test('BLMOVE hands its element to a client blocked on the destination', async () => {
      const mover = call(client(), 'BLMOVE', 'src', 'dst', 'LEFT', 'RIGHT', 0)
      await untilBlocked(1)
      const reader = call(client(), 'BLPOP', 'dst', 0)
      await untilBlocked(2)
      await admin.lpush('src', 'x')
      expect(await mover).toBe('x')
      expect(await reader).toEqual(['dst', 'x'])
      expect(await admin.exists('src', 'dst')).toBe(0)
      const legacy = call(client(), 'BRPOPLPUSH', 'src', 'dst', 0)
      await untilBlocked(1)
      await admin.rpush('src', 'a', 'b')
      expect(await legacy).toBe('b')
      expect(await admin.lrange('dst', 0, -1)).toEqual(['b'])
    })

    test('BLMPOP and BZMPOP serve up to COUNT elements; BZPOPMIN and BZPOPMAX name key, member, score', async () => {
      const lists = call(client(), 'BLMPOP', 0, 2, 'l1', 'l2', 'RIGHT', 'COUNT', 2)
      await untilBlocked(1)
      await admin.rpush('l2', 'a', 'b', 'c')
      expect(await lists).toEqual(['l2', ['c', 'b']])
      const min = call(client(), 'BZPOPMIN', 'z', 0)
      await untilBlocked(1)
      await admin.zadd('z', 2, 'two', 1, 'one', 3, 'three')
      expect(await min).toEqual(['z', 'one', '1'])
      expect(await call(client(), 'BZPOPMAX', 'z', 0)).toEqual(['z', 'three', '3'])
      await admin.del('z')
      const many = call(client(), 'BZMPOP', 0, 1, 'z', 'MAX', 'COUNT', 5)
      await untilBlocked(1)
      await admin.zadd('z', 1, 'a', 2, 'b')
      expect(await many).toEqual(['z', [['b', '2'], ['a', '1']]])
    })

    test('sub-second timeouts answer the null reply after about their time', async () => {
      const c = client()
      for (const args of [
        ['BLPOP', 'none', '0.05'],
        ['BRPOP', 'none', '0.05'],
        ['BLMOVE', 'none', 'd', 'LEFT', 'LEFT', '0.05'],
        ['BRPOPLPUSH', 'none', 'd', '0.05'],
        ['BLMPOP', '0.05', '1', 'none', 'LEFT'],
        ['BZPOPMIN', 'none', '0.05'],
        ['BZMPOP', '0.05', '1', 'none', 'MIN'],
        ['XREAD', 'BLOCK', '50', 'STREAMS', 'none', '$'],
      ]) {
        const started = Date.now()
        expect(await call(c, ...args)).toBeNull()
        expect(Date.now() - started).toBeGreaterThanOrEqual(45)
      }
      expect(await call(c, 'WAIT', 0, 0)).toBe(0)
      const started = Date.now()
      expect(await call(c, 'WAIT', 1, 50)).toBe(0)
      expect(Date.now() - started).toBeGreaterThanOrEqual(45)
    })

    test('bad timeouts are refused with Redis texts, before the keys are looked at', async () => {
      const c = client()
      await admin.set('str', 'x')
      expect(await fails(call(c, 'BLPOP', 'str', '-1'))).toBe('ERR timeout is negative')
      expect(await fails(call(c, 'BLPOP', 'str', 'abc'))).toBe('ERR timeout is not a float or out of range')
      expect(await fails(call(c, 'BZPOPMIN', 'str', ' 1'))).toBe('ERR timeout is not a float or out of range')
      expect(await fails(call(c, 'BLPOP', 'str', '0'))).toMatch(/^WRONGTYPE/)
      expect(await fails(call(c, 'XREAD', 'BLOCK', '-1', 'STREAMS', 's', '$'))).toBe('ERR timeout is negative')
      expect(await fails(call(c, 'XREAD', 'BLOCK', '1.5', 'STREAMS', 's', '$'))).toBe('ERR timeout is not an integer or out of range')
      expect(await fails(call(c, 'BLMPOP', '-1', '0', 'l', 'LEFT'))).toBe('ERR numkeys should be greater than 0')
      expect(await fails(call(c, 'BLMOVE', 'a', 'b', 'UP', 'LEFT', '-1'))).toBe('ERR syntax error')
      expect(await fails(call(c, 'WAIT', 'x', '0'))).toBe('ERR value is not an integer or out of range')
    })

    test('inside MULTI blocking commands answer at once as if timed out', async () => {
      const results = await client().multi().blpop('none', 0).bzpopmin('none', 0).xread('BLOCK', 0, 'STREAMS', 'none', '$').exec()
      expect(results).toEqual([[null, null], [null, null], [null, null]])
      expect(await fails(call(client(), 'EVAL', "return redis.call('XREAD', 'BLOCK', 0, 'STREAMS', 'none', '$')", 0))).toMatch(
        /^ERR XREAD command is not allowed with BLOCK option from scripts/,
      )
    })

    test('XREAD BLOCK with $ gets only entries added after it blocked', async () => {
      await admin.xadd('s', '1-1', 'old', 'x')
      const reader = call(client(), 'XREAD', 'BLOCK', 0, 'STREAMS', 's', 'other', '$', '$')
      await untilBlocked(1)
      await admin.xadd('s', '2-1', 'new', 'y')
      expect(await reader).toEqual([['s', [['2-1', ['new', 'y']]]]])
    })

    test('XREADGROUP BLOCK: served with new entries, pending after; errors when the group or stream goes', async () => {
      await admin.xgroup('CREATE', 's', 'g', '$', 'MKSTREAM')
      const reader = call(client(), 'XREADGROUP', 'GROUP', 'g', 'alice', 'BLOCK', 0, 'STREAMS', 's', '>')
      await untilBlocked(1)
      await admin.xadd('s', '5-1', 'f', 'v')
      expect(await reader).toEqual([['s', [['5-1', ['f', 'v']]]]])
      expect(await admin.xpending('s', 'g')).toEqual([1, '5-1', '5-1', [['alice', '1']]])
      const groupGone = fails(call(client(), 'XREADGROUP', 'GROUP', 'g', 'bob', 'BLOCK', 0, 'STREAMS', 's', '>'))
      await untilBlocked(1)
      await admin.xgroup('DESTROY', 's', 'g')
      expect(await groupGone).toBe('NOGROUP the consumer group this client was blocked on no longer exists')
      await admin.xgroup('CREATE', 's', 'g', '$')
      const streamGone = fails(call(client(), 'XREADGROUP', 'GROUP', 'g', 'bob', 'BLOCK', 0, 'STREAMS', 's', '>'))
      await untilBlocked(1)
      await admin.del('s')
      expect(await streamGone).toBe('UNBLOCKED the stream key no longer exists')
    })

    test('a key of another type keeps list clients blocked; a list after it serves them', async () => {
      const waiting = call(client(), 'BLPOP', 'k', 0)
      await untilBlocked(1)
      await admin.set('k', 'string')
      await admin.del('k')
      expect(await blockedClients()).toBe(1)
      await admin.rpush('k', 'v')
      expect(await waiting).toEqual(['k', 'v'])
    })

    test('a list that arrives by RENAME, MOVE, RESTORE or SWAPDB serves the blocked client', async () => {
      const byRename = call(client(), 'BLPOP', 'target', 0)
      await untilBlocked(1)
      await admin.rpush('source', 'renamed')
      await admin.rename('source', 'target')
      expect(await byRename).toEqual(['target', 'renamed'])
      const byMove = call(client(), 'BLPOP', 'moved', 0)
      await untilBlocked(1)
      await admin.select(1)
      await admin.rpush('moved', 'from db 1')
      await admin.move('moved', 0)
      await admin.select(0)
      expect(await byMove).toEqual(['moved', 'from db 1'])
      await admin.rpush('dumped', 'restored')
      const payload = await admin.dumpBuffer('dumped')
      await admin.del('dumped')
      const byRestore = call(client(), 'BLPOP', 'dumped', 0)
      await untilBlocked(1)
      await admin.restore('dumped', 0, payload)
      expect(await byRestore).toEqual(['dumped', 'restored'])
      const bySwap = call(client(), 'BLPOP', 'swapped', 0)
      await untilBlocked(1)
      await admin.select(2)
      await admin.rpush('swapped', 'from db 2')
      await admin.select(0)
      await admin.swapdb(0, 2)
      expect(await bySwap).toEqual(['swapped', 'from db 2'])
      await admin.flushall()
    })

    test('CLIENT UNBLOCK ends a blocked call as timed out or with an error; 0 for a client not blocked', async () => {
      const c = client()
      const id = Number(await call(c, 'CLIENT', 'ID'))
      const waiting = call(c, 'BLPOP', 'q', 0)
      await untilBlocked(1)
      expect(await call(admin, 'CLIENT', 'UNBLOCK', id)).toBe(1)
      expect(await waiting).toBeNull()
      const erroring = fails(call(c, 'BZPOPMIN', 'z', 0))
      await untilBlocked(1)
      expect(await call(admin, 'CLIENT', 'UNBLOCK', id, 'ERROR')).toBe(1)
      expect(await erroring).toBe('UNBLOCKED client unblocked via CLIENT UNBLOCK')
      expect(await call(admin, 'CLIENT', 'UNBLOCK', id)).toBe(0)
      expect(await fails(call(admin, 'CLIENT', 'UNBLOCK', id, 'LATER'))).toBe('ERR CLIENT UNBLOCK reason should be TIMEOUT or ERROR')
    })

    test('a client that disconnects while blocked is forgotten: a later push stays in the list', async () => {
      const c = client()
      void call(c, 'BLPOP', 'q', 0).catch(() => {})
      await untilBlocked(1)
      c.disconnect()
      await untilBlocked(0)
      await admin.rpush('q', 'kept')
      expect(await admin.lrange('q', 0, -1)).toEqual(['kept'])
    })

    test('BLOCK 0 then QUIT on a raw connection: the QUIT waits, closing ends the block', async () => {
      const socket = net.connect(target.port, '127.0.0.1')
      await new Promise((resolve) => socket.once('connect', resolve))
      socket.write('*3\r\n$5\r\nBLPOP\r\n$1\r\nq\r\n$1\r\n0\r\n*1\r\n$4\r\nQUIT\r\n')
      await untilBlocked(1)
      socket.destroy()
      await untilBlocked(0)
    })

    test('a pipeline after a blocking command waits for it: its commands run after the block ends', async () => {
      const c = client()
      const pipeline = c.pipeline().blpop('q', 0).lpush('q', 'mine').exec()
      await untilBlocked(1)
      await admin.rpush('q', 'other')
      expect(await pipeline).toEqual([[null, ['q', 'other']], [null, 1]])
    })

    test('WATCH: EXEC runs when nothing touched the key, answers null when another client wrote it', async () => {
      const c = client()
      await admin.set('k', '1')
      expect(await c.watch('k')).toBe('OK')
      expect(await c.multi().incr('k').exec()).toEqual([[null, 2]])
      await c.watch('k')
      await admin.set('k', '10')
      expect(await c.multi().incr('k').exec()).toBeNull()
      expect(await admin.get('k')).toBe('10')
      // EXEC ended the watches: the next block runs.
      await admin.set('k', '20')
      expect(await c.multi().incr('k').exec()).toEqual([[null, 21]])
    })

    test('WATCH: what touches a key (EXPIRE, DEL, RENAME both ends, FLUSHDB, SWAPDB, a list push, a script)', async () => {
      const c = client()
      const doomedBy = async (setup: () => Promise<unknown>, keys: string[], touch: () => Promise<unknown>): Promise<boolean> => {
        await admin.flushall()
        await setup()
        await c.watch(...keys)
        await touch()
        return (await c.multi().ping().exec()) === null
      }
      const set = (): Promise<unknown> => admin.mset('a', '1', 'b', '2')
      expect(await doomedBy(set, ['a'], () => admin.expire('a', 100))).toBe(true)
      expect(await doomedBy(set, ['a'], () => admin.del('a'))).toBe(true)
      expect(await doomedBy(set, ['b'], () => admin.rename('a', 'b'))).toBe(true)
      expect(await doomedBy(set, ['a'], () => admin.rename('a', 'c'))).toBe(true)
      expect(await doomedBy(set, ['a'], () => admin.flushdb())).toBe(true)
      expect(await doomedBy(set, ['zzz'], () => admin.flushdb())).toBe(false)
      expect(await doomedBy(set, ['a'], () => admin.swapdb(0, 1))).toBe(true)
      expect(await doomedBy(() => admin.rpush('l', 'x'), ['l'], () => admin.rpush('l', 'y'))).toBe(true)
      expect(await doomedBy(set, ['a'], () => admin.eval("return redis.call('SET', KEYS[1], 'z')", 1, 'a'))).toBe(true)
      expect(await doomedBy(set, ['a'], () => admin.get('a'))).toBe(false)
      expect(await doomedBy(set, ['a'], () => admin.set('other', 'x'))).toBe(false)
      // SORT … STORE of an empty result touches the destination when it deletes one, only then.
      expect(await doomedBy(() => admin.rpush('d', 'x'), ['d'], () => admin.sort('none', 'STORE', 'd'))).toBe(true)
      expect(await doomedBy(set, ['d'], () => admin.sort('none', 'STORE', 'd'))).toBe(false)
    })

    test('WATCH: a key that expires before EXEC dooms it; UNWATCH and DISCARD forget the watches', async () => {
      const c = client()
      await admin.set('k', '1', 'PX', 50)
      await c.watch('k')
      await new Promise((resolve) => setTimeout(resolve, 80)) // the key's own deadline, not a synchronisation
      expect(await c.multi().ping().exec()).toBeNull()
      await admin.set('k', '1')
      await c.watch('k')
      expect(await c.unwatch()).toBe('OK')
      await admin.set('k', '2')
      expect(await c.multi().ping().exec()).toEqual([[null, 'PONG']])
      await c.watch('k')
      await admin.set('k', '3')
      await call(c, 'MULTI')
      await call(c, 'PING')
      expect(await call(c, 'DISCARD')).toBe('OK')
      expect(await c.multi().ping().exec()).toEqual([[null, 'PONG']])
    })

    test('WATCH inside MULTI is refused with Redis text', async () => {
      const c = client()
      expect(await c.multi().exec()).toEqual([])
      await call(c, 'MULTI')
      expect(await fails(call(c, 'WATCH', 'k'))).toBe('ERR WATCH inside MULTI is not allowed')
      expect(await call(c, 'EXEC')).toEqual([])
    })

    test('10,000 clients blocked on one key: served in two pushes, none left blocked', async () => {
      const count = 10_000
      const swarm = spawn(process.execPath, [SWARM, String(target.port), String(count), 'q', '0'], { stdio: ['ignore', 'pipe', 'inherit'] })
      let output = ''
      swarm.stdout.on('data', (chunk: Buffer) => {
        output += chunk.toString()
      })
      const exited = new Promise((resolve) => swarm.once('exit', resolve))
      await waitFor(() => output.includes('sent\n'), 'every BLPOP sent', 50_000)
      await waitFor(async () => (await blockedClients()) === count, `${count} blocked`, 30_000)
      const half = Array.from({ length: count / 2 }, (_, i) => String(i))
      await admin.rpush('q', ...half)
      await untilBlocked(count / 2)
      expect(await admin.llen('q')).toBe(0)
      await admin.rpush('q', ...half)
      await exited
      expect(JSON.parse(output.trim().split('\n').at(-1) as string)).toEqual({ served: count, timedOut: 0 })
      expect(await admin.llen('q')).toBe(0)
      await untilBlocked(0)
    }, 120_000)
  })
}
