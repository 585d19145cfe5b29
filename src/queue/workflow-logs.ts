/**
 * The workflow run log (`GET /v2/workflows/events?groupBy=workflowRunId`, `@upstash/workflow`'s
 * `client.logs()`): runs, newest first, each with its steps in the shape the SDK's
 * `WorkflowRunLog` declares: the start and every recorded step (`sequential` groups, results
 * of `Promise.all` steps as `parallel` groups, in the order they were recorded), then the
 * delivery still under way or that failed (`next`, with the errors of its attempts), the
 * failure function's message, the DLQ id of a failed run, its invoker and labels.
 *
 * Built from the run's state in the executor (its records, messages and attempt logs), so every
 * process sharing the state answers the same. The cursor is `<createdAt>:<runId>` of the last
 * run returned.
 */
import { jsonResponse, type HttpResponse } from '../adapters/http.js'
import { labelsOf, parseFilter, type Filter, type FilterName } from './filters.js'
import type { Invoker } from './invoke.js'
import { callbackState, loadOrigins } from './message-subjects.js'
import type { ApiCall, Route } from './routes.js'
import { StoreError, text, type AttemptLog, type MessageRecord, type QueueStore, type RunRecord } from './store.js'
import type { Reply } from '../reply.js'

const LOG_FILTERS: readonly FilterName[] = ['workflowRunId', 'workflowUrl', 'workflowCreatedAt', 'state', 'fromDate', 'toDate', 'label', 'callerIp', 'flowControlKey', 'host', 'path', 'messageId']
const RUN_STATES = new Set(['RUN_STARTED', 'RUN_SUCCESS', 'RUN_FAILED', 'RUN_CANCELED'])
const DEFAULT_COUNT = 10
/** Fields of a recorded step that the log passes on as they are (`context.call`, sleep, wait, invoke). */
const STEP_EXTRAS = [
  'sleepFor', 'sleepUntil', 'callUrl', 'callMethod', 'callHeaders', 'callBody', 'callResponseStatus', 'callResponseBody', 'callResponseHeaders',
  'invokedWorkflowRunId', 'invokedWorkflowUrl', 'invokedWorkflowCreatedAt', 'invokedWorkflowRunBody', 'invokedWorkflowRunHeaders',
  'waitEventId', 'waitTimeoutDuration', 'waitTimeoutDeadline', 'waitTimeout',
] as const

type Json = Record<string, unknown>

function bad(message: string): never {
  throw new StoreError(message, 400)
}

function headerLists(headers: Record<string, string>): Record<string, string[]> {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, [value]]))
}

/** A step's `out` once decoded: the SDK records it as JSON text. */
function decodeOut(out: unknown): unknown {
  if (typeof out !== 'string') return out
  try {
    return JSON.parse(out) as unknown
  } catch {
    return out
  }
}

/** One recorded step (`stepJson`, or the start payload for record 0) as a `StepLog`. */
function stepLog(step: Json, message: MessageRecord | undefined, messageId: string, callType: string): Json {
  const extras = Object.fromEntries(STEP_EXTRAS.filter((name) => step[name] !== undefined).map((name) => [name, step[name]]))
  return {
    stepId: step.stepId,
    stepName: step.stepName,
    stepType: step.stepType,
    callType: step.callType ?? callType,
    messageId,
    out: decodeOut(step.out),
    retries: message?.retries ?? 0,
    ...(message?.retryDelay === undefined ? {} : { retryDelay: message.retryDelay }),
    concurrent: step.concurrent ?? 1,
    state: 'STEP_SUCCESS',
    createdAt: message?.createdAt ?? 0,
    headers: headerLists(message?.headers ?? {}),
    ...extras,
  }
}

/** The recorded steps in groups: one per sequential step, one per set of parallel results (plan steps left out). */
function stepGroups(records: readonly Json[], messages: ReadonlyMap<string, MessageRecord>, payload: string): Json[] {
  const groups: Json[] = []
  let parallel: Json[] | undefined
  for (const [seq, record] of records.entries()) {
    const messageId = String(record.messageId)
    const message = messages.get(messageId)
    const callType = String(record.callType ?? 'step')
    const step: Json = seq === 0 ? { stepId: 0, stepName: 'init', stepType: 'Initial', out: payload, concurrent: 1 } : (JSON.parse(Buffer.from(String(record.body), 'base64').toString('utf8')) as Json)
    if (seq > 0 && step.stepId === 0 && step.targetStep !== undefined) continue // a plan step: its result follows
    const log = stepLog(step, message, messageId, callType)
    const concurrent = Number(step.concurrent ?? 1)
    if (concurrent <= 1) {
      parallel = undefined
      groups.push({ type: 'sequential', steps: [log] })
      continue
    }
    if (!parallel || parallel.length >= concurrent) {
      parallel = []
      groups.push({ type: 'parallel', steps: parallel })
    }
    parallel.push(log)
    // results arrive in the order they finished; the log lists them by step id
    parallel.sort((x, y) => Number(x.stepId) - Number(y.stepId))
  }
  return groups
}

