/**
 * Messages and dead letters as the SDK's `client.messages` and `client.dlq` reach them:
 * `GET /v2/messages/:id`, `DELETE /v2/messages/:id` (cancel a message not yet delivered, e.g. a
 * delayed one), `DELETE /v2/messages?messageIds=…` or with filters / none (bulk cancel),
 * `DELETE /v2/dlq?dlqIds=…` and `POST /v2/dlq/retry?…` (bulk delete and retry), with the SDKs'
 * filters (filters.ts); a filter an endpoint does not take is refused, naming it.
 */
import { jsonResponse, type HttpResponse } from '../adapters/http.js'
import type { ApiCall, Route } from './routes.js'
import { parseFilter, type FilterName, type FilterSubject } from './filters.js'
import { dlqEntries, loadOrigins, subjectsOf } from './message-subjects.js'
import { StoreError, text, type AttemptLog, type MessageRecord, type QueueStore } from './store.js'
import type { Command, Reply } from '../reply.js'
import { REDACTED, redactBody, redactHeaderLists } from './redact.js'

export interface MessageAdminDeps {
  readonly store: QueueStore
  /** Look for due work (after a retry). */
  readonly wake: () => void
}

const DEFAULT_BULK_COUNT = 100
const decoder = new TextDecoder()

function headerLists(headers: Record<string, string>): Record<string, string[]> {
  const out: Record<string, string[]> = {}
  for (const [name, value] of Object.entries(headers)) out[name] = [value]
  return out
}

/** A message in the hosted queue's shape (`client.messages.get`). */
export function messageView(message: MessageRecord): Record<string, unknown> {
  const flow = message.flowControl
  const body = redactBody(decoder.decode(message.body), message.redact)
  return {
    messageId: message.id,
    url: message.url,
    method: message.method,
    header: redactHeaderLists(headerLists(message.headers), message.redact, [REDACTED]),
    body,
    bodyBase64: message.redact?.body ? Buffer.from(body).toString('base64') : Buffer.from(message.body).toString('base64'),
    maxRetries: message.retries,
    notBefore: message.dueAt,
    createdAt: message.createdAt,
    state: message.state,
    ...(message.retryDelay === undefined ? {} : { retryDelayExpression: message.retryDelay }),
    ...(message.callbackUrl === undefined ? {} : { callback: message.callbackUrl }),
    ...(message.failureUrl === undefined ? {} : { failureCallback: message.failureUrl }),
    ...(flow === undefined ? {} : { flowControlKey: flow.key, parallelism: flow.parallelism || undefined, rate: flow.rate || undefined, period: flow.periodMs / 1000 }),
    ...(message.runId === undefined ? {} : { workflowRunId: message.runId }),
  }
}

/** Filters of the bulk cancel (`client.messages.cancel({filter})`, the SDK's `MessageCancelFilterFields`). */
const CANCEL_FILTERS: readonly FilterName[] = ['fromDate', 'toDate', 'callerIp', 'label', 'flowControlKey', 'url', 'topicName', 'scheduleId', 'queueName', 'host', 'path']
/** Filters of the dead-letter list and its bulk actions (`DLQFilterFields` and the workflow SDK's `WorkflowFilterFields`). */
const DLQ_FILTERS: readonly FilterName[] = ['fromDate', 'toDate', 'callerIp', 'label', 'flowControlKey', 'messageId', 'url', 'topicName', 'scheduleId', 'queueName', 'responseStatus', 'workflowUrl', 'workflowRunId', 'workflowCreatedAt', 'failureFunctionState']

function countOf(query: URLSearchParams): number {
  const value = query.get('count')
  if (value === null) return DEFAULT_BULK_COUNT
  const count = Number(value)
  if (!Number.isInteger(count) || count < 1) throw new StoreError(`invalid count ${JSON.stringify(value)}: a positive integer`, 400)
  return Math.min(1000, count)
}

function texts(reply: Reply): string[] {
  return (reply as Reply[]).map((item) => text(item)!)
}

