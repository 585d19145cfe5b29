/**
 * Messages and dead letters as the SDK's `client.messages` and `client.dlq` reach them:
 * `GET /v2/messages/:id`, `DELETE /v2/messages/:id` (cancel a message not yet delivered, e.g. a
 * delayed one), `DELETE /v2/messages?messageIds=…` or with `url=` / no filter (bulk cancel),
 * `DELETE /v2/dlq?dlqIds=…` and `POST /v2/dlq/retry?…` (bulk delete and retry). Filters other
 * than `url` are refused with the list of supported ones rather than ignored.
 */
import { jsonResponse, type HttpResponse } from '../adapters/http.js'
import type { ApiCall, Route } from './routes.js'
import { StoreError, text, type AttemptLog, type MessageRecord, type QueueStore } from './store.js'
import type { Reply } from '../reply.js'
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

/** The query's filter; refuses filters the local queue does not know. */
function filterOf(query: URLSearchParams, idName: string): { ids?: string[]; urls?: string[]; count: number } {
  const allowed = new Set(['_token', 'count', 'cursor', idName, 'url'])
  for (const name of query.keys()) {
    if (!allowed.has(name)) throw new StoreError(`filter ${JSON.stringify(name)} is not supported by the restis queue service (supported: ${idName}, url, or none for all)`, 400)
  }
  const ids = query.getAll(idName)
  const urls = query.getAll('url')
  const count = Math.min(1000, Math.max(1, Number(query.get('count') ?? DEFAULT_BULK_COUNT) || DEFAULT_BULK_COUNT))
  return { ids: ids.length > 0 ? ids : undefined, urls: urls.length > 0 ? urls : undefined, count }
}

function texts(reply: Reply): string[] {
  return (reply as Reply[]).map((item) => text(item)!)
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
  await store.multi([
    ['ZREM', store.dueKey, id],
    ['HSET', store.messageKey(id), 'state', 'canceled', 'note', 'canceled through the API'],
    ['RPUSH', store.logKey(id), JSON.stringify(log)],
    ['DEL', store.messageLockKey(id)],
  ])
  return 'canceled'
}

/**
 * The dead letters a bulk action covers (`dlqIds=…`, else every one, or those of `url=…`; with
 * `kind`, only messages of that kind), at most `count`, and whether more remain.
 */
export async function dlqSelection(store: QueueStore, query: URLSearchParams, kind?: MessageRecord['kind']): Promise<{ ids: string[]; more: boolean }> {
  const { ids, urls, count } = filterOf(query, 'dlqIds')
  if (ids) return { ids, more: false }
  const all = texts(await store.call(['ZREVRANGE', store.dlqKey, '0', '-1']))
  const matching: string[] = []
  for (const id of all) {
    if (urls || kind) {
      const message = await store.loadMessage(id)
      if (urls && !urls.includes(message?.url ?? '')) continue
      if (kind && message?.kind !== kind) continue
    }
    matching.push(id)
    if (matching.length > count) break
  }
  return { ids: matching.slice(0, count), more: matching.length > count }
}

/** Filters of `GET /v2/dlq` (`client.dlq.listMessages`, the workflow client's `dlq.list`). */
export interface DlqListFilter {
  readonly workflowOnly: boolean
  readonly urls?: readonly string[]
  readonly runIds?: readonly string[]
}

/**
 * The list's filter, or undefined when there is none: `source=workflow`, `url`, `workflowRunId`
 * are honoured; any other filter is refused rather than ignored.
 */
export function dlqListFilter(query: URLSearchParams): DlqListFilter | undefined {
  const paging = new Set(['_token', 'offset', 'count', 'cursor'])
  const known = new Set(['source', 'url', 'workflowRunId'])
  let any = false
  for (const name of query.keys()) {
    if (paging.has(name)) continue
    if (!known.has(name)) throw new StoreError(`filter ${JSON.stringify(name)} is not supported by the restis queue service (supported: url, workflowRunId, source=workflow)`, 400)
    any = true
  }
  if (!any) return undefined
  const source = query.get('source')
  if (source !== null && source !== 'workflow') throw new StoreError(`filter source=${JSON.stringify(source)} is not supported by the restis queue service (supported: source=workflow)`, 400)
  const urls = query.getAll('url')
  const runIds = query.getAll('workflowRunId')
  return { workflowOnly: source === 'workflow', urls: urls.length > 0 ? urls : undefined, runIds: runIds.length > 0 ? runIds : undefined }
}

/** Dead-letter ids matching the filter, newest first. */
export async function filteredDlqIds(store: QueueStore, filter: DlqListFilter): Promise<string[]> {
  const ids = texts(await store.call(['ZREVRANGE', store.dlqKey, '0', '-1']))
  const messages = await store.loadMessages(ids)
  return messages
    .filter((message) => (!filter.workflowOnly || message.runId !== undefined) && (!filter.urls || filter.urls.includes(message.url)) && (!filter.runIds || (message.runId !== undefined && filter.runIds.includes(message.runId))))
    .map((message) => message.id)
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

  async function cancelMessages({ query }: ApiCall): Promise<HttpResponse> {
    const { ids, urls } = filterOf(query, 'messageIds')
    const candidates = ids ?? texts(await store.call(['ZRANGE', store.dueKey, '0', '-1']))
    let cancelled = 0
    for (const id of candidates) {
      if (urls) {
        const message = await store.loadMessage(id)
        if (!message || !urls.includes(message.url)) continue
      }
      if (!ids && (await store.loadMessage(id))?.kind === 'workflow') continue // bulk cancel leaves runs to the run API
      if ((await cancelMessage(store, id)) === 'canceled') cancelled++
    }
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
