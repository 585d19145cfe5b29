/**
 * ACL against redis-server: the same sequences through a fresh in-memory executor and through the
 * socket executor, commands run as the default user or (`as`) as an ACL user via `CallContext`.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest'
import type { CallContext, Executor } from '../../src/executor/executor.js'
import { MemoryExecutor } from '../../src/executor/memory/memory-executor.js'
import { SocketExecutor } from '../../src/executor/socket/socket-executor.js'
import { ReplyError, Status, type Reply } from '../../src/reply.js'
import { redisServerSkipReason, startRedisServer, type RedisServer } from '../support/redis-server.js'
import { compareReplies, showReply } from './harness.js'
import { aclCases, type AclRelaxation } from './acl.cases.js'

const skipReason = redisServerSkipReason ?? null

function text(reply: Reply): string {
  return Buffer.from(reply as Uint8Array).toString('latin1')
}

/**
 * Bulk strings as sorted words, recursively: rules whose single commands come in dictionary
 * order. Rules naming commands the reference server does not have (the table is newer) are left
 * out.
 */
function words(reply: Reply, known: ReadonlySet<string>): string {
  if (reply instanceof Uint8Array) {
    const kept = text(reply)
      .split(' ')
      .filter((word) => !/^[+-][a-z]/.test(word) || known.has(word.slice(1).split('|').slice(0, 2).join('|')) || known.has(word.slice(1).split('|')[0]))
    return JSON.stringify(kept.sort().join(' '))
  }
  if (Array.isArray(reply)) return `[${(reply as Reply[]).map((r) => words(r, known)).join(', ')}]`
  return showReply(reply)
}

function compare(ours: Reply, theirs: Reply, relax: AclRelaxation | undefined, known: ReadonlySet<string>): string | null {
  if (relax === 'words') {
    return words(ours, known) === words(theirs, known) ? null : `memory ${showReply(ours)}\nredis  ${showReply(theirs)} (words)`
  }
  if (relax === 'unordered' && Array.isArray(ours)) {
    // The engine's table has commands newer than the reference server: compare what it knows.
    const mine = (ours as Reply[]).filter((r) => !(r instanceof Uint8Array) || known.has(text(r)))
    return compareReplies(mine, theirs, 'unordered')
  }
  return compareReplies(ours, theirs)
}

describe.skipIf(skipReason !== null)(`ACL (differential against redis-server${skipReason ? `: ${skipReason}` : ''})`, () => {
  let server: RedisServer
  let admin: SocketExecutor
  const known = new Set<string>()

  beforeAll(async () => {
    server = await startRedisServer()
    admin = new SocketExecutor({ url: server.url })
    for (const entry of (await admin.exec(['COMMAND'])) as Reply[]) {
      const row = entry as Reply[]
      known.add(text(row[0]))
      for (const sub of row[9] as Reply[]) known.add(text((sub as Reply[])[0]))
    }
  })
  afterAll(async () => {
    await admin?.close()
    await server?.stop()
  })
  beforeEach(async () => {
    const names = (await admin.exec(['ACL', 'USERS'])) as Reply[]
    const others = names.map(text).filter((name) => name !== 'default')
    if (others.length > 0) await admin.exec(['ACL', 'DELUSER', ...others])
    await admin.exec(['FLUSHALL'])
  })

  for (const entry of aclCases) {
    test(entry.name, async () => {
      const memory = new MemoryExecutor()
      const redis = new SocketExecutor({ url: server.url })
      try {
        for (let i = 0; i < entry.commands.length; i++) {
          const user = entry.as?.[i]
          const context: CallContext | undefined = user === undefined ? undefined : { user, password: 'pw' }
          const [ours, theirs] = await Promise.all([memory.exec(entry.commands[i], context), redis.exec(entry.commands[i], context)])
          const difference = compare(ours, theirs, entry.relax?.[i], known)
          const shown = entry.commands[i].map(String).join(' ')
          expect(difference, `command ${i}: ${shown}\n${difference}`).toBeNull()
        }
      } finally {
        await memory.close()
        await redis.close()
      }
    })
  }

  test('ACL CAT of every category lists the same commands (commands the server knows)', async () => {
    const memory = new MemoryExecutor()
    try {
      const categories = ((await admin.exec(['ACL', 'CAT'])) as Reply[]).map(text)
      expect(((await memory.exec(['ACL', 'CAT'])) as Reply[]).map(text)).toEqual(categories)
      for (const category of categories) {
        const ours = ((await memory.exec(['ACL', 'CAT', category])) as Reply[]).map(text).filter((name) => known.has(name))
        const theirs = ((await admin.exec(['ACL', 'CAT', category])) as Reply[]).map(text)
        expect(ours.sort(), category).toEqual(theirs.sort())
      }
    } finally {
      await memory.close()
    }
  })

  test('a command the user may not run inside MULTI discards the transaction (EXECABORT)', async () => {
    const memory = new MemoryExecutor()
    const redis = new SocketExecutor({ url: server.url })
    try {
      const setup = ['ACL', 'SETUSER', 't', 'on', '>pw', '+@all', '-set', '~*']
      expect(await memory.exec(setup)).toEqual(await redis.exec(setup))
      const context = { user: 't', password: 'pw' }
      const block = [['INCR', 'n'], ['SET', 'k', 'v']]
      const [ours, theirs] = await Promise.all([memory.transaction(block, context), redis.transaction(block, context)])
      expect(ours).toBeInstanceOf(ReplyError)
      expect(showReply(ours as ReplyError)).toBe(showReply(theirs as ReplyError))
      expect(await memory.exec(['GET', 'n'])).toBeNull()
      expect(await redis.exec(['GET', 'n'])).toBeNull()
      const allowed = [['INCR', 'n'], ['GET', 'n']]
      const [a, b] = await Promise.all([memory.transaction(allowed, context), redis.transaction(allowed, context)])
      expect(showReply(a as Reply)).toBe(showReply(b as Reply))
    } finally {
      await memory.close()
      await redis.close()
    }
  })

  test('GETUSER descriptions round-trip: rules read back from ACL LIST give the same user', async () => {
    const memory = new MemoryExecutor()
    try {
      const rules = [
        ['+@read', '-@dangerous'],
        ['+@all', '-@write', '+set', '-flushall'],
        ['+@string', '+@hash', '-hset', '+client', '-client|kill'],
        ['-@all', '+@list', '+@set', '-sadd', '+select|0'],
      ]
      for (const rule of rules) {
        await memory.exec(['ACL', 'SETUSER', 'x', 'reset', ...rule])
        const described = text(((await memory.exec(['ACL', 'GETUSER', 'x'])) as Reply[])[5])
        await memory.exec(['ACL', 'SETUSER', 'y', 'reset', ...described.split(' ')])
        const again = text(((await memory.exec(['ACL', 'GETUSER', 'y'])) as Reply[])[5])
        expect(again, rule.join(' ')).toBe(described)
        expect(await memory.exec(['ACL', 'SETUSER', 'z', 'reset', ...rule])).toEqual(new Status('OK'))
      }
    } finally {
      await memory.close()
    }
  })
})
