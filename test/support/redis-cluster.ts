/**
 * Starts a throwaway Redis Cluster for tests: N redis-servers with `--cluster-enabled yes`, each
 * on a free loopback port with its own temporary `--dir` (its `nodes.conf` lives there), joined
 * by `redis-cli --cluster create … --cluster-yes`, ready once every node reports
 * `cluster_state:ok` and knows every other node. `stop()` ends them all and removes the dirs.
 *
 * Fault tests kill a node (`kill(i)`, SIGKILL), restart it where it was (`restart(i)`: same
 * port, same dir, so it rejoins with its node id), or wait for a condition (`waitFor`).
 */

import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { startRedisServer, type RedisServer } from './redis-server.js'

const run = promisify(execFile)

/** The binary that creates and reshards the cluster; `REDIS_CLI_BIN` overrides. */
export const REDIS_CLI_BIN: string = process.env.REDIS_CLI_BIN || 'redis-cli'

export interface RedisCluster {
  /** Ports of the nodes, in start order (the first `masters` start as masters). */
  readonly ports: readonly number[]
  /** `redis://127.0.0.1:<port>` of node `i`. */
  url(i: number): string
  /** `cluster-node-timeout`, in ms. */
  readonly nodeTimeout: number
  /** Runs `redis-cli -p <port of node i> <args…>` and returns its output. */
  cli(i: number, ...args: string[]): Promise<string>
  /** Runs `redis-cli --cluster <args…>` (create, reshard, check …) and returns its output. */
  clusterCli(...args: string[]): Promise<string>
  /** SIGKILLs node `i` and resolves once it exited. */
  kill(i: number): Promise<void>
  /** Starts node `i` again on its port with its dir. */
  restart(i: number): Promise<void>
  /** Stops node `i` (SIGTERM), keeping its dir. */
  stopNode(i: number): Promise<void>
  /** Index of the node whose port is `port`. */
  indexOf(port: number): number
  /** Indexes of the nodes running now. */
  running(): number[]
  /**
   * Resolves once `redis-cli --cluster check` finds nothing wrong (every node agrees on the
   * slots, no slot open, all covered): the state `redis-cli --cluster reshard` needs to start.
   */
  clusterCheck(timeoutMs?: number): Promise<void>
  /**
   * Resolves once every running node reports `cluster_state:ok`, agrees on the masters, and its
   * replication link (for a replica) is up; with `replicaCount`, once that many nodes are replicas.
   */
  waitHealthy(timeoutMs?: number, replicaCount?: number): Promise<void>
  /** Stops every node and removes the dirs. Idempotent. */
  stop(): Promise<void>
}

export interface ClusterStartOptions {
  /** Nodes in all (default 6). */
  readonly nodes?: number
  /** Replicas per master (default 1). */
  readonly replicas?: number
  /** `cluster-node-timeout` in ms (default 2000). */
  readonly nodeTimeout?: number
}

/**
 * Polls `check` until it returns true, every `interval` ms, giving up after `timeoutMs` with
 * `what` in the error. For conditions that have no event to wait on (a remote server's state).
 */
