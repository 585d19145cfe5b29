/**
 * ACL users' REST tokens end to end, over both executors: `ACL RESTTOKEN` in every request form,
 * what a user's token may run, and revocation when the password changes or the user goes.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest'
import { createGateway, type Gateway } from '../../src/rest/gateway.js'
import { TokenStore } from '../../src/auth/tokens.js'
import type { Executor } from '../../src/executor/executor.js'
import { executorsUnderTest } from '../support/executors.js'
import { requester, resultOf, type Send } from '../support/gateway.js'

const TOKEN = 'standard-token'
const READONLY = 'readonly-token'
const wrong = (user: string) => ({ error: `ERR Wrong password or user "${user}" does not exist` })

for (const entry of executorsUnderTest()) {
  describe.skipIf(entry.skipReason !== null)(`ACL RESTTOKEN over the ${entry.name} executor${entry.skipReason ? ` (${entry.skipReason})` : ''}`, () => {
    let executor: Executor
    let release: () => Promise<void>
    let gateway: Gateway
    let send: Send

    beforeAll(async () => {
      ;({ executor, release } = await entry.create())
      gateway = createGateway({ executor, token: TOKEN, readonlyToken: READONLY })
      send = requester(gateway, TOKEN)
    })
    afterAll(() => release())
    beforeEach(async () => {
      const users = (await executor.exec(['ACL', 'USERS'])) as Uint8Array[]
      const others = users.map((u) => Buffer.from(u).toString()).filter((u) => u !== 'default')
      if (others.length > 0) await executor.exec(['ACL', 'DELUSER', ...others])
      await executor.exec(['FLUSHALL'])
      gateway.tokens!.revokeUserTokens()
      expect(resultOf(await send('POST', '/', { body: '["ACL","SETUSER","alice","on",">alice-pw","+@read","-@dangerous","+acl|whoami","~a:*"]' }))).toBe('OK')
    })

    test('every request form returns the same token for the same user and password', async () => {
      const path = resultOf(await send('GET', '/acl/resttoken/alice/alice-pw')) as string
      expect(path).toMatch(/^[A-Za-z0-9_-]{43}$/)
      expect(resultOf(await send('POST', '/acl/resttoken/alice', { body: 'alice-pw' }))).toBe(path)
      expect(resultOf(await send('POST', '/', { body: '["acl","RestToken","alice","alice-pw"]' }))).toBe(path)
      const pipeline = await send('POST', '/pipeline', { body: '[["SET","a:1","v"],["ACL","RESTTOKEN","alice","alice-pw"],["GET","a:1"]]' })
      expect(pipeline.json).toEqual([{ result: 'OK' }, { result: path }, { result: 'v' }])
      const transaction = await send('POST', '/multi-exec', { body: '[["INCR","a:n"],["ACL","RESTTOKEN","alice","alice-pw"]]' })
      expect(transaction.json).toEqual([{ result: 1 }, { result: path }])
      // The read-only token may not mint tokens (see resttoken-throttle.test.ts).
      expect((await send('GET', '/acl/resttoken/alice/alice-pw', { token: READONLY })).status).toBe(400)
    })

    test('a wrong password, an unknown user, a disabled user and a user without password get the spec error', async () => {
      expect(await send('GET', '/acl/resttoken/alice/nope')).toMatchObject({ status: 400, json: wrong('alice') })
      expect(await send('GET', '/acl/resttoken/nobody/alice-pw')).toMatchObject({ status: 400, json: wrong('nobody') })
      await send('POST', '/', { body: '["ACL","SETUSER","sleepy","off",">pw","+@all","~*"]' })
      expect((await send('GET', '/acl/resttoken/sleepy/pw')).json).toEqual(wrong('sleepy'))
      await send('POST', '/', { body: '["ACL","SETUSER","open","on","nopass","+@all","~*"]' })
      expect((await send('GET', '/acl/resttoken/open/anything')).json).toEqual(wrong('open'))
      expect((await send('GET', '/acl/resttoken/default/x')).json).toEqual(wrong('default'))
      expect(await send('GET', '/acl/resttoken/alice')).toMatchObject({ status: 400, json: { error: "ERR wrong number of arguments for 'acl|resttoken' command" } })
      const row = await send('POST', '/pipeline', { body: '[["ACL","RESTTOKEN","alice","nope"],["PING"]]' })
      expect(row.json).toEqual([wrong('alice'), { result: 'PONG' }])
    })

    test("a user's token has the user's permissions: allowed reads run, writes and other keys are refused", async () => {
      await send('GET', '/set/a:1/hello')
      await send('GET', '/set/b:1/secret')
      const alice = resultOf(await send('GET', '/acl/resttoken/alice/alice-pw')) as string
      const as = (method: string, url: string, body?: string) => send(method, url, { token: alice, body })
      expect(resultOf(await as('GET', '/get/a:1'))).toBe('hello')
      expect(resultOf(await as('GET', '/acl/whoami'))).toBe('alice')
      expect(await as('GET', '/set/a:1/x')).toMatchObject({ status: 400, json: { error: "NOPERM this user has no permissions to run the 'set' command" } })
      expect(await as('GET', '/get/b:1')).toMatchObject({
        status: 400,
        json: { error: 'NOPERM this user has no permissions to access one of the keys used as arguments' },
      })
      expect((await as('POST', '/pipeline', '[["GET","a:1"],["DEL","a:1"],["MGET","a:1","b:1"]]')).json).toEqual([
        { result: 'hello' },
        { error: "NOPERM this user has no permissions to run the 'del' command" },
        { error: 'NOPERM this user has no permissions to access one of the keys used as arguments' },
      ])
      // Like on Redis, transactions need MULTI and EXEC, which +@read does not grant.
      expect(await as('POST', '/multi-exec', '[["GET","a:1"]]')).toMatchObject({
        status: 400,
        json: { error: "NOPERM this user has no permissions to run the 'multi' command" },
      })
      await send('POST', '/', { body: '["ACL","SETUSER","alice","+multi","+exec"]' })
      expect((await as('POST', '/multi-exec', '[["GET","a:1"]]')).json).toEqual([{ result: 'hello' }])
      expect(await as('POST', '/multi-exec', '[["GET","a:1"],["SET","a:2","x"]]')).toMatchObject({
        status: 400,
        json: { error: 'EXECABORT Transaction discarded because of previous errors.' },
      })
      expect(resultOf(await send('GET', '/get/a:1'))).toBe('hello')
      expect(resultOf(await send('GET', '/exists/a:2'))).toBe(0)
    })

    test('a user without MULTI is refused /multi-exec before anything runs', async () => {
      await send('POST', '/', { body: '["ACL","SETUSER","writer","on",">pw","+set","+get","~*"]' })
      const writer = resultOf(await send('GET', '/acl/resttoken/writer/pw')) as string
      expect(await send('POST', '/multi-exec', { token: writer, body: '[["SET","w:1","x"],["SET","w:2","y"]]' })).toMatchObject({
        status: 400,
        json: { error: "NOPERM this user has no permissions to run the 'multi' command" },
      })
      expect(resultOf(await send('GET', '/exists/w:1/w:2'))).toBe(0)
      expect(resultOf(await send('GET', '/set/w:1/x', { token: writer }))).toBe('OK')
    })

    test('a token created in the same transaction as its user works', async () => {
      const sent = await send('POST', '/multi-exec', { body: '[["ACL","SETUSER","bob","on",">bob-pw","+@all","~*"],["ACL","RESTTOKEN","bob","bob-pw"]]' })
      const [created, issued] = sent.json as [{ result: string }, { result: string }]
      expect(created).toEqual({ result: 'OK' })
      expect(resultOf(await send('GET', '/acl/whoami', { token: issued.result }))).toBe('bob')
    })

    test("changing the password through the gateway revokes the old token at once; the new password gets a new token", async () => {
      const old = resultOf(await send('GET', '/acl/resttoken/alice/alice-pw')) as string
      expect((await send('GET', '/acl/whoami', { token: old })).status).toBe(200)
      expect(resultOf(await send('POST', '/', { body: '["ACL","SETUSER","alice","resetpass",">new-pw"]' }))).toBe('OK')
      expect(await send('GET', '/acl/whoami', { token: old })).toMatchObject({ status: 401, json: { error: 'WRONGPASS invalid or missing auth token' } })
      expect((await send('GET', '/acl/resttoken/alice/alice-pw')).json).toEqual(wrong('alice'))
      const fresh = resultOf(await send('GET', '/acl/resttoken/alice/new-pw')) as string
      expect(fresh).not.toBe(old)
      expect(resultOf(await send('GET', '/acl/whoami', { token: fresh }))).toBe('alice')
    })

    test('other ACL changes keep the token: a second password, new rules', async () => {
      const token = resultOf(await send('GET', '/acl/resttoken/alice/alice-pw')) as string
      await send('POST', '/pipeline', { body: '[["ACL","SETUSER","alice",">second"],["ACL","SETUSER","alice","+set"]]' })
      expect(resultOf(await send('GET', '/set/a:1/v', { token }))).toBe('OK')
    })

    test('deleting the user revokes its token', async () => {
      const token = resultOf(await send('GET', '/acl/resttoken/alice/alice-pw')) as string
      await send('GET', '/acl/deluser/alice')
      expect((await send('GET', '/get/a:1', { token })).status).toBe(401)
    })

    test('a password changed behind the gateway is noticed after userTokenCheckInterval', async () => {
      let now = 1_000_000
      const watching = createGateway({ executor, token: TOKEN, clock: () => now, userTokenCheckInterval: 5000 })
      const call = requester(watching, TOKEN)
      const token = resultOf(await call('GET', '/acl/resttoken/alice/alice-pw')) as string
      await executor.exec(['ACL', 'SETUSER', 'alice', 'resetpass', '>changed-elsewhere'])
      now += 4999
      // Not yet re-checked: the gateway still accepts the token (the socket executor's new
      // connections may already fail to authenticate, which is a WRONGPASS reply, not a 401).
      expect((await call('GET', '/get/a:1', { token })).status).not.toBe(401)
      now += 1
      expect((await call('GET', '/get/a:1', { token })).status).toBe(401)
      const always = createGateway({ executor, token: TOKEN, userTokenCheckInterval: 0 })
      const strict = requester(always, TOKEN)
      const next = resultOf(await strict('GET', '/acl/resttoken/alice/changed-elsewhere')) as string
      expect((await strict('GET', '/get/a:1', { token: next })).status).toBe(200)
      await executor.exec(['ACL', 'SETUSER', 'alice', 'off'])
      expect((await strict('GET', '/get/a:1', { token: next })).status).toBe(401)
    })

    test('tokens never appear in replies other than ACL RESTTOKEN, nor in errors', async () => {
      const token = resultOf(await send('GET', '/acl/resttoken/alice/alice-pw')) as string
      const answers = [
        await send('GET', '/get/a:1', { token: token + 'x' }),
        await send('GET', '/set/a:1/x', { token }),
        await send('GET', `/get/a:1?_token=${token}x`, { token: null }),
        await send('GET', '/acl/list'),
        await send('GET', '/client/list'),
      ]
      for (const answer of answers) expect(answer.text).not.toContain(token)
      expect(answers.map((a) => a.text).join('\n')).not.toContain('alice-pw')
    })
  })
}

describe('the database password reset (TokenStore.rotate) through the gateway', () => {
  test('revokes the standard and the read-only token at once; ACL users keep theirs', async () => {
    const { MemoryExecutor } = await import('../../src/executor/memory/memory-executor.js')
    const executor = new MemoryExecutor()
    try {
      const tokens = new TokenStore({ token: 'old-standard', readonlyToken: 'old-readonly' })
      const gateway = createGateway({ executor, auth: tokens })
      const send = requester(gateway, 'old-standard')
      await send('POST', '/', { body: '["ACL","SETUSER","carol","on",">pw","+@all","~*"]' })
      const carol = resultOf(await send('GET', '/acl/resttoken/carol/pw')) as string
      expect((await send('GET', '/ping')).status).toBe(200)
      expect((await send('GET', '/ping', { token: 'old-readonly' })).status).toBe(200)
      const fresh = tokens.rotate()
      expect(fresh.token).not.toBe(fresh.readonlyToken)
      expect((await send('GET', '/ping')).status).toBe(401)
      expect((await send('GET', '/ping', { token: 'old-readonly' })).status).toBe(401)
      expect(resultOf(await send('GET', '/set/k/v', { token: fresh.token }))).toBe('OK')
      expect(resultOf(await send('GET', '/get/k', { token: fresh.readonlyToken }))).toBe('v')
      expect((await send('GET', '/set/k/w', { token: fresh.readonlyToken })).status).toBe(400)
      expect(resultOf(await send('GET', '/acl/whoami', { token: carol }))).toBe('carol')
      tokens.revokeUserTokens()
      expect((await send('GET', '/acl/whoami', { token: carol })).status).toBe(401)
      expect(resultOf(await send('GET', '/acl/resttoken/carol/pw', { token: fresh.token }))).not.toBe(carol)
    } finally {
      await executor.close()
    }
  })
})
