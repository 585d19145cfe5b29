/**
 * The enforcement sweep: every command and subcommand of the command table, through every request
 * form (path, POST body as the last argument, JSON array, pipeline row, transaction row, and Lua
 * through EVAL_RO and FCALL_RO), by principals with restricted rights, over both executors. It
 * proves that no write runs (the database state is the same after every command) and that no
 * forbidden read runs (a command the principal may not run is refused).
 *
 * Principals:
 * - the read-only token, checked by the gateway only (the default setup; no Lua forms: a script
 *   run with this setup runs as the executor's own user, see `readonlyUser`);
 * - the read-only token running as a provisioned ACL user (`readonlyUser`), Lua forms included;
 * - an ACL user `+@read -@dangerous +multi +exec +eval_ro +fcall_ro ~allowed:*`, with its REST token.
 *
 * What may run comes from an oracle, never from the code under test: for the read-only token the
 * command table's classification; for the ACL user `ACL DRYRUN` on a reference redis-server with
 * the same user (for commands that server lacks, the engine's own DRYRUN).
 *
 * Arguments are plausible: the table's arity gives how many; key positions (from the key specs,
 * numkeys set to 1) get a key of the type the command's group works on, under `allowed:` or
 * `secret:`; every other argument is `0`. A command refused by permission is refused before its
 * arguments are parsed, so these are enough to make every allowed write actually write.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { CallContext, Executor } from '../../src/executor/executor.js'
import { MemoryExecutor } from '../../src/executor/memory/memory-executor.js'
import { SocketExecutor } from '../../src/executor/socket/socket-executor.js'
import { allCommands, commandKeys, type CommandInfo } from '../../src/commands/lookup.js'
import { restAvailability } from '../../src/rest/availability.js'
import { readOnlyTokenMay } from '../../src/auth/permissions.js'
import { createGateway, type Gateway } from '../../src/rest/gateway.js'
import { provisionReadonlyUser } from '../../src/auth/permissions.js'
import { ReplyError, Status, type Reply } from '../../src/reply.js'
import { executorsUnderTest } from '../support/executors.js'
import { redisServerSkipReason, startRedisServer, type RedisServer } from '../support/redis-server.js'
import { requester, type Send } from '../support/gateway.js'
import { showReply } from '../differential/harness.js'

const TOKEN = 'sweep-standard'
const READONLY = 'sweep-readonly'
const USER = 'sweeper'
const USER_PASSWORD = 'sweeper-pw'
const USER_RULES = ['reset', 'on', `>${USER_PASSWORD}`, '+@read', '-@dangerous', '+multi', '+exec', '+eval_ro', '+fcall_ro', '~allowed:*']
const READONLY_USER = { user: 'restis-readonly', password: 'readonly-pw' }
const LUA = 'return redis.call(unpack(ARGV))'
const LIBRARY = "#!lua name=sweep\nredis.register_function{function_name='sweep_call', callback=function(keys, args) return redis.call(unpack(args)) end, flags={'no-writes'}}"

type Form = 'path' | 'body' | 'json' | 'pipeline' | 'transaction' | 'eval_ro' | 'fcall_ro'
const PLAIN_FORMS: readonly Form[] = ['path', 'body', 'json', 'pipeline', 'transaction']
const LUA_FORMS: readonly Form[] = ['eval_ro', 'fcall_ro']

/** The key type a command's group works on. */
const TYPE_BY_GROUP: Readonly<Record<string, string>> = {
  list: 'list',
  hash: 'hash',
  set: 'set',
  sorted_set: 'zset',
  geo: 'geo',
  hyperloglog: 'hll',
  stream: 'stream',
  module: 'json',
}

interface Instance {
  readonly info: CommandInfo
  readonly words: string[]
  /** Which keys it names: `allowed:…`, `secret:…`, or none. */
  readonly keys: 'allowed' | 'secret' | 'none'
}

