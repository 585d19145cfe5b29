/**
 * Invoking one workflow from another (`context.invoke`, with `serveMany`). The parent publishes
 * the child's start message marked `Upstash-Workflow-Invoke: true`, whose body is an envelope
 * `{body, headers, workflowRunId, workflowRunCreatedAt, workflowUrl, step}`. The queue starts the
 * child with `body` as its payload and keeps the rest on the child run (`invoker`); when the
 * child ends (success, failure or cancel) the parent's invoke step is recorded with
 * `{body, isFailed, isCanceled}` and the parent resumes.
 */
import type { NewMessage, QueueStore } from './store.js'
import { StoreError } from './store.js'

/** The header marking a start message as an invocation. */
export const INVOKE_HEADER = 'Upstash-Workflow-Invoke'

/** The parent of an invoked run, and the step waiting for it. */
export interface Invoker {
  readonly runId: string
  readonly url: string
  readonly step: { readonly stepId: number; readonly stepName: string; readonly stepType: string; readonly concurrent: number }
}

/**
 * The child's payload and its invoker, when the start message is an invocation. Throws
 * {@link StoreError} (400) for an envelope the parent cannot be resumed from.
 */
export function unwrapInvoke(headers: Headers, body: Uint8Array): { payload: Uint8Array; invoker: Invoker } | undefined {
  if (headers.get(INVOKE_HEADER) !== 'true') return undefined
  let envelope: { body?: unknown; workflowRunId?: unknown; workflowUrl?: unknown; step?: { stepId?: unknown; targetStep?: unknown; stepName?: unknown; stepType?: unknown; concurrent?: unknown } }
  try {
    envelope = JSON.parse(Buffer.from(body).toString('utf8')) as typeof envelope
  } catch {
    throw new StoreError(`an invocation (${INVOKE_HEADER}: true) needs a JSON envelope {body, workflowRunId, workflowUrl, step}`, 400)
  }
  const step = envelope.step
  const stepId = Number(step?.stepId) || Number(step?.targetStep)
  if (typeof envelope.workflowRunId !== 'string' || typeof envelope.workflowUrl !== 'string' || !step || typeof step.stepName !== 'string' || !Number.isInteger(stepId) || stepId < 1) {
    throw new StoreError(`an invocation (${INVOKE_HEADER}: true) needs workflowRunId, workflowUrl and step {stepId, stepName} in its envelope`, 400)
  }
  const payload = typeof envelope.body === 'string' ? envelope.body : envelope.body === undefined ? '' : JSON.stringify(envelope.body)
  return {
    payload: Buffer.from(payload, 'utf8'),
    invoker: {
      runId: envelope.workflowRunId,
      url: envelope.workflowUrl,
      step: { stepId, stepName: step.stepName, stepType: typeof step.stepType === 'string' ? step.stepType : 'Invoke', concurrent: Number(step.concurrent) || 1 },
    },
  }
}

/** How an invoked run ended. */
export interface InvokeOutcome {
  /** The child's result (JSON text) or, when it failed, the error. */
  readonly body: string | undefined
  readonly isFailed: boolean
  readonly isCanceled: boolean
}

/** Records the parent's invoke step with the child's outcome; nothing when the run was not invoked. */
export async function resumeInvoker(store: QueueStore, childRunId: string, outcome: InvokeOutcome): Promise<boolean> {
  const child = await store.loadRun(childRunId)
  if (!child?.invoker) return false
  const invoker = JSON.parse(child.invoker) as Invoker
  const { step } = invoker
  const stepJson = JSON.stringify({
    stepId: step.stepId,
    stepName: step.stepName,
    stepType: step.stepType,
    concurrent: step.concurrent,
    out: JSON.stringify({ body: outcome.body, isFailed: outcome.isFailed, isCanceled: outcome.isCanceled }),
  })
  const message: NewMessage = {
    kind: 'workflow',
    url: invoker.url,
    method: 'POST',
    headers: { 'content-type': 'application/json', 'upstash-workflow-sdk-version': '1' },
    body: Buffer.from(stepJson, 'utf8'),
    retries: -1,
    dueAt: Date.now(),
    stepId: step.stepId,
    stepName: step.stepName,
    stepType: step.stepType,
    expect: step.concurrent === 1 ? [`s:${step.stepId + 1}`, `p:${step.stepId + 1}`] : [],
  }
  try {
    await store.appendStep(invoker.runId, `s:${step.stepId}`, stepJson, message)
  } catch (cause) {
    // the parent ended (or is gone) meanwhile: nobody waits for the outcome
    if (!(cause instanceof StoreError)) throw cause
    return false
  }
  return true
}
