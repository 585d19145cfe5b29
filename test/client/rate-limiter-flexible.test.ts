/**
 * rate-limiter-flexible 11 (`RateLimiterRedis`), unchanged, with ioredis 6 and with node-redis 6
 * (`useRedisPackage`, RESP 2), against the RESP listener over the memory engine and against
 * redis-server 7.0.15, with the same assertions. Its consume is one Lua script (SET … EX NX,
 * INCRBY, PTTL; by EVALSHA through ioredis's `defineCommand`, by EVAL through node-redis); its
 * block, get and duration-0 paths are MULTI/EXEC or pipelines of SET/INCRBY/GET/PTTL.
 */
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest'
import { Redis } from 'ioredis6'
import { createClient } from 'redis'
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible'
import { RESP_TARGETS, type RespTarget, type RunningTarget } from '../support/resp-targets.js'

interface ClientKind {
  readonly name: string
  /** A connected client and how to close it; `options` are RateLimiterRedis's for this client. */
  connect(port: number): Promise<{ client: unknown; options: { useRedisPackage?: boolean }; close(): Promise<void> }>
}

const CLIENT_KINDS: readonly ClientKind[] = [
  {
    name: 'ioredis 6',
    async connect(port) {
      const client = new Redis({ port, host: '127.0.0.1', maxRetriesPerRequest: 0 })
      await new Promise<void>((resolve, reject) => {
        client.once('ready', resolve)
        client.once('error', reject)
      })
      return { client, options: {}, close: async () => client.disconnect() }
    },
  },
  {
    name: 'node-redis 6 (RESP 2)',
    async connect(port) {
      const client = createClient({ url: `redis://127.0.0.1:${port}`, RESP: 2 })
      await client.connect()
      return { client, options: { useRedisPackage: true }, close: async () => client.destroy() }
    },
  },
]

const CASES = RESP_TARGETS.flatMap((target) => CLIENT_KINDS.map((kind) => ({ target, kind, name: `${kind.name} on ${target.name}` })))

/** Settles every promise; splits the values a limiter resolved with from those it rejected with. */
async function settle(promises: Promise<RateLimiterRes>[]): Promise<{ allowed: RateLimiterRes[]; refused: RateLimiterRes[] }> {
  const outcomes = await Promise.allSettled(promises)
  const allowed = outcomes.filter((o) => o.status === 'fulfilled').map((o) => (o as PromiseFulfilledResult<RateLimiterRes>).value)
  const refused = outcomes.filter((o) => o.status === 'rejected').map((o) => (o as PromiseRejectedResult).reason as RateLimiterRes)
  return { allowed, refused }
}