/** One call of the command with plausible arguments, per key prefix. */
function instances(): Instance[] {
  const out: Instance[] = []
  for (const info of allCommands()) {
    const name = info.parent ? [info.parent.name, info.name.split('|')[1]] : [info.name]
    const count = Math.max(Math.abs(info.arity), name.length)
    const words = [...name, ...Array.from({ length: count - name.length }, () => '0')]
    // numkeys arguments: one key.
    for (const spec of info.keySpecs) {
      if (spec.beginSearch.type !== 'index' || spec.findKeys.type !== 'keynum') continue
      const at = spec.beginSearch.index + spec.findKeys.keyNumIdx
      const first = spec.beginSearch.index + spec.findKeys.firstKey
      while (words.length <= Math.max(at, first)) words.push('0')
      words[at] = '1'
    }
    const positions = commandKeys(words, info)
    if (positions.length === 0) {
      out.push({ info, words, keys: 'none' })
      continue
    }
    const type = TYPE_BY_GROUP[(info.parent ?? info).group] ?? 'str'
    for (const prefix of ['allowed', 'secret'] as const) {
      const keyed = [...words]
      for (const position of positions) keyed[position] = `${prefix}:${type}`
      out.push({ info, words: keyed, keys: prefix })
    }
  }
  return out
}

/** The database's fixture: one key of each type under both prefixes, and a key in database 1. */
async function seed(executor: Executor, withJson: boolean): Promise<void> {
  await executor.exec(['FLUSHALL'])
  for (const prefix of ['allowed', 'secret']) {
    const replies = await executor.pipeline([
      ['SET', `${prefix}:str`, '10'],
      ['RPUSH', `${prefix}:list`, 'a', 'b'],
      ['HSET', `${prefix}:hash`, 'f', 'v'],
      ['SADD', `${prefix}:set`, 'a', 'b'],
      ['ZADD', `${prefix}:zset`, '1', 'a', '2', 'b'],
      ['PFADD', `${prefix}:hll`, 'a', 'b'],
      ['PFCOUNT', `${prefix}:hll`], // caches the cardinality: later PFCOUNTs do not rewrite the value
      ['GEOADD', `${prefix}:geo`, '13.361389', '38.115556', 'palermo'],
      ['XADD', `${prefix}:stream`, '1-1', 'f', 'v'],
      ...(withJson ? [['JSON.SET', `${prefix}:json`, '$', '{"a":1}']] : []),
    ])
    for (const reply of replies) if (reply instanceof ReplyError) throw new Error(`fixture: ${reply.message}`)
  }
  await executor.exec(['SET', 'db1:key', 'x'], { db: 1 })
}

function text(reply: Reply): string {
  return reply instanceof Uint8Array ? Buffer.from(reply).toString('latin1') : showReply(reply)
}

/** Everything a write could change: both databases' keys, types, TTLs and values, ACL users, configuration, functions. */
async function snapshot(executor: Executor, withJson: boolean): Promise<string> {
  const parts: string[] = []
  for (const db of [0, 1]) {
    const context: CallContext = { db }
    const keys = ((await executor.exec(['KEYS', '*'], context)) as Reply[]).map(text).sort()
    const types = (await executor.pipeline(keys.map((key) => ['TYPE', key]), context)).map(text)
    const reads = keys.map((key, i) => {
      switch (types[i]) {
        case 'string':
          return ['GET', key]
        case 'list':
          return ['LRANGE', key, '0', '-1']
        case 'hash':
          return ['HGETALL', key]
        case 'set':
          return ['SORT', key, 'ALPHA']
        case 'zset':
          return ['ZRANGE', key, '0', '-1', 'WITHSCORES']
        case 'stream':
          return ['XRANGE', key, '-', '+']
        default:
          return withJson ? ['JSON.GET', key] : ['TYPE', key]
      }
    })
    const values = await executor.pipeline([...reads, ...keys.map((key) => ['PTTL', key])], context)
    keys.forEach((key, i) => parts.push(`${db} ${key} ${types[i]} ${showReply(values[i])} ttl=${showReply(values[keys.length + i])}`))
  }
  const [acl, config, functions] = await executor.pipeline([['ACL', 'LIST'], ['CONFIG', 'GET', '*'], ['FUNCTION', 'LIST']])
  const pairs: string[] = []
  const items = config as Reply[]
  for (let i = 0; i + 1 < items.length; i += 2) pairs.push(`${text(items[i])}=${text(items[i + 1])}`)
  parts.push(showReply(acl), pairs.sort().join(' '), showReply(functions))
  return parts.join('\n')
}

