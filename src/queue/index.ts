/**
 * The local message-queue service: QStash-compatible API, deliveries with retries and a
 * dead-letter list, durable state in any executor, and a dashboard.
 * @packageDocumentation
 */
export { createQueueService, defaultBackoff } from './service.js'
export type { QueueService, QueueServiceOptions, RunDetail, RunView, StepView, DeadLetter } from './service.js'
export type { QueueEvent } from './worker.js'
export { QueueStore } from './store.js'
export type { RunRecord, MessageRecord, AttemptLog, RunState, MessageState, MessageKind } from './store.js'
