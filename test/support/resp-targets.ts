/**
 * The two RESP servers a client-library test runs its assertions against, one after the other:
 * the RESP listener over a fresh memory engine, and a throwaway redis-server 7.0.15. Each has a
 * port on 127.0.0.1 and is stopped by `stop()`. The redis-server target follows the availability
 * rule of `redis-server.ts` (skipped with the reason without the binary, except under CI).
 *
 * ```ts
 * describe.each(RESP_TARGETS)('redlock on $name', (target) => {
 *   let server: RunningTarget
 *   beforeAll(async () => { server = await target.start() })
 *   afterAll(() => server?.stop())
 * })
 * ```
 *
 * A suite that runs whole or not at all per target skips itself, with the reason in its title:
 *
 * ```ts
 * for (const respTarget of RESP_TARGETS) {
 *   describe.skipIf(respTarget.skip !== undefined)(`exact WATCH: ${respTargetTitle(respTarget)}`, () => { … })
 * }
 * ```
 */
import { MemoryExecutor, type MemoryExecutorOptions } from '../../src/executor/memory/memory-executor.js'
import { serveResp } from '../../src/adapters/resp-server.js'
import { redisServerSkipReason, startRedisServer } from './redis-server.js'

export interface RunningTarget {
  readonly port: number
  /** The engine behind the listener, for what only it can tell (watched keys …); undefined on redis-server. */
  readonly memory?: MemoryExecutor
  stop(): Promise<void>
}

/** What a suite may ask of both targets alike. */
export interface RespTargetOptions {
  /** The connection cap: the listener's `maxClients`, redis-server's `--maxclients`. */
  readonly maxClients?: number
  /** Options of the memory engine (the redis-server target has its own defaults). */
  readonly memory?: MemoryExecutorOptions
}

export interface RespTarget {
  readonly name: string
  /** Why this target is skipped here, or undefined when it runs. */
  readonly skip: string | undefined
  start(options?: RespTargetOptions): Promise<RunningTarget>
}

export const RESP_TARGETS: readonly RespTarget[] = [
  {
    name: 'the RESP listener over the memory engine',
    skip: undefined,
    async start(options = {}) {
      const memory = new MemoryExecutor(options.memory)
      const server = await serveResp(memory, { port: 0, ...(options.maxClients === undefined ? {} : { maxClients: options.maxClients }) })
      return {
        port: server.address.port,
        memory,
        async stop() {
          await server.close()
          await memory.close()
        },
      }
    },
  },
  {
    name: 'redis-server 7.0.15',
    skip: redisServerSkipReason,
    async start(options = {}) {
      const server = await startRedisServer({ args: options.maxClients === undefined ? [] : ['--maxclients', String(options.maxClients)] })
      return { port: server.port, stop: () => server.stop() }
    },
  },
]

/** The target's name for a suite title; a skipped target says why, so the report shows it. */
export function respTargetTitle(target: RespTarget): string {
  return target.skip === undefined ? target.name : `${target.name} (skipped: ${target.skip})`
}
