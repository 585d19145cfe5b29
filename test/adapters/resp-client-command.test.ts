/**
 * CLIENT on the RESP listener, differential: each scenario runs through raw RESP sockets against
 * the listener (over the in-memory engine) and against redis-server 7.0.15, and the transcripts
 * must match. Values that differ by nature (ports, ids, ages) are compared by shape.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { ReplyError, type Reply } from '../../src/reply.js'
import { MemoryExecutor } from '../../src/executor/memory/memory-executor.js'
import { SocketExecutor } from '../../src/executor/socket/socket-executor.js'
import { serveResp, type RespServer } from '../../src/adapters/resp-server.js'
import { TokenStore } from '../../src/auth/tokens.js'
import { liveSuiteName, redisServerSkipReason, startRedisServer, type RedisServer } from '../support/redis-server.js'
import { multibulk, RawClient, show, waitFor } from '../executor/socket/support.js'

/** The fields of a 7.0.15 CLIENT LIST line, in order (networking.c `catClientInfoString`). */
const REDIS_7_0_FIELDS = [
  'id', 'addr', 'laddr', 'fd', 'name', 'age', 'idle', 'flags', 'db', 'sub', 'psub', 'ssub', 'multi', 'qbuf',
  'qbuf-free', 'argv-mem', 'multi-mem', 'rbs', 'rbp', 'obl', 'oll', 'omem', 'tot-mem', 'events', 'cmd', 'user',
  'redir', 'resp',
]
/** Appended by Redis 7.2 (CLIENT SETINFO), and by the listener. */
const REDIS_7_2_FIELDS = ['lib-name', 'lib-ver']

type Line = Map<string, string>

function parseLines(reply: Reply): Line[] {
  const text = Buffer.from(reply as Uint8Array).toString('latin1')
  expect(text.endsWith('\n') || text === '').toBe(true)
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => new Map(line.split(' ').map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)])))
}

/** A line's values that mean the same on both servers; the rest by shape. */
function essentials(line: Line): Record<string, string> {
  const kept: Record<string, string> = {}
  for (const field of ['name', 'flags', 'db', 'sub', 'psub', 'ssub', 'multi', 'cmd', 'user', 'redir', 'resp']) kept[field] = line.get(field) ?? '(absent)'
  for (const field of ['id', 'age', 'idle', 'qbuf', 'argv-mem', 'omem', 'tot-mem']) kept[field] = /^\d+$/.test(line.get(field) ?? '') ? 'n' : `bad ${line.get(field)}`
  for (const field of ['addr', 'laddr']) kept[field] = /^127\.0\.0\.1:\d+$/.test(line.get(field) ?? '') ? 'ip:port' : `bad ${line.get(field)}`
  return kept
}

interface Target {
  readonly port: number
}

