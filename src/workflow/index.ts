/**
 * Durable step workflows, the application side: `serve()` turns a workflow body into an
 * endpoint that speaks the QStash-compatible queue protocol, so it runs on the hosted queue and
 * on restis's local one (`restis queue`, or `createQueueService` from `restis/queue`). This entry does
 * not load the queue service or the in-memory engine, and imports `node:http` only lazily (for
 * the queue client on Node), so it stays small for serverless and edge runtimes.
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
export { serveMany, serveManyNode, createWorkflow } from './serve-many.js'
export type { Workflow } from './serve-many.js'
export { WorkflowContext } from './context.js'
export type { FailureContext, CallOptions, WaitForEventOptions, NotifyStepResult, InvokeOptions } from './context.js'
export type { CallResponse, WaitEventResult, InvokeResult } from './lazy-steps.js'
export {
  WorkflowError,
  WorkflowNonRetryableError,
  WorkflowRetryAfterError,
  WorkflowReplayError,
  MalformedDeliveryError,
  QueueRequestError,
} from './errors.js'
export { createQueueClient, triggerWorkflow } from './client.js'
export type {
  QueueClient,
  QueueClientOptions,
  BatchMessage,
  BatchResult,
  TriggerOptions,
  WorkflowClient,
  WorkflowTriggerOptions,
  WaitRequest,
  Waiter,
  NotifyResult,
  WorkflowRunSummary,
  WorkflowRunStep,
  WorkflowRunPage,
} from './client.js'
export { signRequest, verifyRequest, generateSigningKey, SignatureError } from './signature.js'
export type { SignatureClaims, SignOptions, VerifyOptions } from './signature.js'
export type { RawStep } from './steps.js'
export type { Environment } from './env.js'
