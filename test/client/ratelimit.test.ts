/**
 * `@upstash/ratelimit` 2.2.0, unchanged, through the official REST client and the gateway over
 * real HTTP, on the memory executor and on the socket executor in front of redis-server. Its
 * scripts open with `#!lua flags=allow-key-locking` (the hosted service's flag) and run by
 * EVALSHA of hard-coded SHA1s, falling back to EVAL on NOSCRIPT: every algorithm must count
 * exactly under 200 concurrent calls, with auto-pipelining (one /pipeline) and without (200
 * requests).
 *
 * Every limiter is built with `timeout: 0`: by default the package answers "allowed" (reason
 * `timeout`) to a call slower than 5 s, which on a loaded test machine would make counts vary.
 * Windows are 100 days long so that no window boundary falls inside a test, except for the one
 * test that waits for one (`blockUntilReady`). The deny list's IP list is disabled first: left
 * enabled, the package downloads it from the internet.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest'
import { Redis } from '@upstash/redis'
import { IpDenyList, MultiRegionRatelimit, Ratelimit } from '@upstash/ratelimit'
import { createNodeHandler } from '../../src/adapters/node.js'
import type { Executor } from '../../src/executor/executor.js'
import { listen } from '../support/http.js'
import { executorsUnderTest } from '../support/executors.js'

const TOKEN = 'ratelimit-token'
const CALLS = 200
const LIMIT = 50
const WINDOW = '100 d'

/** SHA1s the package calls by EVALSHA (its `SCRIPTS`), e.g. the single-region fixed window's `limit`. */
const FIXED_WINDOW_LIMIT_SHA = 'b2efc02798c8e9b471a10f9b1d5745db89923ff3'
const TOKEN_BUCKET_LIMIT_SHA = 'd60be5bd3d83482ae229309f1f7425424f891204'

interface Outcome {
  readonly success: boolean
  readonly remaining: number
  readonly pending: Promise<unknown>
}

/** `CALLS` concurrent `limit` calls for one identifier; their pending work is awaited too. */
async function burst(limiter: Ratelimit | MultiRegionRatelimit, identifier: string): Promise<Outcome[]> {
  const outcomes = (await Promise.all(Array.from({ length: CALLS }, () => limiter.limit(identifier)))) as Outcome[]
  await Promise.all(outcomes.map((outcome) => outcome.pending))
  return outcomes
}

function allowed(outcomes: readonly Outcome[]): number {
  return outcomes.filter((outcome) => outcome.success).length
}

/** The `remaining` counts of the allowed calls, sorted: each count once, from limit-1 down to 0. */
function remainders(outcomes: readonly Outcome[]): number[] {
  return outcomes
    .filter((outcome) => outcome.success)
    .map((outcome) => outcome.remaining)
    .sort((a, b) => a - b)
}

/**
 * The client as some of the package's signatures type it: they see @upstash/redis through its
 * CommonJS declarations, the same class under another declaration.
 */
type PackageRedis = Parameters<typeof IpDenyList.disableIpDenyList>[0]
const asPackageRedis = (client: Redis): PackageRedis => client as unknown as PackageRedis

const everyRemainder = Array.from({ length: LIMIT }, (_, i) => i)

const modes = [
  { name: 'auto-pipelining on', enableAutoPipelining: true },
  { name: 'auto-pipelining off', enableAutoPipelining: false },
]

