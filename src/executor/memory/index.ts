/**
 * The embedded Redis-compatible engine as an {@link Executor}.
 * @packageDocumentation
 */
export { MemoryExecutor } from './memory-executor.js'
export type { MemoryExecutorOptions } from './memory-executor.js'
export type { EngineOptions } from './engine.js'
export type { PersistenceOptions } from './persistence/rdb-persistence.js'
export type { MaxmemoryPolicy } from './eviction.js'
export { BackendUnavailableError } from '../executor.js'
export { isBytes, isReplyError } from '../../reply.js'
export * from '../../entries/executor-surface.js'