/** A reply that means "not run": refused by the gateway or the ACL, or not a command of this backend. */
function isRefusal(error: string | undefined, form: Form): boolean {
  if (error === undefined) return false
  if (form === 'eval_ro' || form === 'fcall_ro') return true
  // Redis refuses DEBUG and MODULE (protected commands) before it checks the ACL.
  return /^(NOPERM |EXECABORT |ERR Command is not available|ERR unknown (sub)?command|ERR (DEBUG|MODULE) command not allowed)/.test(error)
}

interface Outcome {
  readonly status: number
  /** The error of the reply (the row's, for a pipeline or transaction), if it is one. */
  readonly error: string | undefined
}

async function call(send: Send, token: string, form: Form, words: readonly string[]): Promise<Outcome> {
  const path = (parts: readonly string[]) => '/' + parts.map(encodeURIComponent).join('/')
  let sent
  switch (form) {
    case 'path':
      sent = await send('GET', path(words), { token })
      break
    case 'body':
      sent = await send('POST', path(words.slice(0, -1)), { token, body: words[words.length - 1] })
      break
    case 'json':
      sent = await send('POST', '/', { token, body: JSON.stringify(words) })
      break
    case 'pipeline':
    case 'transaction':
      sent = await send('POST', form === 'pipeline' ? '/pipeline' : '/multi-exec', { token, body: JSON.stringify([words]) })
      break
    case 'eval_ro':
      sent = await send('POST', '/', { token, body: JSON.stringify(['EVAL_RO', LUA, '0', ...words]) })
      break
    case 'fcall_ro':
      sent = await send('POST', '/', { token, body: JSON.stringify(['FCALL_RO', 'sweep_call', '0', ...words]) })
      break
  }
  const body = sent.json as { error?: string } | { error?: string; result?: unknown }[] | undefined
  if (Array.isArray(body)) return { status: sent.status, error: body[0]?.error }
  return { status: sent.status, error: body?.error }
}

interface Principal {
  readonly name: string
  readonly send: Send
  readonly token: string
  readonly forms: readonly Form[]
  /** Whether the principal may run the command (the oracle). */
  allowed(instance: Instance): boolean
}

const sweepSkip = redisServerSkipReason ?? null

