/**
 * restis: a Redis-compatible key-value database behind HTTP.
 *
 * Subpath entry points hold each module on its own: `restis/resp`, `restis/rest`,
 * `restis/fetch`, `restis/node`, `restis/memory`, `restis/socket`, `restis/auth`, `restis/workflow`.
 * The workflow queue service (`createQueueService`) is exported from here.
 * @packageDocumentation
 */
export * from './reply.js'
export { BackendUnavailableError } from './executor/executor.js'
export type { Executor, CallContext, Subscription, PubSubEvent, MonitorEvent } from './executor/executor.js'
export * from './rest/index.js'
export { createFetchHandler } from './adapters/fetch.js'
export type { FetchHandler } from './adapters/fetch.js'
export { createNodeHandler } from './adapters/node.js'
export type { NodeHandler } from './adapters/node.js'
export { MemoryExecutor } from './executor/memory/memory-executor.js'
export type { MemoryExecutorOptions } from './executor/memory/memory-executor.js'
export { SocketExecutor, HandshakeError, ReplyTooLargeError, parseRedisUrl } from './executor/socket/index.js'
export type { SocketExecutorOptions, SocketExecutorStats, ParsedRedisUrl } from './executor/socket/index.js'
export { ClusterExecutor, RedisExecutor, ConnectFailedError } from './executor/socket/index.js'
export type { ClusterExecutorOptions, ClusterExecutorStats, RedisExecutorOptions, RedisTopology } from './executor/socket/index.js'
export { serveResp } from './adapters/resp-server.js'
export type { RespServer, RespServerOptions } from './adapters/resp-server.js'
export * from './auth/index.js'
export type { CommandInfo, KeySpec, BeginSearch, FindKeys } from './commands/lookup.js'
export { serve, serveNode, serveNext, WorkflowNonRetryableError, WorkflowRetryAfterError } from './workflow/index.js'
export type { WorkflowContext, ServeOptions } from './workflow/index.js'
export { createQueueService, defaultBackoff } from './queue/index.js'
export type {
  QueueService,
  QueueServiceOptions,
  QueueEvent,
  QueueStore,
  RunDetail,
  RunView,
  StepView,
  DeadLetter,
  RunRecord,
  MessageRecord,
  AttemptLog,
  RunState,
  MessageState,
  MessageKind,
} from './queue/index.js'
