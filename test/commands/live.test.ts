/**
 * The command table against a live redis-server: same commands, byte-identical COMMAND INFO /
 * COMMAND DOCS replies, COMMAND GETKEYS parity, and the same lookup / arity errors.
 */
import fs from 'node:fs'
import net from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  allCommands,
  arityError,
  checkArity,
  commandGetKeys,
  lookupError,
  resolveCommand,
  SERVER_VERSION,
  type CommandInfo,
} from '../../src/commands/lookup.js'
import { commandDocsReply, commandInfoReply } from '../../src/commands/introspection.js'
import { isReplyError, type Reply } from '../../src/reply.js'
import { liveSuiteName, ping, redisServerSkipReason, startRedisServer, type RedisServer } from '../support/redis-server.js'
import { encodeReply, RawConnection } from './wire.js'

const overlay = JSON.parse(fs.readFileSync(new URL('../../scripts/command-overlay.json', import.meta.url), 'utf8')) as {
  commands: { name: string }[]
}
const overlayNames = new Set(overlay.commands.map((c) => c.name))
const fromServer = (c: CommandInfo): boolean => !overlayNames.has(c.name)
const text = (bytes: Reply): string => new TextDecoder().decode(bytes as Uint8Array)

/**
 * True when `actual` is `prefix` followed by all of `units` in some order: Redis lists
 * subcommands in hash-table order, which changes from one server run to the next.
 */
function matchesUpToOrder(actual: Buffer, prefix: Buffer, units: Buffer[]): boolean {
  if (!actual.subarray(0, prefix.length).equals(prefix)) return false
  let offset = prefix.length
  const left = [...units]
  while (left.length > 0) {
    const i = left.findIndex((unit) => actual.subarray(offset, offset + unit.length).equals(unit))
    if (i === -1) return false
    offset += left[i].length
    left.splice(i, 1)
  }
  return offset === actual.length
}

describe.skipIf(redisServerSkipReason !== undefined)(liveSuiteName('test/support/redis-server'), () => {
  it('starts servers on distinct free ports and stops them', async () => {
    const [a, b] = await Promise.all([startRedisServer(), startRedisServer()])
    try {
      expect(a.port).not.toBe(b.port)
      expect(a.url).toBe(`redis://127.0.0.1:${a.port}`)
      expect(await ping(a.port)).toBe(true)
      expect(await ping(b.port)).toBe(true)
    } finally {
      await Promise.all([a.stop(), b.stop()])
    }
    expect(await ping(a.port)).toBe(false)
    await a.stop() // idempotent
    await new Promise<void>((resolve, reject) => {
      // The port is free again once stop() resolved.
      const probe = net.createServer().once('error', reject)
      probe.listen(a.port, '127.0.0.1', () => probe.close(() => resolve()))
    })
  })
})

