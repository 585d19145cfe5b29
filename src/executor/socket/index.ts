/**
 * The socket executor: RESP2 over TCP or TLS to a real Redis (or any RESP2 server), with
 * pipelining, a small connection pool, transactions, shared pub/sub and MONITOR connections,
 * per-user and per-database pools, timeouts and reconnection.
 *
 * ```ts
 * import { SocketExecutor } from 'restis/socket'
 * const executor = new SocketExecutor({ url: 'redis://:secret@127.0.0.1:6379/0' })
 * ```
 *
 * `RedisExecutor` finds out whether the URL is one server or a node of a Redis Cluster, and
 * `ClusterExecutor` is the cluster client it then uses (see docs/cluster.md).
 * @packageDocumentation
 */
export { SocketExecutor } from './socket-executor.js'
export type { SocketExecutorStats } from './socket-executor.js'
export { parseRedisUrl } from './options.js'
export type { SocketExecutorOptions, ParsedRedisUrl } from './options.js'
export { HandshakeError, ReplyTooLargeError, ConnectFailedError } from './connection.js'
export { ShardSubscriptionRefusedError } from './streams.js'
export { ClusterExecutor } from '../cluster/cluster-executor.js'
export type { ClusterExecutorStats } from '../cluster/cluster-executor.js'
export type { ClusterExecutorOptions } from '../cluster/options.js'
export { RedisExecutor } from '../cluster/redis-executor.js'
export type { RedisExecutorOptions, RedisTopology } from '../cluster/redis-executor.js'
export { BackendUnavailableError, OutcomeUnknownError } from '../executor.js'
export { isBytes, isReplyError } from '../../reply.js'
export * from '../../entries/executor-surface.js'