/** The waiting list of a queue (see queues.ts for the layout). */
function queueWaitingKey(store: QueueStore, queueName: string): string {
  return `${store.prefix}queue:${queueName}:waiting`
}

/** Messages not yet delivered: those on the due list and those waiting in a queue for their turn. */
async function pendingIds(store: QueueStore): Promise<string[]> {
  const due = texts(await store.call(['ZRANGE', store.dueKey, '0', '-1']))
  const queues = texts(await store.call(['ZRANGE', `${store.prefix}queues`, '0', '-1']))
  const waiting = await Promise.all(queues.map(async (name) => texts(await store.call(['LRANGE', queueWaitingKey(store, name), '0', '-1']))))
  return [...new Set([...due, ...waiting.flat()])]
}

/**
 * Cancels a message not yet delivered. It takes the delivery lock first, so a message a process
 * is delivering right now is not cancelled under it (that is a 409).
 */
async function cancelMessage(store: QueueStore, id: string): Promise<'canceled' | 'missing' | 'busy'> {
  const message = await store.loadMessage(id)
  if (!message || message.state !== 'pending') return 'missing'
  if (message.kind === 'workflow') throw new StoreError(`message ${id} is a step of workflow run ${message.runId}: cancel the run (DELETE /v2/workflows/runs/${message.runId})`, 400)
  const lock = await store.call(['SET', store.messageLockKey(id), 'cancel', 'NX', 'PX', '10000'])
  if (lock === null) return 'busy'
  const log: AttemptLog = { attempt: message.retried, at: Date.now(), outcome: 'canceled' }
  const [origin] = await loadOrigins(store, [id])
  await store.multi([
    ['ZREM', store.dueKey, id],
    // a queue's message still waiting for its turn leaves the queue too
    ...(origin.queueName === undefined ? [] : [['LREM', queueWaitingKey(store, origin.queueName), '0', id] as Command]),
    ['HSET', store.messageKey(id), 'state', 'canceled', 'note', 'canceled through the API'],
    ['RPUSH', store.logKey(id), JSON.stringify(log)],
    ['DEL', store.messageLockKey(id)],
  ])
  return 'canceled'
}

/**
 * The dead letters a bulk action covers (`dlqIds=…`, else every one matching the filters; with
 * `kind`, only messages of that kind), at most `count`, and whether more remain.
 */
export async function dlqSelection(store: QueueStore, query: URLSearchParams, kind?: MessageRecord['kind']): Promise<{ ids: string[]; more: boolean }> {
  const filter = parseFilter(query, DLQ_FILTERS, ['count', 'cursor', 'dlqIds'], 'dead-letter bulk actions')
  const given = query.getAll('dlqIds')
  if (given.length > 0) {
    if (filter.any) throw new StoreError('dlqIds and filters cannot be combined: name the dead letters, or filter them', 400)
    return { ids: given, more: false }
  }
  const count = countOf(query)
  const { ids, times } = await dlqEntries(store)
  const matching: string[] = []
  for (const { message, subject } of await subjectsOf(store, ids, times)) {
    if (kind && message.kind !== kind) continue
    if (!filter.accepts(subject)) continue
    matching.push(message.id)
    if (matching.length > count) break
  }
  return { ids: matching.slice(0, count), more: matching.length > count }
}

/**
 * `GET /v2/dlq`'s filter (`client.dlq.listMessages`, the workflow client's `dlq.list`), or
 * undefined when there is none: `source=workflow` keeps workflow steps, `dlqIds` names dead
 * letters, and every filter of the DLQ (see DLQ_FILTERS) is honoured.
 */
export function dlqListFilter(query: URLSearchParams): DlqListFilter | undefined {
  const filter = parseFilter(query, DLQ_FILTERS, ['offset', 'count', 'cursor', 'source', 'dlqIds'], 'the dead-letter list (GET /v2/dlq)')
  const source = query.get('source')
  if (source !== null && source !== 'workflow') throw new StoreError(`filter source=${JSON.stringify(source)} is not supported by the restis queue service (supported: source=workflow)`, 400)
  const ids = query.getAll('dlqIds')
  if (!filter.any && source === null && ids.length === 0) return undefined
  return { workflowOnly: source === 'workflow', ids: ids.length > 0 ? ids : undefined, accepts: filter.accepts }
}

