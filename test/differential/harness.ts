/**
 * Differential testing: the same command sequences through the in-memory executor and through
 * the socket executor to a real `redis-server`, replies compared byte for byte.
 *
 * A case file exports `DiffCase[]`; its test file calls `runDifferential(title, cases)`.
 * Relaxations are explicit and named, and only for replies where Redis itself is random or
 * time-dependent.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest'
import { NULL_ARRAY, ReplyError, Status, type Command, type Reply } from '../../src/reply.js'
import type { Executor } from '../../src/executor/executor.js'
import { MemoryExecutor, type MemoryExecutorOptions } from '../../src/executor/memory/memory-executor.js'
import type { SocketExecutor } from '../../src/executor/socket/socket-executor.js'
import { startRedisServer, redisServerSkipReason, type RedisServer } from '../support/redis-server.js'

/**
 * How a reply may differ from Redis's:
 * - `unordered`: an array compared as a multiset (Redis's hash-table order is not part of its contract)
 * - `unorderedPairs`: a flat array of field/value pairs compared as a multiset of pairs (HGETALL)
 * - `ignore`: not compared at all (random replies: SPOP, RANDOMKEY); the type must still match
 * - `ttl`: an integer that may differ by at most 1 (TTL / PTTL read at slightly different times)
 * - `sameLength`: an array (or bulk) compared by length only (random samples of a known size)
 */
export type Relaxation = 'unordered' | 'unorderedPairs' | 'ignore' | 'ttl' | 'sameLength'

export interface DiffCase {
  /** What the sequence shows, as a sentence: "SET with EX and KEEPTTL together is a syntax error". */
  readonly name: string
  readonly commands: readonly Command[]
  /** Relaxations by command index. */
  readonly relax?: Readonly<Record<number, Relaxation>>
}

/** A readable rendering of a reply for failure messages. */
export function showReply(reply: Reply): string {
  if (reply === null) return '(nil)'
  if (reply === NULL_ARRAY) return '(nil array)'
  if (typeof reply === 'number' || typeof reply === 'bigint') return `(integer) ${reply}`
  if (reply instanceof Status) return `+${reply.text}`
  if (reply instanceof ReplyError) return `-${reply.message}`
  if (reply instanceof Uint8Array) return JSON.stringify(Buffer.from(reply).toString('latin1'))
  return `[${(reply as readonly Reply[]).map(showReply).join(', ')}]`
}

/**
 * The `cmdstat_*` lines of an INFO commandstats reply, sorted, without their timings (`usec`,
 * `usec_per_call`), which depend on each server's speed.
 */
export function commandCalls(reply: Reply): string[] {
  return Buffer.from(reply as Uint8Array)
    .toString('latin1')
    .split('\r\n')
    .filter((line) => line.startsWith('cmdstat_'))
    .map((line) => line.replace(/usec=\d+,usec_per_call=[\d.]+,/, ''))
    .sort()
}

function canonical(reply: Reply): string {
  if (typeof reply === 'bigint') return `(integer) ${reply}`
  return showReply(reply)
}

/** Compares two replies under a relaxation; returns a description of the difference, or null. */
export function compareReplies(ours: Reply, redis: Reply, relax?: Relaxation): string | null {
  const a = canonical(ours)
  const b = canonical(redis)
  if (relax === undefined) return a === b ? null : `memory ${a}\nredis  ${b}`
  const sameKind = kindOf(ours) === kindOf(redis)
  if (!sameKind) return `memory ${a}\nredis  ${b} (different reply types)`
  switch (relax) {
    case 'ignore':
      return null
    case 'ttl':
      return typeof ours === typeof redis && Math.abs(Number(ours) - Number(redis)) <= 1 ? null : `memory ${a}\nredis  ${b} (ttl)`
    case 'sameLength':
      return lengthOf(ours) === lengthOf(redis) ? null : `memory ${a}\nredis  ${b} (length)`
    case 'unordered': {
      const x = Array.isArray(ours) ? (ours as Reply[]).map(canonical).sort() : [a]
      const y = Array.isArray(redis) ? (redis as Reply[]).map(canonical).sort() : [b]
      return x.join('\n') === y.join('\n') ? null : `memory ${a}\nredis  ${b} (unordered)`
    }
    case 'unorderedPairs': {
      const pairs = (r: Reply) => {
        if (!Array.isArray(r)) return [canonical(r)]
        const items = r as Reply[]
        const out: string[] = []
        for (let i = 0; i < items.length; i += 2) out.push(canonical(items[i]) + ' => ' + canonical(items[i + 1]))
        return out.sort()
      }
      return pairs(ours).join('\n') === pairs(redis).join('\n') ? null : `memory ${a}\nredis  ${b} (unordered pairs)`
    }
  }
}

