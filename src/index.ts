/**
 * restis: a Redis-compatible key-value database behind HTTP.
 *
 * What this entry exports, and why: the pieces a server is wired from, and the types their
 * signatures reach: executors (embedded and socket), the REST gateway and its Fetch and Node
 * handlers, the RESP listener, tokens, permissions and limits, the reply model, and the errors
 * users catch. Everything else stays on the subpath of its module, and only where users need it
 * on its own: `restis/resp` (the RESP2 codec), `restis/rest` (the gateway and the SSE clients),
 * `restis/fetch`, `restis/node`, `restis/memory`, `restis/socket` (with `parseRedisUrl`),
 * `restis/auth` (with the read-only command list and ACL rules), `restis/workflow` (`serve()`
 * and the queue client, small enough for edge runtimes) and `restis/queue` (the local queue
 * service). Parsers, renderers and key layouts are internal: no entry exports them.
 * @packageDocumentation
 */
export { isBytes, isReplyError } from './reply.js'
export { BackendUnavailableError, OutcomeUnknownError } from './executor/executor.js'
export { MemoryExecutor } from './executor/memory/memory-executor.js'
export type { MemoryExecutorOptions } from './executor/memory/memory-executor.js'
export type { EngineOptions } from './executor/memory/engine.js'
export type { PersistenceOptions } from './executor/memory/persistence/rdb-persistence.js'
export type { MaxmemoryPolicy } from './executor/memory/eviction.js'
export { SocketExecutor } from './executor/socket/socket-executor.js'
export type { SocketExecutorStats } from './executor/socket/socket-executor.js'
export type { SocketExecutorOptions } from './executor/socket/options.js'
export { HandshakeError, ReplyTooLargeError, ConnectFailedError } from './executor/socket/connection.js'
export { createGateway } from './rest/gateway.js'
export { createFetchHandler } from './adapters/fetch.js'
export type { FetchHandler } from './adapters/fetch.js'
export { createNodeHandler } from './adapters/node.js'
export type { NodeHandler, NodeListenerOptions, StreamingNodeHandler } from './adapters/node.js'
export { serveResp, READONLY_RESP_USER } from './adapters/resp-server.js'
export { ClusterExecutor, RedisExecutor } from './executor/socket/index.js'
export type { ClusterExecutorOptions, ClusterExecutorStats, RedisExecutorOptions, RedisTopology } from './executor/socket/index.js'
export type { RespServer, RespServerOptions, OutputBufferLimit, RespCloseOptions } from './adapters/resp-server.js'
export { generateToken } from './auth/tokens.js'
export { provisionReadonlyUser } from './auth/permissions.js'
// The gateway's surface: executor and reply model, request and response, tokens and limits.
export * from './entries/gateway-surface.js'
