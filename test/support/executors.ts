/**
 * The executors every gateway test runs against (a vitest matrix): the in-memory engine, and the
 * socket executor in front of a real redis-server (skipped with the reason when the server is
 * not installed, except under CI=true).
 */
import type { Executor } from '../../src/executor/executor.js'
import { MemoryExecutor } from '../../src/executor/memory/memory-executor.js'
import { SocketExecutor } from '../../src/executor/socket/socket-executor.js'
import { redisServerSkipReason, startRedisServer } from './redis-server.js'
import { ClusterExecutor } from '../../src/executor/cluster/cluster-executor.js'
import { startRedisCluster } from './redis-cluster.js'

export interface ExecutorUnderTest {
  readonly name: string
  /** Why this executor cannot run here, or null. */
  readonly skipReason: string | null
  /** A fresh, empty executor; `release` stops what `create` started. */
  create(): Promise<{ executor: Executor; release(): Promise<void> }>
}

const memory: ExecutorUnderTest = {
  name: 'memory',
  skipReason: null,
  async create() {
    const executor = new MemoryExecutor()
    return { executor, release: () => executor.close() }
  },
}

/** The socket executor in front of a real redis-server of its own (started per `create`). */
const socket: ExecutorUnderTest = {
  name: 'socket',
  skipReason: redisServerSkipReason ?? null,
  async create() {
    const server = await startRedisServer()
    const executor = new SocketExecutor({ url: server.url })
    return {
      executor,
      async release() {
        await executor.close()
        await server.stop()
      },
    }
  },
}

/**
 * The cluster executor in front of a 6-node cluster of its own. Opt-in (`RESTIS_TEST_CLUSTER=1`):
 * a cluster per suite costs seconds, and suites whose transactions or multi-key commands use
 * keys of several slots answer CROSSSLOT there by design (docs/cluster.md).
 */
const cluster: ExecutorUnderTest = {
  name: 'cluster',
  skipReason: redisServerSkipReason ?? null,
  async create() {
    const nodes = await startRedisCluster()
    const executor = new ClusterExecutor({ url: nodes.url(0) })
    await executor.connect()
    return {
      executor,
      async release() {
        await executor.close()
        await nodes.stop()
      },
    }
  },
}

const extra: ExecutorUnderTest[] = process.env.RESTIS_TEST_CLUSTER === '1' ? [socket, cluster] : [socket]

/** Registers another executor for the matrix (the socket executor registers itself). */
export function registerExecutor(entry: ExecutorUnderTest): void {
  extra.push(entry)
}

export function executorsUnderTest(): readonly ExecutorUnderTest[] {
  return [memory, ...extra]
}
