/**
 * The socket executor: RESP2 over TCP or TLS to a real Redis (or any RESP2 server), with
 * pipelining, a small connection pool, transactions, shared pub/sub and MONITOR connections,
 * per-user and per-database pools, timeouts and reconnection.
 *
 * ```ts
 * import { SocketExecutor } from 'restis/socket'
 * const executor = new SocketExecutor({ url: 'redis://:secret@127.0.0.1:6379/0' })
 * ```
 * @packageDocumentation
 */
export { SocketExecutor } from './socket-executor.js'
export type { SocketExecutorStats } from './socket-executor.js'
export { parseRedisUrl } from './options.js'
export type { SocketExecutorOptions, ParsedRedisUrl } from './options.js'
export { HandshakeError, ReplyTooLargeError } from './connection.js'
export { BackendUnavailableError, OutcomeUnknownError } from '../executor.js'
export { isBytes, isReplyError } from '../../reply.js'
export * from '../../entries/executor-surface.js'
