/**
 * Waiting for events (`context.waitForEvent`) and notifying them (`context.notify`,
 * `client.notify`, `client.getWaiters`). A waiter is kept in the engine, in the hash
 * `wait:<eventId>` (field `<runId>:<stepId>`), with a timeout message (kind `wait`) due at its
 * deadline. Whoever removes the field first (HDEL answers 1 to one caller only, across
 * processes) resumes the run: a notification records the wait step with the event data, the
 * timeout records it with `waitTimeout: true`.
 */
import { jsonResponse, type HttpResponse } from '../adapters/http.js'
import { RUN_ID_HEADER } from '../workflow/constants.js'
import { parseDelay } from './messages.js'
import type { ApiCall, Route } from './routes.js'
import type { Reply } from '../reply.js'
import { StoreError, type MessageRecord, type NewMessage, type QueueStore } from './store.js'

/** A waiter, in the hosted queue's shape (`client.getWaiters`, the notify answer). */
interface StoredWaiter {
  readonly runId: string
  readonly url: string
  readonly deadline: number
  readonly headers: Record<string, string[]>
  readonly timeoutUrl?: string
  readonly timeoutHeaders?: Record<string, string[]>
  readonly step: WaitStep
  readonly timeoutMessageId: string
}

interface WaitStep {
  readonly stepId: number
  readonly stepName: string
  readonly stepType: string
  readonly concurrent: number
  readonly targetStep?: number
}

const decoder = new TextDecoder()

const waitKey = (store: QueueStore, eventId: string): string => `${store.prefix}wait:${eventId}`

function publicWaiter(waiter: StoredWaiter): Record<string, unknown> {
  return { url: waiter.url, deadline: Math.floor(waiter.deadline / 1000), headers: waiter.headers, timeoutUrl: waiter.timeoutUrl, timeoutHeaders: waiter.timeoutHeaders }
}

function parseWaitRequest(body: Uint8Array | undefined): { url: string; timeout: string; timeoutUrl?: string; timeoutHeaders?: Record<string, string[]>; step: WaitStep } {
  let parsed: unknown
  try {
    parsed = JSON.parse(decoder.decode(body ?? new Uint8Array(0)))
  } catch {
    throw new StoreError('the wait body must be JSON {url, timeout, step, timeoutUrl?, timeoutHeaders?}', 422)
  }
  const request = parsed as { url?: unknown; timeout?: unknown; step?: Partial<WaitStep>; timeoutUrl?: string; timeoutHeaders?: Record<string, string[]> }
  const step = request.step
  if (typeof request.url !== 'string' || typeof request.timeout !== 'string' || typeof step !== 'object' || step === null || typeof step.stepName !== 'string') {
    throw new StoreError('the wait body needs url, timeout (e.g. "7d") and step {stepId, stepName, stepType, concurrent}', 422)
  }
  const stepId = Number(step.stepId) || Number(step.targetStep)
  if (!Number.isInteger(stepId) || stepId < 1) throw new StoreError('the wait step needs a stepId (or a targetStep) of 1 or more', 422)
  return {
    url: request.url,
    timeout: request.timeout,
    timeoutUrl: request.timeoutUrl,
    timeoutHeaders: request.timeoutHeaders,
    step: { stepId, stepName: step.stepName, stepType: step.stepType ?? 'Wait', concurrent: Number(step.concurrent) || 1 },
  }
}

/** The delivery that resumes the run with the wait step's result. */
function resumeMessage(waiter: StoredWaiter, stepJson: string): NewMessage {
  return {
    kind: 'workflow',
    url: waiter.url,
    method: 'POST',
    // a step delivery: the SDK tells it from a start by the protocol version header
    headers: { 'content-type': 'application/json', 'upstash-workflow-sdk-version': '1' },
    body: Buffer.from(stepJson, 'utf8'),
    retries: -1,
    dueAt: Date.now(),
    stepId: waiter.step.stepId,
    stepName: waiter.step.stepName,
    stepType: waiter.step.stepType,
    expect: waiter.step.concurrent === 1 ? [`s:${waiter.step.stepId + 1}`, `p:${waiter.step.stepId + 1}`] : [],
  }
}

/** Records the wait step (notified with `eventData`, or timed out) and schedules the delivery. */
async function resume(store: QueueStore, waiter: StoredWaiter, eventId: string, eventData: Uint8Array | undefined): Promise<string> {
  const { step } = waiter
  const record = {
    stepId: step.stepId,
    stepName: step.stepName,
    stepType: step.stepType,
    waitEventId: eventId,
    concurrent: step.concurrent,
    ...(eventData === undefined ? { waitTimeout: true } : { out: Buffer.from(eventData).toString('base64'), waitTimeout: false }),
  }
  const stepJson = JSON.stringify(record)
  const scheduled = await store.appendStep(waiter.runId, `s:${step.stepId}`, stepJson, resumeMessage(waiter, stepJson))
  return scheduled.messageId
}