function stepErrors(log: readonly AttemptLog[]): Json[] {
  return log
    .filter((entry) => entry.outcome === 'retry' || entry.outcome === 'failed')
    .map((entry) => ({ error: entry.error ?? '', body: entry.responseBody ?? '', headers: headerLists(entry.responseHeaders ?? {}), status: entry.status ?? 0, time: entry.at }))
}

const NEXT_STATES: Record<string, string> = { pending: 'STEP_PROGRESS', delivering: 'STEP_PROGRESS', failed: 'STEP_FAILED', canceled: 'STEP_CANCELED' }

/** The workflow delivery not done yet (under way, waiting for a retry, failed or canceled), as a `next` group. */
function nextGroup(message: MessageRecord, log: readonly AttemptLog[]): Json {
  const state = message.state === 'pending' && message.retried > 0 ? 'STEP_RETRY' : NEXT_STATES[message.state]
  const stepName = message.lastResponseHeaders?.['upstash-error-step-name']?.[0]
  const errors = stepErrors(log)
  return {
    type: 'next',
    steps: [{ messageId: message.id, ...(stepName ? { stepName } : {}), state, retries: Math.max(0, message.retried - 1), ...(message.retryDelay === undefined ? {} : { retryDelay: message.retryDelay }), ...(errors.length > 0 ? { errors } : {}) }],
  }
}

export class WorkflowLogs {
  constructor(private readonly store: QueueStore) {}

  /** The run's log entry. */
  private async runLog(run: RunRecord): Promise<Json> {
    const { store } = this
    const records = ((await store.call(['LRANGE', store.recordsKey(run.id), '0', '-1'])) as Reply[]).map((record) => JSON.parse(text(record)!) as Json)
    const messages = await store.loadMessages(await store.runMessageIds(run.id))
    const byId = new Map(messages.map((message) => [message.id, message]))
    const payload = Buffer.from(run.sourceBody, 'base64').toString('utf8')
    const steps = stepGroups(records, byId, payload)
    const failed = run.failedMessageId === undefined ? undefined : byId.get(run.failedMessageId)
    const next = run.state === 'RUN_STARTED' ? messages.filter((message) => message.kind === 'workflow' && (message.state === 'pending' || message.state === 'delivering')).pop() : failed
    if (next) steps.push(nextGroup(next, await store.attemptLog(next.id)))
    const labels = labelsOf(run.label)
    const invoker = run.invoker === undefined ? undefined : (JSON.parse(run.invoker) as Invoker)
    const invokerRun = invoker === undefined ? undefined : await store.loadRun(invoker.runId)
    return {
      workflowRunId: run.id,
      workflowUrl: run.url,
      workflowState: run.state,
      workflowRunCreatedAt: run.createdAt,
      ...(run.finishedAt === undefined ? {} : { workflowRunCompletedAt: run.finishedAt }),
      ...(run.result === undefined ? {} : { workflowRunResponse: run.result }),
      steps,
      ...(invoker === undefined ? {} : { invoker: { workflowRunId: invoker.runId, workflowUrl: invoker.url, workflowRunCreatedAt: invokerRun?.createdAt ?? 0 } }),
      ...(run.failedMessageId !== undefined && (await store.inDlq(run.failedMessageId)) ? { dlqId: run.failedMessageId } : {}),
      ...(labels === undefined ? {} : { label: labels[0], labels }),
      ...(await this.failureFunction(run, failed)),
    }
  }

