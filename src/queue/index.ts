/**
 * The local message-queue service: QStash-compatible API, deliveries with retries and a
 * dead-letter list, durable state in any executor, and a dashboard. Read runs and dead letters
 * through {@link QueueService} (`runs`, `dlq`, `waitForRun`) and its events; the layout of its
 * keys is internal.
 * @packageDocumentation
 */
export { createQueueService, defaultBackoff } from './service.js'
export { SkippedFireNotice } from './schedules.js'
export type { QueueService, QueueServiceOptions, RunDetail, RunView, StepView, DeadLetter } from './service.js'
export type { QueueEvent } from './worker.js'
export type { RunState, MessageState, MessageKind } from './store.js'
export * from '../entries/executor-surface.js'
