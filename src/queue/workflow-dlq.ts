/**
 * The workflow side of the dead-letter list, as `@upstash/workflow`'s `client.dlq` calls it:
 * `POST /v2/workflows/dlq/resume` (deliver the failed step again; finished steps are kept),
 * `POST /v2/workflows/dlq/restart` (a new run with the same payload and settings, from the
 * first step), both by `dlqIds=…` or in bulk (every workflow dead letter, or those matching the
 * SDK's filters), `DELETE /v2/workflows/dlq` (bulk delete, same selection)
 * and `POST /v2/workflows/dlq/callback/:dlqId` (deliver a failed failure callback again).
 * `Upstash-Retries` and flow control (the SDK's `retries` / `flowControl` options) set the new
 * run's settings on a restart, and the resumed step's and the run's on a resume.
 */
import { randomBytes } from 'node:crypto'
import { jsonResponse, fetchHeaders, type HttpResponse } from '../adapters/http.js'
import { RETRIES_HEADER } from '../workflow/constants.js'
import { FLOW_CONTROL_KEY_HEADER, FLOW_CONTROL_VALUE_HEADER, parseFlowControl, type FlowControl } from './flow-control.js'
import type { Command } from '../reply.js'
import { dlqSelection } from './message-admin.js'
import type { ApiCall, Route } from './routes.js'
import { StoreError, type MessageRecord, type QueueStore, type RunRecord } from './store.js'

export interface WorkflowDlqDeps {
  readonly store: QueueStore
  readonly wake: () => void
}

const RUN_ID_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-'

function newRunId(): string {
  return `wfr_${[...randomBytes(21)].map((byte) => RUN_ID_ALPHABET[byte & 63]).join('')}`
}

/** The dead letter's workflow message and run; a 404 / 400 with the reason otherwise. */
async function deadWorkflowMessage(store: QueueStore, dlqId: string): Promise<{ message: MessageRecord; run: RunRecord }> {
  const message = await store.loadMessage(dlqId)
  if (!message || !(await store.inDlq(dlqId))) throw new StoreError(`dead letter ${dlqId} not found`, 404)
  if (message.kind !== 'workflow' || message.runId === undefined) throw new StoreError(`dead letter ${dlqId} is not a workflow step (replay it with POST /v2/dlq/retry)`, 400)
  const run = await store.loadRun(message.runId)
  if (!run) throw new StoreError(`workflow run ${message.runId} not found`, 404)
  return { message, run }
}

/** The flow control a resume or restart sets (the SDK's `flowControl` option), if any. */
function flowControlOf(headers: Headers): FlowControl | undefined {
  if (!headers.has(FLOW_CONTROL_KEY_HEADER) && !headers.has(FLOW_CONTROL_VALUE_HEADER)) return undefined
  return parseFlowControl(headers.get(FLOW_CONTROL_KEY_HEADER), headers.get(FLOW_CONTROL_VALUE_HEADER))
}

/** The retries a resume or restart sets (`Upstash-Retries`, the SDK's `retries` option), if any. */
function retriesOf(headers: Headers): number | undefined {
  const value = headers.get(RETRIES_HEADER)
  if (value === null) return undefined
  const retries = Number(value)
  if (!(Number.isInteger(retries) && retries >= 0 && retries <= 100)) throw new StoreError(`invalid ${RETRIES_HEADER} ${JSON.stringify(value)}: an integer from 0 to 100`, 400)
  return retries
}

/** What a resume or restart request sets anew (undefined: keep the run's own). */
interface NewSettings {
  readonly flowControl: FlowControl | undefined
  readonly retries: number | undefined
}

/** A run a resume or restart went on with, as the answer lists it. */
interface ResumedRun {
  readonly workflowRunId: string
  readonly workflowCreatedAt: number
}