export async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs: number, interval = 100): Promise<void> {
  const deadline = Date.now() + timeoutMs
  let last: unknown
  while (Date.now() < deadline) {
    try {
      if (await check()) return
    } catch (error) {
      last = error
    }
    await new Promise((resolve) => setTimeout(resolve, interval))
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last ? `: ${String(last)}` : ''}`)
}

export async function startRedisCluster(options: ClusterStartOptions = {}): Promise<RedisCluster> {
  const count = options.nodes ?? 6
  const replicas = options.replicas ?? 1
  const nodeTimeout = options.nodeTimeout ?? 2000
  const dirs = Array.from({ length: count }, () => mkdtempSync(path.join(tmpdir(), 'restis-cluster-')))
  const argsFor = (i: number): string[] => [
    '--cluster-enabled', 'yes',
    '--cluster-config-file', 'nodes.conf',
    '--cluster-node-timeout', String(nodeTimeout),
    '--dir', dirs[i],
  ]
  const servers: (RedisServer | undefined)[] = []
  let stopped = false
  // A test process that dies without its afterAll must not leave servers behind.
  const killAll = (): void => {
    for (const server of servers) if (server?.child.pid !== undefined) process.kill(server.child.pid, 'SIGKILL')
  }
  process.once('exit', killAll)
  const stop = async (): Promise<void> => {
    if (stopped) return
    stopped = true
    process.removeListener('exit', killAll)
    await Promise.all(servers.map((server) => server?.stop()))
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
  }
  try {
    for (let i = 0; i < count; i++) servers.push(await startRedisServer({ args: argsFor(i) }))
  } catch (error) {
    await stop()
    throw error
  }
  const ports = servers.map((server) => (server as RedisServer).port)
  const cli = async (i: number, ...args: string[]): Promise<string> =>
    (await run(REDIS_CLI_BIN, ['-h', '127.0.0.1', '-p', String(ports[i]), ...args], { timeout: 30_000 })).stdout
  const clusterCli = async (...args: string[]): Promise<string> => {
    try {
      return (await run(REDIS_CLI_BIN, ['--cluster', ...args], { timeout: 60_000, maxBuffer: 16 * 1024 * 1024 })).stdout
    } catch (error) {
      // redis-cli --cluster reports why it gave up on its stdout ([ERR] lines): keep them.
      const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string }
      const why = [...stdout.split('\n').filter((line) => /\[(ERR|WARNING)\]|^\*\*\*|error/i.test(line)), stderr.trim()].filter(Boolean).join('\n')
      throw new Error(`redis-cli --cluster ${args[0]} failed: ${(error as Error).message.split('\n')[0]}\n${why}\n--- stdout tail ---\n${stdout.slice(-4000)}`)
    }
  }

  const running = (): number[] => servers.flatMap((server, i) => (server !== undefined ? [i] : []))
  /**
   * Every running node: `cluster_state:ok`, the same masters with slots, and a replica's link to
   * its master up (so CLUSTER SHARDS reports it `online`). With `replicaCount`, that many replicas.
   */
  const waitHealthy = async (timeoutMs = 30_000, replicaCount?: number): Promise<void> => {
    await waitFor('cluster_state:ok on every node', async () => {
      const views = await Promise.all(running().map(async (i) => {
        const info = await cli(i, 'CLUSTER', 'INFO')
        if (!/cluster_state:ok/.test(info) || !/cluster_slots_ok:16384/.test(info)) return undefined
        const replication = await cli(i, 'INFO', 'replication')
        if (/role:slave/.test(replication) && !/master_link_status:up/.test(replication)) return undefined
        const nodes = await cli(i, 'CLUSTER', 'NODES')
        // Masters with slots, as this node sees them: every node must see the same.
        const masters = nodes.split('\n').filter((line) => / master /.test(line.replace(/myself,/, '')) && line.split(' ').length > 8 && !/fail/.test(line)).map((line) => line.split(' ')[1]).sort().join(',')
        return { masters, replica: /role:slave/.test(replication) }
      }))
      if (views.some((view) => view === undefined)) return false
      const replicas = views.filter((view) => view?.replica).length
      return views.every((view) => view?.masters === views[0]?.masters) && (replicaCount === undefined || replicas === replicaCount)
    }, timeoutMs)
  }

  const cluster: RedisCluster = {
    ports,
    nodeTimeout,
    url: (i) => `redis://127.0.0.1:${ports[i]}`,
    cli,
    clusterCli,
    indexOf: (port) => ports.indexOf(port),
    running,
    async clusterCheck(timeoutMs = 30_000) {
      let last = ''
      await waitFor('redis-cli --cluster check to pass', async () => {
        const [first] = running()
        try {
          last = await clusterCli('check', `127.0.0.1:${ports[first]}`)
        } catch (error) {
          last = String(error)
          return false
        }
        return !/\[(ERR|WARNING)\]/.test(last)
      }, timeoutMs, 200).catch((error: Error) => {
        throw new Error(`${error.message}\n${last}`)
      })
    },
    async kill(i) {
      const server = servers[i]
      if (server === undefined) return
      servers[i] = undefined
      if (server.child.pid !== undefined) process.kill(server.child.pid, 'SIGKILL')
      await server.exited
    },
    async stopNode(i) {
      const server = servers[i]
      servers[i] = undefined
      await server?.stop()
    },
    async restart(i) {
      if (servers[i] !== undefined) return
      servers[i] = await startRedisServer({ port: ports[i], args: argsFor(i) })
    },
    waitHealthy,
    stop,
  }
  try {
    await clusterCli('create', ...ports.map((port) => `127.0.0.1:${port}`), '--cluster-replicas', String(replicas), '--cluster-yes')
    await waitHealthy(30_000, count - Math.floor(count / (replicas + 1)))
  } catch (error) {
    await stop()
    throw error
  }
  return cluster
}