describe.each(CASES)('rate-limiter-flexible with $name', ({ target, kind }: { target: RespTarget; kind: ClientKind }) => {
  let server: RunningTarget
  let connection: Awaited<ReturnType<ClientKind['connect']>>
  let admin: Redis
  let prefix = 0
  const skipped = target.skip !== undefined

  /** A limiter with its own key prefix, so tests do not share counters. */
  const limiter = (options: { points: number; duration: number; blockDuration?: number }): RateLimiterRedis =>
    new RateLimiterRedis({ storeClient: connection.client, ...connection.options, keyPrefix: `rl${++prefix}`, ...options })

  beforeAll(async () => {
    if (skipped) return
    server = await target.start()
    connection = await kind.connect(server.port)
    admin = new Redis({ port: server.port, host: '127.0.0.1' })
  })
  afterAll(async () => {
    await connection?.close()
    admin?.disconnect()
    await server?.stop()
  })

  test.skipIf(skipped)('200 concurrent consumes of 1 point against 50: exactly 50 pass, 150 are refused', async () => {
    const limit = limiter({ points: 50, duration: 600 })
    const { allowed, refused } = await settle(Array.from({ length: 200 }, () => limit.consume('user')))
    expect(allowed).toHaveLength(50)
    expect(refused).toHaveLength(150)
    for (const res of refused) expect(res).toBeInstanceOf(RateLimiterRes)
    // Each pass saw its own count: remaining points 49 … 0, each once.
    expect(allowed.map((res) => res.remainingPoints).sort((a, b) => a - b)).toEqual(Array.from({ length: 50 }, (_, i) => i))
    expect(allowed.filter((res) => res.isFirstInDuration)).toHaveLength(1)
    for (const res of refused) {
      expect(res.remainingPoints).toBe(0)
      expect(res.msBeforeNext).toBeGreaterThan(0)
      expect(res.msBeforeNext).toBeLessThanOrEqual(600_000)
    }
    expect(await admin.get(`rl${prefix}:user`)).toBe('200')
    const ttl = await admin.ttl(`rl${prefix}:user`)
    expect(ttl).toBeGreaterThan(0)
    expect(ttl).toBeLessThanOrEqual(600)
  })

  test.skipIf(skipped)('consuming several points at once counts them; a consume past the limit is refused whole', async () => {
    const limit = limiter({ points: 10, duration: 600 })
    expect((await limit.consume('k', 4)).consumedPoints).toBe(4)
    expect((await limit.consume('k', 6)).remainingPoints).toBe(0)
    const refused = await limit.consume('k', 1).then(
      () => undefined,
      (res: RateLimiterRes) => res,
    )
    expect(refused?.consumedPoints).toBe(11)
  })

  test.skipIf(skipped)('penalty adds points and reward takes them back, without refusing', async () => {
    const limit = limiter({ points: 10, duration: 600 })
    await limit.consume('k', 3)
    expect((await limit.penalty('k', 2)).consumedPoints).toBe(5)
    const rewarded = await limit.reward('k', 4)
    expect(rewarded.consumedPoints).toBe(1)
    expect(rewarded.remainingPoints).toBe(9)
    // A penalty past the limit is recorded, not refused; the next consume is.
    expect((await limit.penalty('k', 20)).consumedPoints).toBe(21)
    await expect(limit.consume('k')).rejects.toBeInstanceOf(RateLimiterRes)
    expect(await admin.get(`rl${prefix}:k`)).toBe('22')
  })

  test.skipIf(skipped)('blockDuration: the consume that crosses the limit blocks the key for that long', async () => {
    const limit = limiter({ points: 2, duration: 60, blockDuration: 600 })
    await limit.consume('k')
    await limit.consume('k')
    const refused = (await limit.consume('k').catch((res: RateLimiterRes) => res)) as RateLimiterRes
    expect(refused).toBeInstanceOf(RateLimiterRes)
    expect(refused.msBeforeNext).toBe(600_000)
    // The key now lives for the block duration, not the window's 60 s.
    const pttl = await admin.pttl(`rl${prefix}:k`)
    expect(pttl).toBeGreaterThan(60_000)
    expect(pttl).toBeLessThanOrEqual(600_000)
    const during = (await limit.consume('k').catch((res: RateLimiterRes) => res)) as RateLimiterRes
    expect(during.msBeforeNext).toBeGreaterThan(60_000)

    // block() blocks a key outright: points + 1 consumed, for the given seconds.
    await limit.block('other', 30)
    const blocked = await limit.get('other')
    expect(blocked?.consumedPoints).toBe(3)
    expect(blocked?.msBeforeNext).toBeGreaterThan(0)
    expect(blocked?.msBeforeNext).toBeLessThanOrEqual(30_000)
    await expect(limit.consume('other')).rejects.toBeInstanceOf(RateLimiterRes)
  })

  test.skipIf(skipped)('get reads without consuming, delete removes, both answer for unknown keys', async () => {
    const limit = limiter({ points: 5, duration: 600 })
    expect(await limit.get('k')).toBeNull()
    await limit.consume('k', 2)
    const seen = await limit.get('k')
    expect(seen?.consumedPoints).toBe(2)
    expect(seen?.remainingPoints).toBe(3)
    expect((await limit.get('k'))?.consumedPoints).toBe(2)
    expect(await limit.delete('k')).toBe(true)
    expect(await limit.get('k')).toBeNull()
    expect(await limit.delete('k')).toBe(false)
  })

  test.skipIf(skipped)('duration 0 never expires (MULTI INCRBY + PTTL); a 1 s window opens again once its key expires', async () => {
    const forever = limiter({ points: 1, duration: 0 })
    const first = await forever.consume('k')
    expect(first.consumedPoints).toBe(1)
    expect(first.msBeforeNext).toBe(-1)
    await expect(forever.consume('k')).rejects.toBeInstanceOf(RateLimiterRes)
    expect(await admin.ttl(`rl${prefix}:k`)).toBe(-1)

    const second = limiter({ points: 1, duration: 1 })
    await second.consume('k')
    await expect(second.consume('k')).rejects.toBeInstanceOf(RateLimiterRes)
    await vi.waitFor(async () => expect(await admin.exists(`rl${prefix}:k`)).toBe(0), { timeout: 5_000, interval: 20 })
    expect((await second.consume('k')).consumedPoints).toBe(1)
  })
})