for (const entry of executorsUnderTest()) {
  for (const mode of modes) {
    describe.skipIf(entry.skipReason !== null)(`@upstash/ratelimit 2.2.0 (${mode.name}) over the ${entry.name} executor`, () => {
      let executor: Executor
      let release: () => Promise<void>
      let server: Awaited<ReturnType<typeof listen>>
      let redis: Redis

      beforeAll(async () => {
        ;({ executor, release } = await entry.create())
        server = await listen(createNodeHandler({ executor, token: TOKEN }))
        redis = new Redis({ url: server.url, token: TOKEN, enableAutoPipelining: mode.enableAutoPipelining, retry: false, enableTelemetry: false })
      })
      afterAll(async () => {
        await server?.close()
        await release?.()
      })
      beforeEach(async () => {
        await redis.flushdb()
        await redis.scriptFlush()
      })

      const single = (limiter: ReturnType<typeof Ratelimit.fixedWindow>, options: { dynamicLimits?: boolean } = {}) =>
        new Ratelimit({ redis, limiter, timeout: 0, enableTelemetry: false, ...options })

      test('fixedWindow: exactly the limit is allowed, each remaining count once; the script is then cached', async () => {
        const outcomes = await burst(single(Ratelimit.fixedWindow(LIMIT, WINDOW)), 'user')
        expect(allowed(outcomes)).toBe(LIMIT)
        expect(remainders(outcomes)).toEqual(everyRemainder)
        // The first calls met NOSCRIPT and sent the script; EVALSHA now finds it under the package's SHA1.
        expect(await redis.scriptExists(FIXED_WINDOW_LIMIT_SHA)).toEqual([1])
        expect(allowed(await burst(single(Ratelimit.fixedWindow(LIMIT, WINDOW)), 'other'))).toBe(LIMIT)
      })

      test('slidingWindow: exactly the limit is allowed, each remaining count once', async () => {
        const outcomes = await burst(single(Ratelimit.slidingWindow(LIMIT, WINDOW)), 'user')
        expect(allowed(outcomes)).toBe(LIMIT)
        expect(remainders(outcomes)).toEqual(everyRemainder)
      })

      test('tokenBucket: exactly the bucket is allowed, each remaining count once', async () => {
        const outcomes = await burst(single(Ratelimit.tokenBucket(1, WINDOW, LIMIT)), 'user')
        expect(allowed(outcomes)).toBe(LIMIT)
        expect(remainders(outcomes)).toEqual(everyRemainder)
        expect(await redis.scriptExists(TOKEN_BUCKET_LIMIT_SHA)).toEqual([1])
      })

      test('cachedFixedWindow: exactly the limit is allowed; later calls are refused from the local cache', async () => {
        const limiter = new Ratelimit({ redis, limiter: Ratelimit.cachedFixedWindow(LIMIT, WINDOW), ephemeralCache: new Map(), timeout: 0, enableTelemetry: false })
        const outcomes = await burst(limiter, 'user')
        expect(allowed(outcomes)).toBe(LIMIT)
        const later = await limiter.limit('user')
        expect(later.success).toBe(false)
        expect((await limiter.getRemaining('user')).remaining).toBe(0)
      })

      test('getRemaining and resetUsedTokens, for every single-region algorithm', async () => {
        const algorithms = [Ratelimit.fixedWindow(LIMIT, WINDOW), Ratelimit.slidingWindow(LIMIT, WINDOW), Ratelimit.tokenBucket(1, WINDOW, LIMIT)]
        for (const [index, algorithm] of algorithms.entries()) {
          const limiter = single(algorithm)
          const identifier = `user-${index}`
          expect((await limiter.getRemaining(identifier)).remaining).toBe(LIMIT)
          for (let i = 0; i < 3; i++) expect((await limiter.limit(identifier)).success).toBe(true)
          expect(await limiter.getRemaining(identifier)).toMatchObject({ remaining: LIMIT - 3, limit: LIMIT })
          await limiter.resetUsedTokens(identifier)
          expect((await limiter.getRemaining(identifier)).remaining).toBe(LIMIT)
          expect((await limiter.limit(identifier)).remaining).toBe(LIMIT - 1)
        }
      })

      test('dynamic limits: a limit set at run time replaces the configured one, exactly', async () => {
        const limiter = single(Ratelimit.fixedWindow(LIMIT, WINDOW), { dynamicLimits: true })
        await limiter.setDynamicLimit({ limit: 7 })
        expect(await limiter.getDynamicLimit()).toEqual({ dynamicLimit: 7 })
        const outcomes = await burst(limiter, 'user')
        expect(allowed(outcomes)).toBe(7)
        await limiter.setDynamicLimit({ limit: false })
        expect(await limiter.getDynamicLimit()).toEqual({ dynamicLimit: null })
      })

      test('blockUntilReady waits for the next window and is then allowed', async () => {
        const limiter = single(Ratelimit.fixedWindow(1, '1 s'))
        await limiter.limit('user')
        const started = Date.now()
        const outcome = await limiter.blockUntilReady('user', 3_000)
        expect(outcome.success).toBe(true)
        expect(Date.now() - started).toBeLessThan(2_500)
      })

      test('the deny list: a denied identifier is refused without counting (an EVAL without shebang)', async () => {
        const limiter = new Ratelimit({ redis, limiter: Ratelimit.fixedWindow(LIMIT, WINDOW), enableProtection: true, timeout: 0, enableTelemetry: false })
        await IpDenyList.disableIpDenyList(asPackageRedis(redis), '@upstash/ratelimit')
        await redis.sadd('@upstash/ratelimit:denyList:all', 'bad-user')
        const denied = await limiter.limit('bad-user')
        expect(denied).toMatchObject({ success: false, reason: 'denyList', deniedValue: 'bad-user' })
        expect((await limiter.limit('good-user')).success).toBe(true)
      })

      test('MultiRegionRatelimit over one database: fixedWindow and slidingWindow allow exactly the limit', async () => {
        const algorithms = [MultiRegionRatelimit.fixedWindow(LIMIT, WINDOW), MultiRegionRatelimit.slidingWindow(LIMIT, WINDOW)]
        for (const [index, algorithm] of algorithms.entries()) {
          const limiter = new MultiRegionRatelimit({ redis: [asPackageRedis(redis)], limiter: algorithm, timeout: 0, enableTelemetry: false })
          const identifier = `user-${index}`
          expect(allowed(await burst(limiter, identifier))).toBe(LIMIT)
          expect((await limiter.getRemaining(identifier)).remaining).toBe(0)
        }
      })
    })
  }
}