describe.skipIf(redisServerSkipReason !== undefined)(liveSuiteName('CLIENT on the RESP listener, against redis-server 7.0.15'), () => {
  let memory: MemoryExecutor
  let listener: RespServer
  let redis: RedisServer
  const targets: Record<'listener' | 'redis', Target> = { listener: { port: 0 }, redis: { port: 0 } }
  const open: RawClient[] = []

  const connect = async (target: Target): Promise<RawClient> => {
    const client = await RawClient.connect(target.port)
    open.push(client)
    return client
  }

  beforeAll(async () => {
    memory = new MemoryExecutor()
    listener = await serveResp(memory, { port: 0 })
    redis = await startRedisServer()
    targets.listener = { port: listener.address.port }
    targets.redis = { port: redis.port }
  })
  afterAll(async () => {
    for (const client of open) client.destroy()
    await listener?.close()
    await memory?.close()
    await redis?.stop()
  })

  /** Runs `scenario` on both servers; the transcripts must be equal. */
  async function differential(scenario: (target: Target) => Promise<unknown>): Promise<unknown> {
    const ours = await scenario(targets.listener)
    const theirs = await scenario(targets.redis)
    expect(ours).toEqual(theirs)
    return ours
  }

  test('LIST and INFO lines carry 7.0.15 fields in its order, then lib-name and lib-ver', async () => {
    const client = await connect(targets.listener)
    const [line] = parseLines(await client.call('CLIENT', 'INFO'))
    expect([...line.keys()]).toEqual([...REDIS_7_0_FIELDS, ...REDIS_7_2_FIELDS])
    const real = await connect(targets.redis)
    const [theirs] = parseLines(await real.call('CLIENT', 'INFO'))
    expect([...theirs.keys()]).toEqual(REDIS_7_0_FIELDS)
  })

  test('LIST shows every connection with its name, database, flags and last command', async () => {
    const transcript = await differential(async (target) => {
      const a = await connect(target)
      const b = await connect(target)
      const ids = [await a.call('CLIENT', 'ID'), await b.call('CLIENT', 'ID')] as number[]
      const out: unknown[] = [ids[1] > ids[0]]
      out.push(show(await a.call('CLIENT', 'SETNAME', 'worker-a')))
      out.push(show(await b.call('SELECT', '3')))
      out.push(show(await b.call('SET', 'k', 'v')))
      out.push(show(await b.call('MULTI')), show(await b.call('GET', 'k')))
      out.push(show(await a.call('CLIENT', 'GETNAME')), show(await b.call('CLIENT', 'GETNAME')))
      const lines = parseLines(await a.call('CLIENT', 'LIST', 'ID', String(ids[0]), String(ids[1]), '999999'))
      out.push(lines.map(essentials))
      out.push(lines.map((line) => Number(line.get('id'))).join() === ids.join())
      out.push(parseLines(await a.call('CLIENT', 'INFO')).map(essentials))
      out.push(show(await b.call('DISCARD')))
      a.destroy()
      b.destroy()
      return out
    })
    expect(JSON.stringify(transcript)).toContain('"flags":"x"')
    expect(JSON.stringify(transcript)).toContain('"cmd":"client|list"')
  })

  test("cmd= is the last command read: a subcommand's full name, NULL after an unknown command", async () => {
    const transcript = await differential(async (target) => {
      const a = await connect(target)
      const b = await connect(target)
      const id = String(await a.call('CLIENT', 'ID'))
      const cmd = async (): Promise<string | undefined> => parseLines(await b.call('CLIENT', 'LIST', 'ID', id))[0]?.get('cmd')
      const out: unknown[] = [await cmd()]
      await a.call('SET', 'k', 'v')
      out.push(await cmd())
      await a.call('CONFIG', 'GET', 'maxmemory')
      out.push(await cmd())
      out.push(show(await a.call('NOSUCHCOMMAND', 'x')))
      out.push(await cmd())
      await a.call('GET', 'k')
      out.push(await cmd())
      out.push(show(await a.call('CONFIG', 'NOSUCHSUB')))
      out.push(await cmd())
      a.destroy()
      b.destroy()
      return out
    })
    expect(transcript).toContain('config|get')
    expect(transcript).toContain('NULL')
  })

  test('LIST TYPE tells subscribers from normal clients', async () => {
    await differential(async (target) => {
      const a = await connect(target)
      const sub = await connect(target)
      const subId = (await sub.call('CLIENT', 'ID')) as number
      await sub.call('SUBSCRIBE', 'news')
      const pubsub = parseLines(await a.call('CLIENT', 'LIST', 'TYPE', 'pubsub'))
      const normal = parseLines(await a.call('CLIENT', 'LIST', 'TYPE', 'normal'))
      const out = [
        pubsub.map((line) => [Number(line.get('id')) === subId, essentials(line)]),
        normal.some((line) => Number(line.get('id')) === subId),
        parseLines(await a.call('CLIENT', 'LIST', 'TYPE', 'master')).length,
        parseLines(await a.call('CLIENT', 'LIST', 'TYPE', 'replica')).length,
      ]
      a.destroy()
      sub.destroy()
      return out
    })
  })

  test('errors: arity, unknown subcommand, syntax, bad ids, types, modes and timeouts', async () => {
    await differential(async (target) => {
      const c = await connect(target)
      const commands = [
        ['CLIENT'], ['CLIENT', 'NOPE'], ['CLIENT', 'ID', 'x'], ['CLIENT', 'GETNAME', 'x'], ['CLIENT', 'SETNAME'],
        ['CLIENT', 'SETNAME', 'a b'], ['CLIENT', 'SETNAME', 'a\nb'], ['CLIENT', 'LIST', 'TYPE', 'nope'],
        ['CLIENT', 'LIST', 'ID', 'x'], ['CLIENT', 'LIST', 'ID'], ['CLIENT', 'LIST', 'nope'], ['CLIENT', 'LIST', 'TYPE', 'normal', 'ID', '1'],
        ['CLIENT', 'KILL'], ['CLIENT', 'KILL', '1.2.3.4:5'], ['CLIENT', 'KILL', 'ID', '0'], ['CLIENT', 'KILL', 'ID', 'x'],
        ['CLIENT', 'KILL', 'TYPE', 'nope'], ['CLIENT', 'KILL', 'USER', 'nobody'], ['CLIENT', 'KILL', 'SKIPME', 'maybe'],
        ['CLIENT', 'KILL', 'NOPE', 'x'], ['CLIENT', 'KILL', 'ID', '1', 'TYPE'], ['CLIENT', 'KILL', 'ADDR', '1.2.3.4:5'],
        ['CLIENT', 'PAUSE'], ['CLIENT', 'PAUSE', 'x'], ['CLIENT', 'PAUSE', '-1'], ['CLIENT', 'PAUSE', '10', 'NOPE'],
        ['CLIENT', 'PAUSE', 'x', 'NOPE'], ['CLIENT', 'PAUSE', '10', 'WRITE', 'x'], ['CLIENT', 'UNPAUSE', 'x'],
        ['CLIENT', 'REPLY'], ['CLIENT', 'REPLY', 'NOPE'], ['CLIENT', 'REPLY', 'ON', 'x'], ['CLIENT', 'NO-EVICT', 'maybe'],
        ['CLIENT', 'NO-EVICT', 'on'], ['CLIENT', 'NO-EVICT', 'off'], ['CLIENT', 'UNBLOCK'], ['CLIENT', 'UNBLOCK', 'x'],
        ['CLIENT', 'UNBLOCK', '1', 'nope'], ['CLIENT', 'UNBLOCK', 'x', 'nope'], ['CLIENT', 'UNBLOCK', '99999'],
        ['CLIENT', 'UNBLOCK', '1', 'ERROR', 'x'], ['CLIENT', 'GETREDIR'], ['CLIENT', 'TRACKINGINFO'], ['CLIENT', 'HELP', 'x'],
      ]
      const out: unknown[] = []
      for (const command of commands) out.push([command.join(' '), show(await c.call(...command))])
      out.push((show(await c.call('CLIENT', 'HELP')) as string[]).length)
      c.destroy()
      return out
    })
  })

  test('KILL: the old addr form, ID, ADDR, LADDR, USER, TYPE and SKIPME', async () => {
    await differential(async (target) => {
      const out: unknown[] = []
      const killer = await connect(target)
      const [self] = parseLines(await killer.call('CLIENT', 'INFO'))
      const victim = async (): Promise<{ client: RawClient; id: number; addr: string }> => {
        const client = await connect(target)
        const [line] = parseLines(await client.call('CLIENT', 'INFO'))
        return { client, id: Number(line.get('id')), addr: line.get('addr') as string }
      }
      const byId = await victim()
      out.push(show(await killer.call('CLIENT', 'KILL', 'ID', String(byId.id))))
      await byId.client.closed
      const byOldAddr = await victim()
      out.push(show(await killer.call('CLIENT', 'KILL', byOldAddr.addr)))
      await byOldAddr.client.closed
      out.push(show(await killer.call('CLIENT', 'KILL', byOldAddr.addr)))
      const byAddr = await victim()
      out.push(show(await killer.call('CLIENT', 'KILL', 'ADDR', byAddr.addr, 'ID', String(byAddr.id))))
      await byAddr.client.closed
      const subscriber = await victim()
      await subscriber.client.call('SUBSCRIBE', 'x')
      const bystander = await victim()
      out.push(show(await killer.call('CLIENT', 'KILL', 'TYPE', 'pubsub')))
      await subscriber.client.closed
      // SKIPME yes (the default) spares the caller even when every other filter matches it.
      out.push(show(await killer.call('CLIENT', 'KILL', 'ADDR', self.get('addr') as string)))
      out.push(show(await killer.call('CLIENT', 'KILL', 'ID', String(bystander.id), 'LADDR', self.get('laddr') as string, 'USER', 'default')))
      await bystander.client.closed
      // SKIPME no with the caller's own id: the reply comes, then the connection closes.
      out.push(show(await killer.call('CLIENT', 'KILL', 'ID', self.get('id') as string, 'SKIPME', 'no')))
      await killer.closed
      out.push(killer.isClosed)
      return out
    })
  })

  test('REPLY OFF and SKIP drop replies; ON answers again', async () => {
    await differential(async (target) => {
      const c = await connect(target)
      // Written at once: the replies that come are the whole transcript.
      c.write(
        '*3\r\n$6\r\nCLIENT\r\n$5\r\nREPLY\r\n$4\r\nSKIP\r\n' + '*3\r\n$3\r\nSET\r\n$1\r\nr\r\n$1\r\n1\r\n' + '*2\r\n$3\r\nGET\r\n$1\r\nr\r\n' +
          '*3\r\n$6\r\nCLIENT\r\n$5\r\nREPLY\r\n$3\r\nOFF\r\n' + '*3\r\n$3\r\nSET\r\n$1\r\nr\r\n$1\r\n2\r\n' + '*3\r\n$6\r\nCLIENT\r\n$5\r\nREPLY\r\n$4\r\nSKIP\r\n' +
          '*2\r\n$3\r\nGET\r\n$1\r\nr\r\n' + '*3\r\n$6\r\nCLIENT\r\n$5\r\nREPLY\r\n$2\r\nON\r\n' + '*2\r\n$3\r\nGET\r\n$1\r\nr\r\n' + '*1\r\n$4\r\nPING\r\n',
      )
      const replies = (await c.read(4)).map(show)
      const after = show(await c.call('DEL', 'r'))
      // RESET ends REPLY OFF, and is answered itself.
      c.write('*3\r\n$6\r\nCLIENT\r\n$5\r\nREPLY\r\n$3\r\nOFF\r\n' + '*1\r\n$5\r\nRESET\r\n' + '*1\r\n$4\r\nPING\r\n')
      const reset = (await c.read(2)).map(show)
      c.destroy()
      return [replies, after, reset]
    })
  })

  test('REPLY OFF does not silence pub/sub: confirmations and messages still come (Redis 7.0 pushes them)', async () => {
    await differential(async (target) => {
      const c = await connect(target)
      const publisher = await connect(target)
      c.write('*3\r\n$6\r\nCLIENT\r\n$5\r\nREPLY\r\n$3\r\nOFF\r\n' + '*2\r\n$9\r\nSUBSCRIBE\r\n$2\r\nrq\r\n' + '*1\r\n$9\r\nSUBSCRIBE\r\n')
      const confirmed = (await c.read(1)).map(show)
      const count = await publisher.call('PUBLISH', 'rq', 'hello')
      const message = (await c.read(1)).map(show)
      c.destroy()
      publisher.destroy()
      return [confirmed, count, message]
    })
  })

  test('PAUSE WRITE holds a SET but not a GET; UNPAUSE releases the held clients in order', async () => {
    await differential(async (target) => {
      const admin = await connect(target)
      const writer1 = await connect(target)
      const writer2 = await connect(target)
      const reader = await connect(target)
      const ids = [await writer1.call('CLIENT', 'ID'), await writer2.call('CLIENT', 'ID')].map(String)
      const heldFlag = async (id: string): Promise<boolean> =>
        parseLines(await admin.call('CLIENT', 'LIST', 'ID', id))[0]?.get('flags')?.includes('b') === true
      const out: unknown[] = [show(await admin.call('DEL', 'p')), show(await admin.call('CLIENT', 'PAUSE', '100000', 'WRITE'))]
      writer1.write('*3\r\n$3\r\nSET\r\n$1\r\np\r\n$1\r\n1\r\n')
      await waitFor(() => heldFlag(ids[0]), 'the first SET held')
      writer2.write('*3\r\n$3\r\nSET\r\n$1\r\np\r\n$1\r\n2\r\n')
      await waitFor(() => heldFlag(ids[1]), 'the second SET held')
      out.push(show(await reader.call('GET', 'p')), show(await reader.call('PING')))
      out.push(show(await reader.call('MULTI')), show(await reader.call('GET', 'p')), show(await reader.call('EXEC')))
      out.push(show(await admin.call('CLIENT', 'UNPAUSE')))
      out.push(show(await writer1.one()), show(await writer2.one()), show(await reader.call('GET', 'p')))
      for (const client of [admin, writer1, writer2, reader]) client.destroy()
      return out
    })
  })

  test('PAUSE WRITE holds an EXEC of queued writes, PUBLISH, PFCOUNT and scripts that may write; no-writes scripts run', async () => {
    await differential(async (target) => {
      const admin = await connect(target)
      const multi = await connect(target)
      const others = await Promise.all([connect(target), connect(target), connect(target), connect(target)])
      const ids = await Promise.all([multi, ...others].map(async (client) => String(await client.call('CLIENT', 'ID'))))
      const held = async (id: string): Promise<boolean> => parseLines(await admin.call('CLIENT', 'LIST', 'ID', id))[0]?.get('flags')?.includes('b') === true
      const out: unknown[] = [show(await admin.call('PFADD', 'hll', 'a')), show(await multi.call('MULTI')), show(await multi.call('SET', 'm', '1'))]
      out.push(show(await admin.call('CLIENT', 'PAUSE', '100000', 'WRITE')))
      const readOnly = '#!lua flags=no-writes\nreturn 1'
      out.push(show(await others[0].call('EVAL', readOnly, '0')), show(await others[0].call('EVAL_RO', 'return 2', '0')))
      multi.write('*1\r\n$4\r\nEXEC\r\n')
      others[1].write('*3\r\n$7\r\nPUBLISH\r\n$2\r\nch\r\n$1\r\nx\r\n')
      others[2].write('*2\r\n$7\r\nPFCOUNT\r\n$3\r\nhll\r\n')
      others[3].write(multibulk(['EVAL', "#!lua\nreturn 'ok'", '0']))
      for (const id of [ids[0], ids[2], ids[3], ids[4]]) await waitFor(() => held(id), `client ${id} held`)
      out.push(show(await admin.call('CLIENT', 'UNPAUSE')))
      out.push(show(await multi.one()), show(await others[1].one()), show(await others[2].one()), show(await others[3].one()))
      out.push(show(await admin.call('DEL', 'm', 'hll')))
      for (const client of [admin, multi, ...others]) client.destroy()
      return out
    })
  })

  test('PAUSE ALL holds reads too, until its time passes', async () => {
    await differential(async (target) => {
      const admin = await connect(target)
      const reader = await connect(target)
      const id = String(await reader.call('CLIENT', 'ID'))
      const out: unknown[] = [show(await admin.call('SET', 'q', 'v')), show(await admin.call('CLIENT', 'PAUSE', '300', 'ALL'))]
      const started = Date.now()
      reader.write('*2\r\n$3\r\nGET\r\n$1\r\nq\r\n')
      out.push(show(await reader.one()))
      out.push(Date.now() - started >= 200)
      out.push(parseLines(await admin.call('CLIENT', 'LIST', 'ID', id))[0]?.get('flags'))
      admin.destroy()
      reader.destroy()
      return out
    })
  })
})