describe.skipIf(sweepSkip !== null)(`enforcement sweep${sweepSkip ? ` (skipped: ${sweepSkip})` : ''}`, () => {
  let reference: RedisServer
  let oracle: SocketExecutor
  const verdicts = new Map<string, boolean>()
  const all = instances()

  beforeAll(async () => {
    reference = await startRedisServer()
    oracle = new SocketExecutor({ url: reference.url })
    await oracle.exec(['ACL', 'SETUSER', USER, ...USER_RULES])
    const engine = new MemoryExecutor()
    await engine.exec(['ACL', 'SETUSER', USER, ...USER_RULES])
    for (const instance of all) {
      let verdict = await oracle.exec(['ACL', 'DRYRUN', USER, ...instance.words])
      if (verdict instanceof ReplyError && /^ERR Command '.*' not found$/.test(verdict.message)) {
        verdict = await engine.exec(['ACL', 'DRYRUN', USER, ...instance.words])
      }
      // A container command with a word that names no subcommand runs nothing: "not found".
      if (verdict instanceof ReplyError && !/^ERR Command '.*' not found$/.test(verdict.message)) {
        throw new Error(`oracle: ${instance.words.join(' ')}: ${verdict.message}`)
      }
      verdicts.set(instance.words.join('\0'), verdict instanceof Status)
    }
    await engine.close()
  }, 120_000)
  afterAll(async () => {
    await oracle?.close()
    await reference?.stop()
  })

  for (const entry of executorsUnderTest()) {
    describe.skipIf(entry.skipReason !== null)(`over the ${entry.name} executor${entry.skipReason ? ` (${entry.skipReason})` : ''}`, () => {
      let executor: Executor
      let release: () => Promise<void>
      let principals: Principal[]
      let withJson = false
      let baseline: string
      let luaForms: readonly Form[] = []

      beforeAll(async () => {
        ;({ executor, release } = await entry.create())
        withJson = !((await executor.exec(['JSON.SET', 'probe', '$', '1'])) instanceof ReplyError)
        const hasEval = (await executor.exec(['EVAL', 'return 1', '0'])) === 1
        const hasFunctions = !((await executor.exec(['FUNCTION', 'LOAD', 'REPLACE', LIBRARY])) instanceof ReplyError)
        luaForms = LUA_FORMS.filter((form) => (form === 'eval_ro' ? hasEval : hasFunctions))
        await executor.exec(['ACL', 'SETUSER', USER, ...USER_RULES])
        await provisionReadonlyUser(executor, READONLY_USER.user, READONLY_USER.password)
        const plain: Gateway = createGateway({ executor, token: TOKEN, readonlyToken: READONLY })
        const provisioned: Gateway = createGateway({ executor, token: TOKEN, readonlyToken: READONLY, readonlyUser: READONLY_USER })
        const send = requester(plain, TOKEN)
        const userToken = (send('GET', `/acl/resttoken/${USER}/${USER_PASSWORD}`).then((sent) => (sent.json as { result: string }).result))
        const readonlyMay = (instance: Instance) => readOnlyTokenMay(instance.info)
        principals = [
          { name: 'read-only token (gateway check)', send, token: READONLY, forms: PLAIN_FORMS, allowed: readonlyMay },
          { name: 'read-only token as ACL user', send: requester(provisioned, TOKEN), token: READONLY, forms: [...PLAIN_FORMS, ...luaForms], allowed: readonlyMay },
          {
            name: `ACL user ${USER}`,
            send,
            token: await userToken,
            forms: [...PLAIN_FORMS, ...luaForms],
            allowed: (instance) => verdicts.get(instance.words.join('\0')) === true,
          },
        ]
        await seed(executor, withJson)
        baseline = await snapshot(executor, withJson)
      }, 120_000)
      afterAll(() => release())

      test('no write and no forbidden read runs, for every command, request form and principal', async () => {
        const failures: string[] = []
        let requests = 0
        const started = performance.now()
        for (const principal of principals) {
          for (const instance of all) {
            const available = restAvailability(instance.info, instance.words) === 'ok'
            const resttoken = instance.info.name === 'acl|resttoken'
            const allowed = available && !resttoken && principal.allowed(instance)
            for (const form of principal.forms) {
              if (form === 'body' && instance.words.length < 2) continue
              requests++
              const outcome = await call(principal.send, principal.token, form, instance.words)
              const shown = `${principal.name} ${form}: ${instance.words.join(' ')}`
              if (resttoken) {
                // Answered by the gateway (it checks a password and runs nothing), refused to the
                // read-only token, throttled after a few failures; inside a script it is not a
                // command at all.
                const expected =
                  form === 'eval_ro' || form === 'fcall_ro'
                    ? /^ERR /
                    : principal.token === READONLY
                      ? /^NOPERM /
                      : /^ERR (Wrong password|wrong number|too many failed ACL RESTTOKEN attempts)/
                if (!expected.test(outcome.error ?? '')) failures.push(`${shown} -> ${outcome.error ?? 'a result'}`)
              } else if (!allowed && !isRefusal(outcome.error, form)) {
                failures.push(`${shown}: ran (${outcome.status} ${outcome.error ?? 'result'}) but the principal may not run it`)
              } else if (allowed && form !== 'eval_ro' && form !== 'fcall_ro' && /^NOPERM /.test(outcome.error ?? '')) {
                failures.push(`${shown}: refused (${outcome.error}) but the principal may run it`)
              }
            }
            const after = await snapshot(executor, withJson)
            if (after !== baseline) {
              failures.push(`${principal.name}: ${instance.words.join(' ')} changed the database`)
              await seed(executor, withJson)
              await executor.exec(['ACL', 'SETUSER', USER, ...USER_RULES])
              baseline = await snapshot(executor, withJson)
            }
          }
        }
        const seconds = ((performance.now() - started) / 1000).toFixed(1)
        console.info(
          `sweep over the ${entry.name} executor: ${all.length} command calls (${new Set(all.map((i) => i.info.name)).size} commands and subcommands), ` +
            `${principals.length} principals, forms ${[...PLAIN_FORMS, ...luaForms].join('/')}: ${requests} requests in ${seconds}s`,
        )
        expect(failures, failures.slice(0, 40).join('\n')).toEqual([])
      }, 600_000)
    })
  }
})
