/**
 * ACL RESTTOKEN against password guessing (issue 15, item 7): the read-only token may not mint
 * tokens, and failed attempts are throttled per principal and per user name.
 */
import { beforeEach, describe, expect, test } from 'vitest'
import { createGateway } from '../../src/rest/gateway.js'
import { MemoryExecutor } from '../../src/executor/memory/index.js'
import { GuessThrottle } from '../../src/auth/guess-throttle.js'
import { requester, resultOf, type Send } from '../support/gateway.js'

const TOKEN = 'standard-token'
const READONLY = 'readonly-token'
const wrong = (user: string) => ({ error: `ERR Wrong password or user "${user}" does not exist` })
const throttled = (seconds: number) => ({ error: `ERR too many failed ACL RESTTOKEN attempts; try again in ${seconds} s` })
const NOPERM = { error: "NOPERM this user has no permissions to run the 'acl|resttoken' command" }

describe('ACL RESTTOKEN: the read-only token and password guessing', () => {
  let executor: MemoryExecutor
  let send: Send
  let now: number
  /** Password checks that reached the executor (one ACL GETUSER each). */
  const checks = () => executor.engine.stats.commands.get('acl|getuser')?.calls ?? 0

  beforeEach(async () => {
    executor = new MemoryExecutor({ activeExpiryInterval: 0 })
    now = 1_000_000
    send = requester(createGateway({ executor, token: TOKEN, readonlyToken: READONLY, clock: () => now }), TOKEN)
    await executor.exec(['ACL', 'SETUSER', 'admin', 'on', '>right-password', '+@all', '~*'])
    await executor.exec(['ACL', 'SETUSER', 'reader', 'on', '>reader-pw', '+@read', '+acl|whoami', '~*'])
  })

  test('the read-only token may not mint tokens, in any request form (NOPERM, nothing checked)', async () => {
    expect(await send('GET', '/acl/resttoken/admin/right-password', { token: READONLY })).toMatchObject({ status: 400, json: NOPERM })
    const pipeline = await send('POST', '/pipeline', { token: READONLY, body: '[["ACL","RESTTOKEN","admin","guess"],["PING"]]' })
    expect(pipeline.json).toEqual([NOPERM, { result: 'PONG' }])
    expect(await send('POST', '/multi-exec', { token: READONLY, body: '[["ACL","RESTTOKEN","admin","right-password"]]' })).toMatchObject({ status: 400, json: NOPERM })
    expect(checks()).toBe(0)
  })

  test('a pipeline of 1,000 wrong guesses is throttled after the first 5; the right password works once the lock ends', async () => {
    const guesses = Array.from({ length: 1000 }, (_, i) => ['ACL', 'RESTTOKEN', 'admin', `guess-${i}`])
    const started = performance.now()
    const answer = await send('POST', '/pipeline', { body: JSON.stringify(guesses) })
    const rows = answer.json as unknown[]
    expect(rows.slice(0, 5)).toEqual(Array(5).fill(wrong('admin')))
    expect(rows.slice(5)).toEqual(Array(995).fill(throttled(1)))
    // Throttled attempts never reach the password check.
    expect(checks()).toBe(5)
    expect(performance.now() - started).toBeLessThan(5000)
    // Still locked: even the right password is refused without being looked at.
    expect((await send('GET', '/acl/resttoken/admin/right-password')).json).toEqual(throttled(1))
    now += 1000
    const token = resultOf(await send('GET', '/acl/resttoken/admin/right-password')) as string
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/)
    // The token works: the minted identity is real.
    expect(resultOf(await send('GET', '/acl/whoami', { token }))).toBe('admin')
  })

  test('each failure past the free ones doubles the lock, up to a minute', async () => {
    for (let i = 0; i < 5; i++) await send('GET', `/acl/resttoken/admin/guess-${i}`)
    const waits: unknown[] = []
    for (let i = 0; i < 8; i++) {
      waits.push((await send('GET', '/acl/resttoken/admin/still-wrong')).json)
      now += 120_000
      waits.push((await send('GET', '/acl/resttoken/admin/wrong-again')).json)
      waits.push((await send('GET', '/acl/resttoken/admin/at-once')).json)
    }
    // After 2 minutes the lock is over: one more guess is checked (wrong), then the lock doubles.
    expect(waits.slice(0, 3)).toEqual([throttled(1), wrong('admin'), throttled(2)])
    expect(waits.slice(3, 6)).toEqual([throttled(2), wrong('admin'), throttled(4)])
    expect(waits.at(-1)).toEqual(throttled(60))
  })

  test('a principal guessing across many users is throttled after 10 failures, whatever the user name', async () => {
    const reader = resultOf(await send('GET', '/acl/resttoken/reader/reader-pw')) as string
    const rows: unknown[] = []
    for (let i = 0; i < 12; i++) rows.push((await send('GET', `/acl/resttoken/user-${i}/pw`, { token: reader })).json)
    expect(rows.slice(0, 10)).toEqual(Array.from({ length: 10 }, (_, i) => wrong(`user-${i}`)))
    expect(rows.slice(10)).toEqual([throttled(1), throttled(1)])
    // Another principal is not affected by the reader's lock.
    expect(resultOf(await send('GET', '/acl/resttoken/admin/right-password'))).toMatch(/^[A-Za-z0-9_-]{43}$/)
  })

  test('successes are not failures: minting many tokens in a row is never throttled', async () => {
    const body = JSON.stringify(Array.from({ length: 50 }, () => ['ACL', 'RESTTOKEN', 'reader', 'reader-pw']))
    const rows = (await send('POST', '/pipeline', { body })).json as { result?: string }[]
    expect(rows.every((row) => typeof row.result === 'string')).toBe(true)
  })
})

describe('GuessThrottle', () => {
  test('failures are forgotten after a quiet period', () => {
    let now = 0
    const throttle = new GuessThrottle(() => now, { userFreeFailures: 2, forgetAfter: 10_000 })
    for (let i = 0; i < 2; i++) throttle.settle(throttle.begin('p', 'u') as { keys: string[] }, false)
    expect(throttle.begin('p', 'u')).toEqual({ retryAfterMs: 1000 })
    now = 10_000
    expect('keys' in throttle.begin('p', 'u')).toBe(true)
  })

  test('concurrent attempts count before they finish, so they cannot all slip under the limit', () => {
    const throttle = new GuessThrottle(() => 0, { userFreeFailures: 3 })
    const started = Array.from({ length: 10 }, () => throttle.begin('p', 'u'))
    expect(started.filter((attempt) => 'keys' in attempt)).toHaveLength(3)
  })
})