describe('CLIENT on the RESP listener alone (Redis 7.2 subcommands, executors)', () => {
  let memory: MemoryExecutor
  let listener: RespServer
  const open: RawClient[] = []
  const connect = async (): Promise<RawClient> => {
    const client = await RawClient.connect(listener.address.port)
    open.push(client)
    return client
  }
  beforeAll(async () => {
    memory = new MemoryExecutor()
    listener = await serveResp(memory, { port: 0 })
  })
  afterAll(async () => {
    for (const client of open) client.destroy()
    await listener?.close()
    await memory?.close()
  })

  test('SETINFO LIB-NAME and LIB-VER show in LIST; bad values and options are refused as Redis 7.2 does', async () => {
    const c = await connect()
    expect(show(await c.call('CLIENT', 'SETINFO', 'LIB-NAME', 'mylib'))).toBe('+OK')
    expect(show(await c.call('CLIENT', 'SETINFO', 'lib-ver', '1.2.3'))).toBe('+OK')
    expect(show(await c.call('CLIENT', 'SETINFO', 'lib-ver', 'a b'))).toBe('-ERR lib-ver cannot contain spaces, newlines or special characters.')
    expect(show(await c.call('CLIENT', 'SETINFO', 'nope', 'x'))).toBe("-ERR Unrecognized option 'nope'")
    expect(show(await c.call('CLIENT', 'SETINFO', 'lib-name'))).toBe("-ERR wrong number of arguments for 'client|setinfo' command")
    const [line] = parseLines(await c.call('CLIENT', 'INFO'))
    expect([line.get('lib-name'), line.get('lib-ver')]).toEqual(['mylib', '1.2.3'])
  })

  test('NO-TOUCH ON: reads leave the LFU counter alone, TOUCH still counts; the flag shows as T', async () => {
    const c = await connect()
    // A log factor of 0 makes every hit raise the counter (Redis's LFULogIncr), so counts are exact.
    expect(show(await c.call('CONFIG', 'SET', 'maxmemory-policy', 'allkeys-lfu', 'lfu-log-factor', '0'))).toBe('+OK')
    try {
      await c.call('SET', 'hot', 'v')
      const freq = async (): Promise<number> => (await c.call('OBJECT', 'FREQ', 'hot')) as number
      const start = await freq()
      await c.call('GET', 'hot')
      expect(await freq()).toBe(start + 1)
      expect(show(await c.call('CLIENT', 'NO-TOUCH', 'ON'))).toBe('+OK')
      expect(parseLines(await c.call('CLIENT', 'INFO'))[0].get('flags')).toBe('T')
      await c.call('GET', 'hot')
      await c.call('MULTI')
      await c.call('GET', 'hot')
      await c.call('EXEC')
      await c.call('EVAL', "return redis.call('GET', KEYS[1])", '1', 'hot')
      expect(await freq()).toBe(start + 1)
      await c.call('TOUCH', 'hot')
      expect(await freq()).toBe(start + 2)
      expect(show(await c.call('CLIENT', 'NO-TOUCH', 'OFF'))).toBe('+OK')
      await c.call('GET', 'hot')
      expect(await freq()).toBe(start + 3)
      expect(show(await c.call('CLIENT', 'NO-TOUCH', 'maybe'))).toBe('-ERR syntax error')
    } finally {
      await c.call('CONFIG', 'SET', 'maxmemory-policy', 'noeviction', 'lfu-log-factor', '10')
    }
  })

  test('ids only grow, a closed client leaves LIST, and a killed client loses its held command', async () => {
    const a = await connect()
    const b = await connect()
    const idA = (await a.call('CLIENT', 'ID')) as number
    const idB = (await b.call('CLIENT', 'ID')) as number
    expect(idB).toBeGreaterThan(idA)
    b.destroy()
    await waitFor(async () => parseLines(await a.call('CLIENT', 'LIST', 'ID', String(idB))).length === 0, 'b gone from LIST')
    const c = await connect()
    expect((await c.call('CLIENT', 'ID')) as number).toBeGreaterThan(idB)
    expect(show(await a.call('CLIENT', 'PAUSE', '100000', 'WRITE'))).toBe('+OK')
    const idC = String(await c.call('CLIENT', 'ID'))
    c.write('*3\r\n$3\r\nSET\r\n$4\r\nlost\r\n$1\r\n1\r\n')
    await waitFor(async () => parseLines(await a.call('CLIENT', 'LIST', 'ID', idC))[0]?.get('flags') === 'b', 'SET held')
    expect(await a.call('CLIENT', 'KILL', 'ID', idC)).toBe(1)
    await c.closed
    expect(show(await a.call('CLIENT', 'UNPAUSE'))).toBe('+OK')
    expect(await a.call('EXISTS', 'lost')).toBe(0)
  })

  test('KILL MAXAGE (Redis 7.4) spares clients younger than the age; bad values are refused', async () => {
    const a = await connect()
    const young = await connect()
    const id = String(await young.call('CLIENT', 'ID'))
    expect(await a.call('CLIENT', 'KILL', 'ID', id, 'MAXAGE', '3600')).toBe(0)
    expect(show(await a.call('CLIENT', 'KILL', 'MAXAGE', '0'))).toBe('-ERR maxage should be greater than 0')
    expect(show(await a.call('CLIENT', 'KILL', 'MAXAGE', 'x'))).toBe('-ERR maxage is not an integer or out of range')
    expect(young.isClosed).toBe(false)
    expect(await a.call('CLIENT', 'KILL', 'ID', id)).toBe(1)
    await young.closed
  })

  test('UNBLOCK answers through the hook the blocking commands install', async () => {
    const a = await connect()
    const id = (await a.call('CLIENT', 'ID')) as number
    expect(await a.call('CLIENT', 'UNBLOCK', String(id))).toBe(0)
  })

  test('a read-only login may name itself and read its own INFO, not list or kill others', async () => {
    const tokens = new TokenStore({ token: 'standard-token', readonlyToken: 'readonly-token' })
    const server = await serveResp(memory, { port: 0, auth: tokens })
    try {
      const c = await RawClient.connect(server.address.port)
      open.push(c)
      expect(show(await c.call('AUTH', 'readonly', 'readonly-token'))).toBe('+OK')
      expect(show(await c.call('CLIENT', 'SETNAME', 'ro'))).toBe('+OK')
      expect(parseLines(await c.call('CLIENT', 'INFO'))[0].get('user')).toBe('readonly')
      expect(await c.call('CLIENT', 'LIST')).toBeInstanceOf(ReplyError)
      expect(await c.call('CLIENT', 'KILL', 'ID', '1')).toBeInstanceOf(ReplyError)
    } finally {
      await server.close()
    }
  })
})