describe.skipIf(redisServerSkipReason !== undefined)(liveSuiteName('command table vs live redis-server'), () => {
  let server: RedisServer
  let conn: RawConnection

  beforeAll(async () => {
    server = await startRedisServer()
    conn = await RawConnection.connect(server.port)
  })
  afterAll(async () => {
    conn?.close()
    await server?.stop()
  })

  it('runs against the server version the table came from', async () => {
    const info = (await conn.request(['INFO', 'server'])).toString()
    expect(info).toContain(`redis_version:${SERVER_VERSION}\r\n`)
  })

  it('has every command the server reports (COMMAND COUNT)', async () => {
    const top = [...allCommands()].filter((c) => !c.parent && fromServer(c))
    expect((await conn.request(['COMMAND', 'COUNT'])).toString()).toBe(`:${top.length}\r\n`)
  })

  it('answers COMMAND INFO byte for byte for every command and subcommand', async () => {
    let checked = 0
    for (const c of allCommands()) {
      if (!fromServer(c)) continue
      const actual = await conn.request(['COMMAND', 'INFO', c.name])
      const entry = commandInfoReply(c) as readonly Reply[]
      const subs = (entry[9] as readonly Reply[]).filter((sub) => !overlayNames.has(text((sub as readonly Reply[])[0])))
      const prefix = Buffer.concat([Buffer.from('*1\r\n*10\r\n'), ...entry.slice(0, 9).map(encodeReply), Buffer.from(`*${subs.length}\r\n`)])
      const ok = matchesUpToOrder(actual, prefix, subs.map(encodeReply))
      if (!ok) expect(actual.toString(), c.name).toBe(Buffer.concat([prefix, ...subs.map(encodeReply)]).toString())
      checked++
    }
    expect(checked).toBeGreaterThan(350)
  })

  it('answers COMMAND DOCS byte for byte for every command and subcommand', async () => {
    let checked = 0
    for (const c of allCommands()) {
      if (!fromServer(c)) continue
      const actual = await conn.request(['COMMAND', 'DOCS', c.name])
      const docs = commandDocsReply(c) as readonly Reply[]
      expect(docs, c.name).toBeDefined()
      const head = Buffer.concat([Buffer.from('*2\r\n'), encodeReply(new TextEncoder().encode(c.name))])
      let prefix: Buffer
      let units: Buffer[] = []
      if (c.subcommands && text(docs[docs.length - 2]) === 'subcommands') {
        const pairs = docs[docs.length - 1] as readonly Reply[]
        for (let i = 0; i < pairs.length; i += 2) {
          if (!overlayNames.has(text(pairs[i]))) units.push(Buffer.concat([encodeReply(pairs[i]), encodeReply(pairs[i + 1])]))
        }
        prefix = Buffer.concat([
          head,
          Buffer.from(`*${docs.length}\r\n`),
          ...docs.slice(0, -1).map(encodeReply),
          Buffer.from(`*${units.length * 2}\r\n`),
        ])
      } else {
        prefix = Buffer.concat([head, encodeReply(docs)])
        units = []
      }
      const ok = matchesUpToOrder(actual, prefix, units)
      if (!ok) expect(actual.toString(), c.name).toBe(Buffer.concat([prefix, ...units]).toString())
      checked++
    }
    expect(checked).toBeGreaterThan(350)
  })

  const getKeysCases: readonly (readonly string[])[] = [
    ['GET', 'k'],
    ['get', 'k'],
    ['MSET', 'a', '1', 'b', '2'],
    ['MGET', 'a', 'b', 'c'],
    ['DEL', 'a', 'b'],
    ['SET', 'k', 'v', 'GET'],
    ['BITFIELD', 'k', 'GET', 'u8', '0'],
    ['RENAME', 'a', 'b'],
    ['SMOVE', 'a', 'b', 'm'],
    ['LMOVE', 'a', 'b', 'LEFT', 'RIGHT'],
    ['BLMOVE', 'a', 'b', 'LEFT', 'RIGHT', '0'],
    ['BLPOP', 'a', 'b', '0'],
    ['COPY', 'a', 'b'],
    ['BITOP', 'AND', 'd', 'a', 'b'],
    ['PFMERGE', 'd', 'a', 'b'],
    ['TOUCH', 'a', 'b'],
    ['WATCH', 'a', 'b'],
    ['GEOSEARCHSTORE', 'd', 's', 'FROMMEMBER', 'm', 'BYRADIUS', '1', 'm'],
    ['ZUNIONSTORE', 'd', '2', 'a', 'b', 'WEIGHTS', '1', '2'],
    ['ZUNIONSTORE', 'd', '0', 'a'],
    ['ZUNIONSTORE', 'd', '1x', 'a'],
    ['ZUNIONSTORE', 'd', '-1', 'a'],
    ['ZUNIONSTORE', 'd', '3', 'a', 'b'],
    ['ZINTERSTORE', 'd', '2', 'a', 'b'],
    ['ZDIFFSTORE', 'd', '1', 'a'],
    ['ZUNION', '2', 'a', 'b'],
    ['ZUNION', '2', 'a'],
    ['ZINTER', '1', 'a', 'WITHSCORES'],
    ['ZDIFF', '2', 'a', 'b'],
    ['ZINTERCARD', '2', 'a', 'b', 'LIMIT', '1'],
    ['SINTERCARD', '1', 'a'],
    ['EVAL', 's', '2', 'a', 'b', 'x', 'y'],
    ['EVAL', 's', '0'],
    ['EVAL', 's', '5', 'a'],
    ['EVAL', 's', '1abc', 'k'],
    ['EVAL', 's', '+1', 'k'],
    ['EVAL', 's', ' 1', 'k'],
    ['EVAL', 's', '01', 'k'],
    ['eVaL', 's', '1', 'k'],
    ['EVALSHA', 'sha', '1', 'k'],
    ['EVALSHA_RO', 'sha', '1', 'k'],
    ['EVAL_RO', 's', '2', 'a', 'b'],
    ['FCALL', 'f', '2', 'a', 'b', 'x'],
    ['FCALL_RO', 'f', '0'],
    ['LMPOP', '2', 'a', 'b', 'LEFT'],
    ['LMPOP', '0', 'LEFT'],
    ['LMPOP', '1', 'a', 'LEFT'],
    ['BLMPOP', '0', '1', 'a', 'LEFT'],
    ['ZMPOP', '1', 'a', 'MIN'],
    ['BZMPOP', '1', '2', 'a', 'b', 'MAX'],
    ['XREAD', 'COUNT', '1', 'STREAMS', 'a', 'b', '0', '0'],
    ['XREAD', 'STREAMS', 'a', 'b', '0'],
    ['XREAD', 'STREAMS', 'a'],
    ['XREAD', 'COUNT', '1', 'STREAMS'],
    ['XREAD', 'COUNT', '1', 'STREAMS', 'a'],
    ['XREAD', 'BLOCK', '0', 'STREAMS', 'a', '0'],
    ['XREAD', 'STREAMS', 'streams', 'a', '0', '0'],
    ['XREADGROUP', 'GROUP', 'g', 'c', 'STREAMS', 'a', 'b', '>', '>'],
    ['XREADGROUP', 'GROUP', 'STREAMS', 'c', 'STREAMS', 'a', '0'],
    ['XREADGROUP', 'GROUP', 'g', 'c', 'COUNT', '1', 'BLOCK', '5', 'NOACK', 'STREAMS', 'a', '0'],
    ['SORT', 'a'],
    ['SORT', 'a', 'BY', 'w*', 'GET', 'x', 'STORE', 'd'],
    ['SORT', 'a', 'LIMIT', '0', 'STORE', 'STORE', 'd'],
    ['SORT', 'a', 'STORE'],
    ['SORT', 'a', 'STORE', 'x', 'STORE', 'y'],
    ['SORT', 'a', 'GET', 'STORE', 'x'],
    ['SORT_RO', 'a', 'BY', 'x'],
    ['MIGRATE', 'h', '1', '', '0', '5', 'KEYS', 'a', 'b'],
    ['MIGRATE', 'h', '1', 'k', '0', '5'],
    ['MIGRATE', 'h', '1', 'k', '0', '5', 'KEYS', 'a'],
    ['MIGRATE', 'h', '1', '', '0', '5', 'COPY', 'AUTH', 'p', 'KEYS', 'a'],
    ['MIGRATE', 'h', '1', '', '0', '5', 'AUTH2', 'u', 'KEYS', 'KEYS', 'k1', 'k2'],
    ['MIGRATE', 'h', '1', 'k', '0', '5', 'REPLACE'],
    ['GEORADIUS', 'k', '0', '0', '1', 'm', 'STORE', 'd'],
    ['GEORADIUS', 'k', '0', '0', '1', 'm', 'STOREDIST', 'd'],
    ['GEORADIUS', 'k', '0', '0', '1', 'm', 'STORE'],
    ['GEORADIUSBYMEMBER', 'k', 'm', '1', 'km', 'STORE', 'd', 'STOREDIST', 'e'],
    ['GEORADIUS_RO', 'k', '0', '0', '1', 'm'],
    ['OBJECT', 'ENCODING', 'k'],
    ['object', 'freq', 'k'],
    ['XINFO', 'STREAM', 's', 'FULL'],
    ['XGROUP', 'CREATE', 's', 'g', '0'],
    ['MEMORY', 'USAGE', 'k'],
    ['PUBLISH', 'c', 'm'],
    ['SSUBSCRIBE', 'c'],
    ['SPUBLISH', 'c', 'm'],
    ['PING'],
    ['CONFIG', 'GET', 'x'],
    ['CONFIG'],
    ['OBJECT', 'nosub', 'k'],
    ['nosuch', 'k'],
    ['GET'],
    ['GET', 'a', 'b'],
  ]

  it.each(getKeysCases.map((args) => [args.join(' '), args] as const))('COMMAND GETKEYS %s', async (_, args) => {
    const outer = ['COMMAND', 'GETKEYS', ...args]
    const actual = await conn.request(outer)
    // COMMAND GETKEYS itself (command|getkeys, arity -4) needs the command and one more word.
    const getkeys = resolveCommand(outer)!
    const keys = checkArity(getkeys, outer.length) ? commandGetKeys(args) : arityError(getkeys)
    const expected = isReplyError(keys) ? keys : keys.map((i) => new TextEncoder().encode(args[i]))
    expect(actual.toString()).toBe(encodeReply(expected).toString())
  })

  const errorCases: readonly (readonly string[])[] = [
    ['foo', 'a', 'b'],
    ['FOO'],
    ['x'.repeat(200), 'a'.repeat(100), 'b'.repeat(100), 'c'],
    ['config', 'nope', 'x'],
    ['Object', 'Nope'],
    ['CONFIG'],
    ['config', 'get'],
    ['get'],
    ['GET', 'a', 'b'],
    ['SET', 'k'],
    ['acl', 'getuser'],
  ]

  it.each(errorCases.map((args) => [args.join(' ').slice(0, 60), args] as const))('same lookup/arity error: %s', async (_, args) => {
    const actual = await conn.request(args)
    const info = resolveCommand(args)
    const error = !info ? lookupError(args) : checkArity(info, args.length) ? undefined : arityError(info)
    expect(error, 'table says the command is valid').toBeDefined()
    expect(actual.toString()).toBe(encodeReply(error!).toString())
  })
})
