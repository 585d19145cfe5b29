/**
 * redlock 4.2.0, unchanged, with ioredis 6, against the RESP listener over the memory engine and
 * against redis-server 7.0.15 with the same assertions. Its locks are Lua scripts run by EVALSHA,
 * falling back to EVAL on NOSCRIPT: acquire (SET … PX when no key exists), extend (only the
 * holder's value), release (only the holder's value). Two Redlock instances on two connections
 * are two lock holders.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test, vi } from 'vitest'
import { Redis } from 'ioredis6'
import Redlock from 'redlock'
import { RESP_TARGETS, type RunningTarget } from '../support/resp-targets.js'

describe.each(RESP_TARGETS)('redlock on $name', (target) => {
  let server: RunningTarget
  const clients: Redis[] = []

  const connect = (): Redis => {
    const client = new Redis({ port: server.port, host: '127.0.0.1', lazyConnect: false, maxRetriesPerRequest: 0 })
    clients.push(client)
    return client
  }
  /** One lock holder: its own connection; no retries unless asked. */
  const holder = (options: Redlock.Options = { retryCount: 0 }): Redlock => new Redlock([connect()], options)

  let admin: Redis
  beforeAll(async () => {
    if (target.skip !== undefined) return
    server = await target.start()
    admin = connect()
  })
  afterEach(async () => {
    await admin?.flushall()
  })
  afterAll(async () => {
    for (const client of clients) client.disconnect()
    await server?.stop()
  })

  test.skipIf(target.skip !== undefined)('acquire sets the key to the lock value with the TTL; extend lengthens it; release deletes it', async () => {
    const locks = holder()
    const lock = await locks.lock('resource', 2_000)
    expect(lock.value).toMatch(/^[0-9a-f]{32}$/)
    expect(await admin.get('resource')).toBe(lock.value)
    const ttl = await admin.pttl('resource')
    expect(ttl).toBeGreaterThan(0)
    expect(ttl).toBeLessThanOrEqual(2_000)

    const extended = await lock.extend(60_000)
    expect(extended.value).toBe(lock.value)
    expect(await admin.pttl('resource')).toBeGreaterThan(2_000)

    await extended.unlock()
    expect(await admin.exists('resource')).toBe(0)
    // Releasing again finds no key with its value: no quorum, a LockError.
    await expect(locks.unlock(extended)).rejects.toBeInstanceOf(Redlock.LockError)
  })

  test.skipIf(target.skip !== undefined)('a lock on several resources sets each key, and fails whole when one is held', async () => {
    const first = holder()
    const second = holder()
    const lock = await first.lock(['a', 'b'], 10_000)
    expect(await admin.mget('a', 'b')).toEqual([lock.value, lock.value])
    await expect(second.lock(['c', 'b'], 10_000)).rejects.toThrow('Exceeded 0 attempts to lock the resource')
    expect(await admin.exists('c')).toBe(0)
    await lock.unlock()
    expect(await admin.exists('a', 'b')).toBe(0)
  })

  test.skipIf(target.skip !== undefined)('contention: of two holders racing for each of 30 resources exactly one wins', async () => {
    const left = holder()
    const right = holder()
    const resources = Array.from({ length: 30 }, (_, i) => `race:${i}`)
    const outcomes = await Promise.all(
      resources.map((resource) => Promise.allSettled([left.lock(resource, 10_000), right.lock(resource, 10_000)])),
    )
    for (const [i, pair] of outcomes.entries()) {
      const won = pair.filter((outcome) => outcome.status === 'fulfilled')
      const lost = pair.filter((outcome) => outcome.status === 'rejected')
      expect(won, resources[i]).toHaveLength(1)
      expect(lost[0].reason).toBeInstanceOf(Redlock.LockError)
      expect(await admin.get(resources[i])).toBe((won[0] as PromiseFulfilledResult<Redlock.Lock>).value.value)
    }
    // A holder cannot extend or release a lock it lost.
    const [pair] = outcomes
    const winner = (pair.find((outcome) => outcome.status === 'fulfilled') as PromiseFulfilledResult<Redlock.Lock>).value
    const other = pair[0].status === 'fulfilled' ? right : left
    const forged = { ...winner, value: 'not-the-holder' } as Redlock.Lock
    await expect(other.extend(forged, 10_000)).rejects.toBeInstanceOf(Redlock.LockError)
    await expect(other.unlock(forged)).rejects.toBeInstanceOf(Redlock.LockError)
    expect(await admin.get(resources[0])).toBe(winner.value)
  })

  test.skipIf(target.skip !== undefined)('a holder that retries gets the lock once the other releases it', async () => {
    const first = holder()
    const connection = connect()
    let tries = 0
    const evalsha = connection.evalsha.bind(connection) as (...args: unknown[]) => unknown
    ;(connection as unknown as { evalsha: (...args: unknown[]) => unknown }).evalsha = (...args) => {
      tries++
      return evalsha(...args)
    }
    const waiting = new Redlock([connection], { retryCount: -1, retryDelay: 10, retryJitter: 0 })
    const lock = await first.lock('queue', 60_000)
    let acquired = false
    const next = waiting.lock('queue', 60_000).then((second) => {
      acquired = true
      return second
    })
    // It has tried (and failed) at least once before the release.
    await vi.waitFor(() => expect(tries).toBeGreaterThanOrEqual(3), { timeout: 5_000, interval: 5 })
    expect(acquired).toBe(false)
    await lock.unlock()
    const second = await next
    expect(second.value).not.toBe(lock.value)
    expect(second.attempts).toBeGreaterThanOrEqual(2)
    expect(await admin.get('queue')).toBe(second.value)
  })

  test.skipIf(target.skip !== undefined)('expiry: the key goes at its TTL, another holder takes it, the first can neither extend nor release it', async () => {
    const first = holder()
    const second = holder()
    const lock = await first.lock('short', 100)
    await vi.waitFor(async () => expect(await admin.exists('short')).toBe(0), { timeout: 5_000, interval: 10 })
    const taken = await second.lock('short', 10_000)
    await expect(lock.extend(10_000)).rejects.toThrow('because the lock has already expired')
    await expect(first.unlock(lock)).rejects.toBeInstanceOf(Redlock.LockError)
    expect(await admin.get('short')).toBe(taken.value)
  })
})