  /** `failureFunction` of a failed run whose failure callback was scheduled. */
  private async failureFunction(run: RunRecord, failed: MessageRecord | undefined): Promise<Json> {
    const callback = run.failureCallbackMessageId === undefined ? undefined : await this.store.loadMessage(run.failureCallbackMessageId)
    if (!callback) return {}
    const errors = stepErrors(await this.store.attemptLog(callback.id))
    return {
      failureFunction: {
        messageId: callback.id,
        url: callback.url,
        state: callbackState(callback.state),
        failHeaders: failed?.lastResponseHeaders ?? {},
        failStatus: failed?.lastStatus ?? 0,
        failResponse: failed?.lastResponse === undefined ? (failed?.lastError ?? '') : Buffer.from(failed.lastResponse, 'base64').toString('utf8'),
        dlqId: run.failedMessageId ?? '',
        ...(errors.length > 0 ? { errors } : {}),
        ...(callback.state === 'pending' ? { nextDeliveryTime: callback.dueAt } : {}),
      },
    }
  }

  /** Whether the run passes the filter (the start message gives its publisher's IP and flow-control key). */
  private async accepts(run: RunRecord, filter: Filter, messageId: string | null): Promise<boolean> {
    const [origin] = await loadOrigins(this.store, [run.initMessageId])
    const init = await this.store.loadMessage(run.initMessageId)
    if (messageId !== null && !(await this.store.runMessageIds(run.id)).includes(messageId)) return false
    return filter.accepts({
      time: run.createdAt,
      url: run.url,
      workflowUrl: run.url,
      workflowRunId: run.id,
      workflowCreatedAt: run.createdAt,
      state: run.state,
      labels: labelsOf(run.label),
      callerIp: origin?.callerIp,
      flowControlKey: init?.flowControl?.key,
    })
  }

  /** `GET /v2/workflows/events`: `{runs, cursor?}`. */
  private async list({ query }: ApiCall): Promise<HttpResponse> {
    const groupBy = query.get('groupBy')
    if (groupBy !== null && groupBy !== 'workflowRunId') bad(`invalid groupBy ${JSON.stringify(groupBy)}: the run log groups by workflowRunId`)
    const state = query.get('state')
    if (state !== null && !RUN_STATES.has(state)) bad(`invalid state ${JSON.stringify(state)}: RUN_STARTED, RUN_SUCCESS, RUN_FAILED or RUN_CANCELED`)
    const countText = query.get('count')
    const count = countText === null ? DEFAULT_COUNT : Number(countText)
    if (!Number.isInteger(count) || count < 1 || count > 1000) bad(`invalid count ${JSON.stringify(countText)}: an integer from 1 to 1000`)
    const filter = parseFilter(query, LOG_FILTERS, ['groupBy', 'cursor', 'count', 'messageId'], 'the workflow run log (GET /v2/workflows/events)')
    const runs: RunRecord[] = []
    let more = false
    for await (const run of this.runsAfter(query.get('cursor'))) {
      if (!(await this.accepts(run, filter, query.get('messageId')))) continue
      if (runs.length === count) {
        more = true
        break
      }
      runs.push(run)
    }
    const last = runs[runs.length - 1]
    const logs = await Promise.all(runs.map((run) => this.runLog(run)))
    return jsonResponse(200, { runs: logs, ...(more && last ? { cursor: `${last.createdAt}:${last.id}` } : {}) })
  }

  /** Runs newest first, after the cursor's run. */
  private async *runsAfter(cursor: string | null): AsyncGenerator<RunRecord> {
    let max = '+inf'
    let skipThrough: string | undefined
    if (cursor !== null && cursor !== '') {
      const match = /^(\d+):(.+)$/.exec(cursor)
      if (!match) bad(`invalid cursor ${JSON.stringify(cursor)}: pass back the cursor of the previous page`)
      max = match[1]
      skipThrough = match[2]
    }
    for (let offset = 0; ; offset += 100) {
      const ids = ((await this.store.call(['ZREVRANGEBYSCORE', this.store.runsKey, max, '-inf', 'LIMIT', String(offset), '100'])) as Reply[]).map((id) => text(id)!)
      for (const run of await this.store.loadRuns(ids)) {
        if (skipThrough !== undefined) {
          if (run.createdAt === Number(max) && run.id !== skipThrough) continue
          if (run.id === skipThrough) {
            skipThrough = undefined
            continue
          }
          skipThrough = undefined
        }
        yield run
      }
      if (ids.length < 100) return
    }
  }

  routes(): Route[] {
    return [{ method: 'GET', path: 'workflows/events', run: (call) => this.list(call) }]
  }
}