describe.skipIf(redisServerSkipReason !== undefined)(liveSuiteName('CLIENT over the socket executor answers for the listener'), () => {
  let redis: RedisServer
  let executor: SocketExecutor
  let listener: RespServer
  beforeAll(async () => {
    redis = await startRedisServer()
    executor = new SocketExecutor({ port: redis.port })
    listener = await serveResp(executor, { port: 0 })
  })
  afterAll(async () => {
    await listener?.close()
    await executor?.close()
    await redis?.stop()
  })

  test("LIST shows the listener's clients, not the upstream pool; NO-TOUCH ON is refused", async () => {
    const a = await RawClient.connect(listener.address.port)
    const b = await RawClient.connect(listener.address.port)
    try {
      await b.call('CLIENT', 'SETNAME', 'listener-b')
      const lines = parseLines(await a.call('CLIENT', 'LIST'))
      expect(lines.map((line) => line.get('name'))).toEqual(['', 'listener-b'])
      expect(show(await a.call('CLIENT', 'NO-TOUCH', 'ON'))).toMatch(/^-ERR CLIENT NO-TOUCH ON is not supported over the socket executor/)
      expect(show(await a.call('CLIENT', 'NO-TOUCH', 'OFF'))).toBe('+OK')
    } finally {
      a.destroy()
      b.destroy()
    }
  })
})
