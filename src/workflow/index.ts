/**
 * Durable step workflows: `serve()` turns a workflow body into an endpoint that speaks the
 * QStash-compatible queue protocol (so it runs on the hosted queue and on restis's local one),
 * and `createQueueService()` is that local queue.
 *
 * ```ts
 * import { serve } from 'restis/workflow'
 * export const POST = serve<{ name: string }>(async (context) => {
 *   const greeting = await context.run('greet', () => `hello ${context.requestPayload.name}`)
 *   await context.run('log', () => console.log(greeting))
 * })
 * ```
 * @packageDocumentation
 */
export { serve, serveNode, serveNext } from './serve.js'
export type { RouteFunction, ServeOptions, FailureData, WorkflowLogEvent, WorkflowFetchHandler, WorkflowNodeHandler } from './serve.js'
export { WorkflowContext } from './context.js'
export type { FailureContext } from './context.js'
export {
  WorkflowError,
  WorkflowNonRetryableError,
  WorkflowRetryAfterError,
  WorkflowReplayError,
  MalformedDeliveryError,
  QueueRequestError,
} from './errors.js'
export { createQueueClient, triggerWorkflow, newRunId } from './client.js'
export type { QueueClient, QueueClientOptions, BatchMessage, BatchResult, TriggerOptions } from './client.js'
export { signRequest, verifyRequest, bodyHash, generateSigningKey, SignatureError } from './signature.js'
export type { SignatureClaims, SignOptions, VerifyOptions } from './signature.js'
export type { StepRecord, RawStep, StepType } from './steps.js'
export type { Environment } from './env.js'
export { createQueueService, defaultBackoff, QueueStore } from '../queue/index.js'
export type {
  QueueService,
  QueueServiceOptions,
  QueueEvent,
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
} from '../queue/index.js'