function kindOf(reply: Reply): string {
  if (reply === null) return 'nil'
  if (reply === NULL_ARRAY) return 'nilarray'
  if (typeof reply === 'number' || typeof reply === 'bigint') return 'integer'
  if (reply instanceof Status) return 'status'
  if (reply instanceof ReplyError) return 'error'
  if (reply instanceof Uint8Array) return 'bulk'
  return 'array'
}

function lengthOf(reply: Reply): number {
  if (Array.isArray(reply)) return reply.length
  if (reply instanceof Uint8Array) return reply.length
  return -1
}

/** Connects the reference executor: the socket executor to a real server. */
async function connectReference(url: string): Promise<SocketExecutor> {
  const { SocketExecutor } = await import('../../src/executor/socket/socket-executor.js')
  return new SocketExecutor({ url })
}

/** The executors a live suite compares, available to its tests once its `beforeAll` ran. */
export interface DifferentialExecutors {
  /** The engine under test. */
  readonly memory: MemoryExecutor
  /** The reference: the socket executor to {@link DifferentialExecutors.server}. */
  readonly redis: SocketExecutor
  readonly server: RedisServer
  /** Runs `command` on both executors at once: the replies of memory and of redis. */
  both(command: Command): Promise<[Reply, Reply]>
}

export interface DifferentialOptions {
  /** Extra `redis-server` arguments, e.g. `['--enable-debug-command', 'yes']`. */
  readonly serverArgs?: readonly string[]
  /** Options of the memory executor. */
  readonly memory?: MemoryExecutorOptions
  /** FLUSHALL on both executors before each test. Default true. */
  readonly flushBeforeEach?: boolean
}

/**
 * Registers, in the enclosing `describe`, the two executors of a differential suite: a fresh
 * `redis-server` with the socket executor in front of it, and a memory executor, started before
 * the suite's tests, flushed before each (unless `flushBeforeEach: false`) and closed after them.
 */
export function withDifferentialExecutors(options: DifferentialOptions = {}): DifferentialExecutors {
  let server: RedisServer
  let redis: SocketExecutor
  let memory: MemoryExecutor
  beforeAll(async () => {
    server = await startRedisServer(options.serverArgs === undefined ? undefined : { args: options.serverArgs })
    redis = await connectReference(server.url)
    memory = new MemoryExecutor(options.memory)
  })
  afterAll(async () => {
    await memory?.close()
    await redis?.close()
    await server?.stop()
  })
  if (options.flushBeforeEach ?? true) {
    beforeEach(async () => {
      await Promise.all([memory.exec(['FLUSHALL']), redis.exec(['FLUSHALL'])])
    })
  }
  return {
    get memory() {
      return memory
    },
    get redis() {
      return redis
    },
    get server() {
      return server
    },
    both: (command) => Promise.all([memory.exec(command), redis.exec(command)]),
  }
}

/**
 * A differential suite: `body` declares its tests, with the executors of
 * {@link withDifferentialExecutors}. Skipped, with the reason in the title, when `redis-server`
 * is not installed, except under CI=true, where that fails.
 */
export function describeDifferential(title: string, body: (live: DifferentialExecutors) => void, options?: DifferentialOptions): void {
  const skipReason = redisServerSkipReason ?? null
  describe.skipIf(skipReason !== null)(`${title} (differential against redis-server${skipReason ? `: ${skipReason}` : ''})`, () => {
    body(withDifferentialExecutors(options))
  })
}

/** Runs each sequence on both executors (after FLUSHALL on both) and compares every reply. */
export async function runSequence(
  memory: Executor,
  redis: Executor,
  commands: readonly Command[],
  relax: Readonly<Record<number, Relaxation>> = {},
): Promise<string | null> {
  for (let i = 0; i < commands.length; i++) {
    const [ours, theirs] = await Promise.all([memory.exec(commands[i]), redis.exec(commands[i])])
    const difference = compareReplies(ours, theirs, relax[i])
    if (difference !== null) {
      const shown = commands[i].map((arg) => (typeof arg === 'string' ? arg : `<${Buffer.from(arg).toString('hex')}>`))
      return `command ${i}: ${shown.join(' ')}\n${difference}`
    }
  }
  return null
}

/**
 * Declares one vitest test per case, in a {@link describeDifferential} suite; `run` compares a
 * case's replies (default {@link runSequence}).
 */
export function runDifferential(title: string, cases: readonly DiffCase[], run: typeof runSequence = runSequence, options?: DifferentialOptions): void {
  describeDifferential(title, (live) => {
    for (const entry of cases) {
      test(entry.name, async () => {
        const difference = await run(live.memory, live.redis, entry.commands, entry.relax)
        expect(difference, difference ?? '').toBeNull()
      })
    }
  }, options)
}