async function waiters(store: QueueStore, eventId: string): Promise<Map<string, StoredWaiter>> {
  const reply = (await store.call(['HGETALL', waitKey(store, eventId)])) as Reply[]
  const map = new Map<string, StoredWaiter>()
  for (let i = 0; i + 1 < reply.length; i += 2) map.set(decoder.decode(reply[i] as Uint8Array), JSON.parse(decoder.decode(reply[i + 1] as Uint8Array)) as StoredWaiter)
  return map
}

/** A timeout message came due: the waiter, if nobody notified it first, resumes with `timeout: true`. */
export async function expireWait(store: QueueStore, message: MessageRecord): Promise<string> {
  const { eventId, field } = JSON.parse(decoder.decode(message.body)) as { eventId: string; field: string }
  const raw = await store.call(['HGET', waitKey(store, eventId), field])
  if (raw === null) return 'notified before its deadline'
  const waiter = JSON.parse(decoder.decode(raw as Uint8Array)) as StoredWaiter
  if (Number(await store.call(['HDEL', waitKey(store, eventId), field])) !== 1) return 'notified before its deadline'
  try {
    await resume(store, waiter, eventId, undefined)
  } catch (cause) {
    if (cause instanceof StoreError) return `timed out; the run no longer waits (${cause.message})`
    throw cause
  }
  return 'timed out: the run resumed with timeout: true'
}

/** The API routes of waiting and notifying. */
export function waitRoutes(store: QueueStore, wake: () => void): Route[] {
  async function wait({ request, params }: ApiCall): Promise<HttpResponse> {
    const runId = request.headers.get(RUN_ID_HEADER.toLowerCase()) ?? request.headers.get(RUN_ID_HEADER)
    if (!runId) throw new StoreError(`a wait needs the ${RUN_ID_HEADER} header`, 422)
    const body = parseWaitRequest(request.body)
    const run = await store.loadRun(runId)
    if (!run) throw new StoreError(`workflow run ${runId} not found`, 404)
    if (run.state !== 'RUN_STARTED') throw new StoreError(`workflow run ${runId} is not running (${run.state})`, 400)
    const deadline = Date.now() + parseDelay(body.timeout)
    const field = `${runId}:${body.step.stepId}`
    const key = waitKey(store, params.eventId)
    if (Number(await store.call(['HEXISTS', key, field])) === 1) return jsonResponse(200, { eventId: params.eventId, deduplicated: true })
    const timeout = await store.addRunMessage(runId, `w:${body.step.stepId}`, {
      kind: 'wait',
      url: body.url,
      method: 'POST',
      headers: {},
      body: Buffer.from(JSON.stringify({ eventId: params.eventId, field }), 'utf8'),
      retries: 0,
      dueAt: deadline,
      stepId: body.step.stepId,
      stepName: body.step.stepName,
      stepType: `Wait for ${params.eventId}`,
    })
    const waiter: StoredWaiter = { runId, url: body.url, deadline, headers: {}, timeoutUrl: body.timeoutUrl, timeoutHeaders: body.timeoutHeaders, step: body.step, timeoutMessageId: timeout.messageId }
    await store.call(['HSET', key, field, JSON.stringify(waiter)])
    wake()
    return jsonResponse(200, { eventId: params.eventId, messageId: timeout.messageId })
  }

  async function notify({ request, params }: ApiCall): Promise<HttpResponse> {
    const eventData = request.body ?? new Uint8Array(0)
    const answers: Record<string, unknown>[] = []
    for (const [field, waiter] of await waiters(store, params.eventId)) {
      if (params.runId !== undefined && waiter.runId !== params.runId) continue
      if (Number(await store.call(['HDEL', waitKey(store, params.eventId), field])) !== 1) continue
      let messageId = ''
      let failure = ''
      try {
        messageId = await resume(store, waiter, params.eventId, eventData)
      } catch (cause) {
        if (!(cause instanceof StoreError)) throw cause
        failure = cause.message
      }
      await store.multi([
        ['ZREM', store.dueKey, waiter.timeoutMessageId],
        ['HSET', store.messageKey(waiter.timeoutMessageId), 'state', 'delivered', 'deliveredAt', String(Date.now()), 'note', 'notified before its deadline'],
      ])
      answers.push({ waiter: publicWaiter(waiter), messageId, error: failure })
    }
    if (answers.length > 0) wake()
    return jsonResponse(200, answers)
  }

  async function list({ params }: ApiCall): Promise<HttpResponse> {
    const all = [...(await waiters(store, params.eventId)).values()]
    const runs = await store.loadRuns(all.map((waiter) => waiter.runId))
    const running = new Set(runs.filter((run) => run.state === 'RUN_STARTED').map((run) => run.id))
    // a run that ended (cancelled, failed) while waiting no longer waits
    return jsonResponse(200, all.filter((waiter) => running.has(waiter.runId)).map(publicWaiter))
  }

  return [
    { method: 'POST', path: 'wait/:eventId', run: wait },
    { method: 'POST', path: 'notify/:eventId', run: notify },
    { method: 'POST', path: 'notify/:runId/:eventId', run: notify },
    { method: 'GET', path: 'waiters/:eventId', run: list },
  ]
}
