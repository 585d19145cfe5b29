/**
 * The embedded Redis-compatible engine as an {@link Executor}.
 * @packageDocumentation
 */
export { MemoryExecutor } from './memory-executor.js'
export type { MemoryExecutorOptions } from './memory-executor.js'
export { Engine } from './engine.js'
export type { EngineOptions } from './engine.js'
export type { Executor, CallContext, Subscription, PubSubEvent, MonitorEvent } from '../executor.js'