/** Filters of `GET /v2/dlq`. */
export interface DlqListFilter {
  readonly workflowOnly: boolean
  readonly ids?: readonly string[]
  readonly accepts: (subject: FilterSubject) => boolean
}

/** Dead-letter ids matching the filter, newest first. */
export async function filteredDlqIds(store: QueueStore, filter: DlqListFilter): Promise<string[]> {
  const { ids, times } = await dlqEntries(store)
  const wanted = filter.ids === undefined ? ids : ids.filter((id) => filter.ids!.includes(id))
  return (await subjectsOf(store, wanted, times))
    .filter(({ message, subject }) => (!filter.workflowOnly || message.runId !== undefined) && filter.accepts(subject))
    .map(({ message }) => message.id)
}

export function messageAdminRoutes({ store, wake }: MessageAdminDeps): Route[] {
  async function getMessage({ params }: ApiCall): Promise<HttpResponse> {
    const message = await store.loadMessage(params.id)
    return message ? jsonResponse(200, messageView(message)) : jsonResponse(404, { error: `message ${params.id} not found` })
  }

  async function deleteMessage({ params }: ApiCall): Promise<HttpResponse> {
    const outcome = await cancelMessage(store, params.id)
    if (outcome === 'missing') return jsonResponse(404, { error: `message ${params.id} not found or no longer pending` })
    if (outcome === 'busy') return jsonResponse(409, { error: `message ${params.id} is being delivered right now` })
    return jsonResponse(200, { cancelled: 1 })
  }

  /** Every matching pending message in one call (the SDK's `count` is ignored by the hosted queue too: a cancel is not paged). */
  async function cancelMessages({ query }: ApiCall): Promise<HttpResponse> {
    const filter = parseFilter(query, CANCEL_FILTERS, ['count', 'cursor', 'messageIds'], 'the bulk message cancel (DELETE /v2/messages)')
    const ids = query.getAll('messageIds')
    if (ids.length > 0 && filter.any) throw new StoreError('messageIds and filters cannot be combined: name the messages, or filter them', 400)
    countOf(query)
    let candidates = ids
    if (ids.length === 0) {
      const pending = await pendingIds(store)
      // bulk cancel leaves workflow steps to the run API
      candidates = (await subjectsOf(store, pending)).filter(({ message, subject }) => message.kind !== 'workflow' && filter.accepts(subject)).map(({ message }) => message.id)
    }
    let cancelled = 0
    for (const id of candidates) if ((await cancelMessage(store, id)) === 'canceled') cancelled++
    return jsonResponse(200, { cancelled })
  }

  async function deleteDeadLetters({ query }: ApiCall): Promise<HttpResponse> {
    const { ids, more } = await dlqSelection(store, query)
    let deleted = 0
    for (const id of ids) if (await store.deleteDlq(id)) deleted++
    // a processed dead letter leaves the list, so the next page starts at the front again
    return jsonResponse(200, { deleted, ...(more ? { cursor: 'next' } : {}) })
  }

  async function retryDeadLetters({ query }: ApiCall): Promise<HttpResponse> {
    const { ids, more } = await dlqSelection(store, query)
    const responses: { messageId: string }[] = []
    for (const id of ids) {
      const message = await store.replay(id)
      responses.push({ messageId: message.id })
    }
    if (responses.length > 0) wake()
    return jsonResponse(200, { responses, ...(more ? { cursor: 'next' } : {}) })
  }

  return [
    { method: 'GET', path: 'messages/:id', run: getMessage },
    { method: 'DELETE', path: 'messages/:id', run: deleteMessage },
    { method: 'DELETE', path: 'messages', run: cancelMessages },
    { method: 'DELETE', path: 'dlq', run: deleteDeadLetters },
    { method: 'POST', path: 'dlq/retry', run: retryDeadLetters },
  ]
}