export function workflowDlqRoutes({ store, wake }: WorkflowDlqDeps): Route[] {
  /**
   * A resume's new settings: the failed step's message and the run take the retries; the step
   * and the start message (whose flow control later steps inherit) take the flow control.
   */
  async function applyToRun(run: RunRecord, messageId: string, flowControl: FlowControl | undefined, retries: number | undefined): Promise<void> {
    const commands: Command[] = []
    if (retries !== undefined) commands.push(['HSET', store.messageKey(messageId), 'retries', String(retries)], ['HSET', store.runKey(run.id), 'retries', String(retries)])
    if (flowControl !== undefined) {
      for (const id of new Set([messageId, run.initMessageId])) commands.push(['HSET', store.messageKey(id), 'flowControl', JSON.stringify(flowControl)])
    }
    if (commands.length > 0) await store.multi(commands)
  }

  /**
   * A resume or restart: the request's new settings, then `act` on each selected dead workflow
   * step in turn; answers the runs `act` went on with, and wakes the worker when there are any.
   */
  async function forEachSelectedRun({ request, query }: ApiCall, act: (id: string, run: RunRecord, settings: NewSettings) => Promise<ResumedRun>): Promise<HttpResponse> {
    const headers = fetchHeaders(request.headers)
    const settings: NewSettings = { flowControl: flowControlOf(headers), retries: retriesOf(headers) }
    const { ids, more } = await dlqSelection(store, query, 'workflow')
    const workflowRuns: ResumedRun[] = []
    for (const id of ids) {
      const { run } = await deadWorkflowMessage(store, id)
      workflowRuns.push(await act(id, run, settings))
    }
    if (workflowRuns.length > 0) wake()
    return jsonResponse(200, { workflowRuns, ...(more ? { cursor: 'next' } : {}) })
  }

  const resume = (call: ApiCall): Promise<HttpResponse> =>
    forEachSelectedRun(call, async (id, run, { flowControl, retries }) => {
      await applyToRun(run, id, flowControl, retries)
      await store.replay(id)
      return { workflowRunId: run.id, workflowCreatedAt: run.createdAt }
    })

  const restart = (call: ApiCall): Promise<HttpResponse> =>
    forEachSelectedRun(call, async (id, run, { flowControl, retries }) => {
      const init = await store.loadMessage(run.initMessageId)
      if (!init) throw new StoreError(`the start message of workflow run ${run.id} is gone; it cannot be restarted`, 400)
      const runId = newRunId()
      const payload = Buffer.from(run.sourceBody, 'base64')
      const runRetries = retries ?? run.retries
      await store.createRun(
        { id: runId, url: run.url, retries: runRetries, failureUrl: run.failureUrl, failureHeaders: run.failureHeaders, forward: run.forward, label: run.label, payload },
        {
          kind: 'workflow',
          url: init.url,
          method: init.method,
          headers: init.headers,
          body: payload,
          retries: runRetries,
          dueAt: Date.now(),
          stepId: 0,
          stepName: 'init',
          stepType: 'Initial',
          expect: ['s:1', 'p:1'],
          retryDelay: init.retryDelay,
          flowControl: flowControl ?? init.flowControl,
        },
      )
      await store.deleteDlq(id)
      const created = await store.loadRun(runId)
      return { workflowRunId: runId, workflowCreatedAt: created?.createdAt ?? Date.now() }
    })

  /** The dead letter may be the failure callback itself or the failed step whose callback failed. */
  async function retryFailureCallback({ params }: ApiCall): Promise<HttpResponse> {
    const message = await store.loadMessage(params.dlqId)
    if (!message || !(await store.inDlq(params.dlqId))) throw new StoreError(`dead letter ${params.dlqId} not found`, 404)
    let callbackId = message.kind === 'failure' ? message.id : undefined
    const run = message.runId ? await store.loadRun(message.runId) : undefined
    if (callbackId === undefined) {
      const callback = run?.failureCallbackMessageId ? await store.loadMessage(run.failureCallbackMessageId) : undefined
      if (!callback) throw new StoreError(`dead letter ${params.dlqId} has no failure callback`, 400)
      if (callback.state !== 'failed' || !(await store.inDlq(callback.id))) throw new StoreError(`the failure callback of dead letter ${params.dlqId} did not fail (it is ${callback.state})`, 400)
      callbackId = callback.id
    }
    await store.replay(callbackId)
    wake()
    return jsonResponse(200, { workflowRunId: run?.id, workflowCreatedAt: run?.createdAt })
  }

  /** `client.dlq.delete(…)` of the workflow SDK: removes workflow dead letters from the list (their runs stay failed). */
  async function deleteDeadLetters({ query }: ApiCall): Promise<HttpResponse> {
    const { ids, more } = await dlqSelection(store, query, 'workflow')
    let deleted = 0
    for (const id of ids) if (await store.deleteDlq(id)) deleted++
    return jsonResponse(200, { deleted, ...(more ? { cursor: 'next' } : {}) })
  }

  return [
    { method: 'DELETE', path: 'workflows/dlq', run: deleteDeadLetters },
    { method: 'POST', path: 'workflows/dlq/resume', run: resume },
    { method: 'POST', path: 'workflows/dlq/restart', run: restart },
    { method: 'POST', path: 'workflows/dlq/callback/:dlqId', run: retryFailureCallback },
  ]
}
