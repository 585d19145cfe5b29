/**
 * Throwaway `redis-server`s for tests, through the one launcher shared with the benchmarks and
 * scripts (`scripts/redis-server.mjs`): its own free loopback port and temporary `--dir`, no
 * persistence, ready when it answers PING, stopped (and awaited, directory removed) by `stop()`.
 *
 * Availability rule: without `redis-server` on PATH the live suites are skipped, with the reason
 * in the suite name — except under `CI=true`, where they run and fail loudly.
 *
 * ```ts
 * import { startRedisServer, redisServerSkipReason, liveSuiteName } from '../support/redis-server.js'
 *
 * describe.skipIf(redisServerSkipReason !== undefined)(liveSuiteName('GETKEYS parity'), () => {
 *   let server: RedisServer
 *   beforeAll(async () => { server = await startRedisServer() })
 *   afterAll(() => server?.stop())
 * })
 * ```
 */

import { spawnSync } from 'node:child_process'
import { REDIS_SERVER_BIN } from '../../scripts/redis-server.mjs'

export { REDIS_SERVER_BIN, freePort, ping, startRedisServer, makeServerDir, removeServerDir } from '../../scripts/redis-server.mjs'
export type { RedisServer, StartOptions } from '../../scripts/redis-server.mjs'

function probeBinary(): boolean {
  const result = spawnSync(REDIS_SERVER_BIN, ['--version'], { stdio: 'ignore', timeout: 10_000 })
  return !result.error && result.status === 0
}

/** Whether `redis-server` can be run here. */
export const redisServerAvailable: boolean = probeBinary()

/**
 * Why live suites should be skipped, or `undefined` when they should run: they run when the
 * binary is available, and always when `CI=true` (a missing server must fail there, not skip).
 */
export const redisServerSkipReason: string | undefined =
  redisServerAvailable || process.env.CI === 'true' ? undefined : `${REDIS_SERVER_BIN} not found on PATH`

/** A suite name carrying the skip reason when the suite is skipped. */
export function liveSuiteName(name: string): string {
  return redisServerSkipReason === undefined ? name : `${name} (skipped: ${redisServerSkipReason})`
}
