/**
 * The engine's ACL beyond what the differential tests compare: sessions (AUTH switching the user
 * of a pipeline, deleted users), the default user, selectors, and keys found by the command's own
 * parser. Redis 7.0.15 behaves the same (checked by hand where noted).
 */
import { afterEach, beforeEach, describe, expect, test } from 'vitest'
import { MemoryExecutor } from '../../../src/executor/memory/memory-executor.js'
import { ReplyError, Status, type Reply } from '../../../src/reply.js'

const OK = new Status('OK')
const NOPERM_KEY = new ReplyError('NOPERM this user has no permissions to access one of the keys used as arguments')
const noperm = (name: string) => new ReplyError(`NOPERM this user has no permissions to run the '${name}' command`)
const text = (reply: Reply) => Buffer.from(reply as Uint8Array).toString()

describe('engine ACL', () => {
  let executor: MemoryExecutor
  beforeEach(() => {
    executor = new MemoryExecutor()
  })
  afterEach(() => executor.close())

  test('commands run as the context user; an unknown user is refused with WRONGPASS', async () => {
    await executor.exec(['ACL', 'SETUSER', 'reader', 'on', '>pw', '+get', '+acl|whoami', '~*'])
    expect(text(await executor.exec(['ACL', 'WHOAMI'], { user: 'reader' }))).toBe('reader')
    expect(await executor.exec(['SET', 'k', 'v'], { user: 'reader' })).toEqual(noperm('set'))
    expect(await executor.exec(['GET', 'k'], { user: 'ghost' })).toEqual(new ReplyError('WRONGPASS invalid username-password pair or user is disabled.'))
  })

  test('AUTH switches the user for the rest of a pipeline', async () => {
    await executor.exec(['ACL', 'SETUSER', 'reader', 'on', '>pw', '+get', '+acl|whoami', '~*'])
    const replies = await executor.pipeline([['ACL', 'WHOAMI'], ['AUTH', 'reader', 'pw'], ['ACL', 'WHOAMI'], ['SET', 'k', 'v'], ['AUTH', 'reader', 'bad']])
    expect(replies.slice(0, 4)).toEqual([Buffer.from('default'), OK, Buffer.from('reader'), noperm('set')])
    expect(replies[4]).toEqual(new ReplyError('WRONGPASS invalid username-password pair or user is disabled.'))
  })

  test('the default user can be restricted like any other', async () => {
    expect(await executor.exec(['ACL', 'SETUSER', 'default', '-flushall'])).toEqual(OK)
    expect(await executor.exec(['FLUSHALL'])).toEqual(noperm('flushall'))
    expect(await executor.exec(['ACL', 'SETUSER', 'default', '+flushall'])).toEqual(OK)
    expect(await executor.exec(['FLUSHALL'])).toEqual(OK)
  })

  test('a command is allowed when any selector allows it; the refusal reported is the most specific one', async () => {
    await executor.exec(['ACL', 'SETUSER', 'sel', 'on', '>pw', '+get', '~a*', '(+set ~b*)'])
    const as = { user: 'sel' }
    expect(await executor.exec(['GET', 'a1'], as)).toBeNull()
    expect(await executor.exec(['SET', 'b1', 'v'], as)).toEqual(OK)
    // As redis-server 7.0.15 answers: a key refusal by one selector wins over a command refusal by another.
    expect(await executor.exec(['GET', 'b1'], as)).toEqual(NOPERM_KEY)
    expect(await executor.exec(['SET', 'a1', 'v'], as)).toEqual(NOPERM_KEY)
    expect(await executor.exec(['DEL', 'a1'], as)).toEqual(noperm('del'))
  })

  test("keys found by the command's own parser are checked: numkeys, SORT … STORE, EVAL keys", async () => {
    await executor.exec(['ACL', 'SETUSER', 'u', 'on', '>pw', '+@all', '~mine:*'])
    const as = { user: 'u' }
    expect(await executor.exec(['ZUNIONSTORE', 'mine:dst', '2', 'mine:a', 'theirs:b'], as)).toEqual(NOPERM_KEY)
    expect(await executor.exec(['ZUNIONSTORE', 'mine:dst', '1', 'mine:a'], as)).toBe(0)
    expect(await executor.exec(['SORT', 'mine:list', 'STORE', 'theirs:out'], as)).toEqual(NOPERM_KEY)
    expect(await executor.exec(['EVAL', 'return 1', '1', 'theirs:k'], as)).toEqual(NOPERM_KEY)
    expect(await executor.exec(['EVAL', 'return 1', '1', 'mine:k'], as)).toBe(1)
  })

  test('a refusal inside a transaction discards it; MULTI and EXEC need their own permissions', async () => {
    await executor.exec(['ACL', 'SETUSER', 'tx', 'on', '>pw', '+incr', '+get', '~*'])
    expect(await executor.transaction([['INCR', 'n']], { user: 'tx' })).toEqual(noperm('multi'))
    await executor.exec(['ACL', 'SETUSER', 'tx', '+multi'])
    expect(await executor.transaction([['INCR', 'n']], { user: 'tx' })).toEqual(noperm('exec'))
    await executor.exec(['ACL', 'SETUSER', 'tx', '+exec'])
    expect(await executor.transaction([['INCR', 'n'], ['GET', 'n']], { user: 'tx' })).toEqual([1, Buffer.from('1')])
    expect(await executor.transaction([['INCR', 'n'], ['DEL', 'n']], { user: 'tx' })).toEqual(new ReplyError('EXECABORT Transaction discarded because of previous errors.'))
    expect(text(await executor.exec(['GET', 'n']))).toBe('1')
  })

  test('a refused command is counted as rejected, with a NOPERM error, as INFO reports it', async () => {
    await executor.exec(['ACL', 'SETUSER', 'u', 'on', '>pw', '~*'])
    await executor.exec(['GET', 'k'], { user: 'u' })
    const stats = executor.engine.stats
    expect(stats.commands.get('get')).toMatchObject({ calls: 0, rejectedCalls: 1 })
    expect(stats.errorCodes.get('NOPERM')).toBe(1)
  })

  test('SUBSCRIBE follows the channel rules: a refused subscription never starts', async () => {
    await executor.exec(['ACL', 'SETUSER', 'listener', 'on', '>pw', '+subscribe', '&news.*'])
    const controller = new AbortController()
    const events: string[] = []
    const open = executor.subscribe({ kind: 'channel', names: ['news.a'] }, (event) => events.push(event.type), controller.signal, { user: 'listener' })
    expect(events).toEqual(['subscribe'])
    controller.abort()
    await open
    await expect(executor.subscribe({ kind: 'channel', names: ['private'] }, () => {}, new AbortController().signal, { user: 'listener' })).rejects.toThrow(
      'subscription refused: NOPERM this user has no permissions to access one of the channels used as arguments',
    )
    expect(executor.engine.pubsub.size.clients).toBe(0)
  })
})
