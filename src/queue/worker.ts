/**
 * The delivery loop: claims due messages, calls their destination over HTTP (signed), and
 * settles each attempt: delivered, retried after a backoff (or the `Retry-After` the endpoint
 * asked for), or failed for good (dead-letter list, failed run, failure callback).
 */
import { randomBytes } from 'node:crypto'
import http from 'node:http'
import https from 'node:https'
import {
  DEFAULT_RETRIES,
  CREATED_AT_HEADER,
  LABEL_HEADER,
  MESSAGE_ID_HEADER,
  NON_RETRYABLE_HEADER,
  NON_RETRYABLE_STATUS,
  RETRIED_HEADER,
  RUN_ID_HEADER,
  SIGNATURE_HEADER,
  WORKFLOW_URL_HEADER,
} from '../workflow/constants.js'
import { signRequest } from '../workflow/signature.js'
import { failureCallbackMessage, failureCallbackBody } from './messages.js'
import { StoreError, type AttemptLog, type MessageRecord, type QueueStore, type RunRecord } from './store.js'
import { callbackKey, callbackMessage, type CallOutcome } from './call.js'
import { expireWait } from './wait.js'
import { resumeInvoker } from './invoke.js'
import { callbackMessage as successCallbackMessage } from './callbacks.js'
import { acquireFlowSlot, releaseFlowSlotCommand } from './flow-control.js'
import { retryDelayMs } from './retry-delay.js'
import type { Command } from '../reply.js'

/** Something that happened in the queue, for observers. @public */
export type QueueEvent =
  | {
      readonly type: 'attempt'
      readonly messageId: string
      readonly runId?: string
      readonly attempt: number
      readonly outcome: 'delivered' | 'retry' | 'failed' | 'superseded' | 'canceled'
      readonly status?: number
      readonly error?: string
    }
  | { readonly type: 'run'; readonly runId: string; readonly state: 'RUN_SUCCESS' | 'RUN_FAILED' | 'RUN_CANCELED' }
  | { readonly type: 'dead-letter'; readonly messageId: string; readonly runId?: string }

/** Settings of the delivery loop. */
export interface WorkerOptions {
  readonly store: QueueStore
  readonly signingKey: string
  readonly concurrency: number
  readonly pollInterval: number
  readonly deliveryTimeout: number
  readonly leaseMs: number
  readonly backoff: (retry: number) => number
  readonly emit: (event: QueueEvent) => void
  readonly onError: (error: unknown) => void
}

const RESPONSE_LIMIT = 64 * 1024

interface HttpAnswer {
  readonly status: number
  readonly headers: http.IncomingHttpHeaders
  /** The first {@link RESPONSE_LIMIT} bytes of the body; the rest is read and dropped. */
  readonly body: Buffer
}

function responseHeaders(headers: http.IncomingHttpHeaders): { flat: Record<string, string>; multi: Record<string, string[]> } {
  const flat: Record<string, string> = {}
  const multi: Record<string, string[]> = {}
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue
    const values = Array.isArray(value) ? value : [value]
    flat[name] = values.join(', ')
    multi[name] = values
  }
  return { flat, multi }
}

/** One HTTP request over keep-alive connections (node:http is several times faster than fetch here). */
function send(
  agents: { http: http.Agent; https: https.Agent },
  url: string,
  method: string,
  headers: Record<string, string>,
  body: string | Uint8Array | undefined,
  signal: AbortSignal,
): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    const target = new URL(url)
    const secure = target.protocol === 'https:'
    const payload = body === undefined ? undefined : typeof body === 'string' ? Buffer.from(body, 'utf8') : body
    const request = (secure ? https : http).request(
      target,
      {
        method,
        agent: secure ? agents.https : agents.http,
        headers: payload === undefined ? headers : { ...headers, 'content-length': String(payload.byteLength) },
        signal,
      },
      (response) => {
        const chunks: Buffer[] = []
        let size = 0
        response.on('data', (chunk: Buffer) => {
          if (size < RESPONSE_LIMIT) chunks.push(chunk)
          size += chunk.length
        })
        response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks).subarray(0, RESPONSE_LIMIT) }))
        response.on('error', reject)
      },
    )
    request.on('error', reject)
    request.end(payload)
  })
}

/** Seconds in a `Retry-After` header (seconds or an HTTP date), or undefined. */
function retryAfterMs(value: string | null, now: number): number | undefined {
  if (value === null || value.trim() === '') return undefined
  const seconds = Number(value)
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000)
  const date = Date.parse(value)
  return Number.isNaN(date) ? undefined : Math.max(0, date - now)
}

/** Claims and delivers messages until stopped. */
export class Worker {
  readonly owner = `worker_${randomBytes(6).toString('base64url')}`
  private readonly options: WorkerOptions
  private readonly inflight = new Map<string, AbortController>()
  private readonly settling = new Set<Promise<void>>()
  private pumping = false
  private again = false
  private timer: ReturnType<typeof setTimeout> | undefined
  private running = false
  private readonly agents: { http: http.Agent; https: https.Agent }

  constructor(options: WorkerOptions) {
    this.options = options
    const agentOptions = { keepAlive: true, maxSockets: Math.max(16, options.concurrency) }
    this.agents = { http: new http.Agent(agentOptions), https: new https.Agent(agentOptions) }
  }

  get active(): number {
    return this.inflight.size
  }

  start(): void {
    if (this.running) return
    this.running = true
    this.wake()
  }

  /** Stops claiming; in-flight deliveries are abandoned (their leases expire, another process takes them). */
  async stop(): Promise<void> {
    this.running = false
    if (this.timer) clearTimeout(this.timer)
    this.timer = undefined
    for (const controller of this.inflight.values()) controller.abort(new Error('queue service stopping'))
    await Promise.allSettled([...this.settling])
    this.agents.http.destroy()
    this.agents.https.destroy()
  }

  /** Looks for due work now (called when a message was scheduled). */
  wake(): void {
    if (!this.running) return
    if (this.pumping) {
      this.again = true
      return
    }
    void this.pump()
  }

  private async pump(): Promise<void> {
    this.pumping = true
    try {
      do {
        this.again = false
        await this.claimAll()
      } while (this.again && this.running)
    } catch (error) {
      this.options.onError(error)
    } finally {
      this.pumping = false
      await this.arm().catch((error: unknown) => this.options.onError(error))
    }
  }

  /** Due messages were seen but all were held by other processes: look again a little later, not at once. */
  private contended = false

  private async claimAll(): Promise<void> {
    const { store, concurrency, leaseMs } = this.options
    this.contended = false
    while (this.running && this.inflight.size < concurrency) {
      const now = Date.now()
      const free = concurrency - this.inflight.size
      const ids = (await store.dueIds(now, free + this.inflight.size)).filter((id) => !this.inflight.has(id))
      if (ids.length === 0) return
      let claimed = 0
      for (const id of ids) {
        if (!this.running || this.inflight.size >= concurrency) break
        if (this.inflight.has(id)) continue
        if (!(await store.claim(id, this.owner, leaseMs, now))) continue
        claimed++
        const controller = new AbortController()
        this.inflight.set(id, controller)
        const settled = this.deliver(id, controller)
          .catch((error: unknown) => this.options.onError(error))
          .finally(() => {
            this.inflight.delete(id)
            this.settling.delete(settled)
            this.wake()
          })
        this.settling.add(settled)
      }
      if (claimed === 0) {
        this.contended = true
        return
      }
    }
  }

  /** Sets the timer for the next due message (at most `pollInterval` away, for other processes' work). */
  private async arm(): Promise<void> {
    if (!this.running) return
    if (this.timer) clearTimeout(this.timer)
    let delay = this.options.pollInterval
    if (this.inflight.size < this.options.concurrency) {
      const next = await this.options.store.nextDueAt()
      if (next !== undefined) delay = Math.min(delay, Math.max(0, next - Date.now()))
      // a due message whose lease another process still holds (it expires within moments, or the
      // holder is slow): do not spin on it
      if (this.contended) delay = Math.max(delay, Math.min(25, this.options.pollInterval))
    }
    if (!this.running) return
    this.timer = setTimeout(() => {
      this.timer = undefined
      this.wake()
    }, Math.max(1, delay))
    this.timer.unref?.()
  }

  private async deliver(id: string, controller: AbortController): Promise<void> {
    const { store } = this.options
    const message = await store.loadMessage(id)
    if (!message) {
      await store.call(['ZREM', store.dueKey, id])
      await store.call(['DEL', store.messageLockKey(id)])
      return
    }
    if (message.state === 'canceled') {
      // canceled through the API after this process saw it due
      await store.multi([['ZREM', store.dueKey, id], ['DEL', store.messageLockKey(id)]])
      return
    }
    const attempt = message.retried
    if (message.kind === 'wait') {
      // a waiter's deadline: no HTTP call, the run resumes with `timeout: true` unless notified first
      const note = await expireWait(store, message)
      await this.finish(message, { state: 'delivered', deliveredAt: String(Date.now()), note }, undefined, { attempt, at: Date.now(), outcome: 'delivered', by: this.owner })
      this.wake()
      return
    }
    let run: RunRecord | undefined
    let body: string | Uint8Array = message.body
    const headers: Record<string, string> = { ...message.headers }
    if (message.kind === 'workflow' && message.runId !== undefined) {
      run = await store.loadRun(message.runId)
      if (run && (await store.hasAnyStep(run.id, message.expect))) {
        // The endpoint already handled this delivery (its next step is recorded) although the
        // attempt did not end well, e.g. it timed out or lost the connection after sending the
        // step: asking again would run the next step twice.
        await this.finish(message, { state: 'delivered', deliveredAt: String(Date.now()), note: 'superseded: the next step was already recorded' }, undefined, {
          attempt,
          at: Date.now(),
          outcome: 'superseded',
          by: this.owner,
        })
        this.options.emit({ type: 'attempt', messageId: id, runId: run.id, attempt, outcome: 'superseded' })
        return
      }
      if (!run || run.state !== 'RUN_STARTED') {
        await this.finish(message, { state: 'canceled', note: `the run ${run ? `ended (${run.state})` : 'does not exist'}` }, undefined, {
          attempt,
          at: Date.now(),
          outcome: 'canceled',
          by: this.owner,
        })
        this.options.emit({ type: 'attempt', messageId: id, runId: message.runId, attempt, outcome: 'canceled' })
        return
      }
      body = await store.deliveryBody(run.id, message.seq ?? 0)
      Object.assign(headers, run.forward, message.headers)
      headers[RUN_ID_HEADER.toLowerCase()] = run.id
      headers[WORKFLOW_URL_HEADER.toLowerCase()] = run.url
      headers[CREATED_AT_HEADER.toLowerCase()] = String(run.createdAt)
      if (run.label) headers[LABEL_HEADER.toLowerCase()] = run.label
    } else if (message.kind === 'failure' && message.runId !== undefined) {
      run = await store.loadRun(message.runId)
    } else if ((message.kind === 'call' || message.kind === 'callback') && message.runId !== undefined) {
      run = await store.loadRun(message.runId)
      if (!run || run.state !== 'RUN_STARTED') {
        await this.finish(message, { state: 'canceled', note: `the run ${run ? `ended (${run.state})` : 'does not exist'}` }, undefined, { attempt, at: Date.now(), outcome: 'canceled', by: this.owner })
        this.options.emit({ type: 'attempt', messageId: id, runId: message.runId, attempt, outcome: 'canceled' })
        return
      }
    }
    if (message.flowControl && (await this.waitForFlowSlot(message))) return
    // Stored header names are lower case; these replace any forwarded copy.
    headers[MESSAGE_ID_HEADER.toLowerCase()] = id
    headers[RETRIED_HEADER.toLowerCase()] = String(attempt)
    headers[SIGNATURE_HEADER.toLowerCase()] = signRequest({ url: message.url, body, key: this.options.signingKey })

    const started = Date.now()
    const timeoutMs = message.call?.timeoutMs ?? message.timeoutMs ?? this.options.deliveryTimeout
    // one controller per delivery: aborted by stop() or by the delivery timeout
    let timedOut = false
    const timer = setTimeout(() => {
      timedOut = true
      controller.abort(new Error('delivery timeout'))
    }, timeoutMs)
    let status: number | undefined
    let error: string | undefined
    let responseText = ''
    let respHeaders: { flat: Record<string, string>; multi: Record<string, string[]> } = { flat: {}, multi: {} }
    let nonRetryable = false
    let retryAfter: number | undefined
    try {
      const hasBody = message.method !== 'GET' && message.method !== 'HEAD'
      const answer = await send(this.agents, message.url, message.method, headers, hasBody ? body : undefined, controller.signal)
      status = answer.status
      respHeaders = responseHeaders(answer.headers)
      responseText = answer.body.toString('utf8')
      nonRetryable = status === NON_RETRYABLE_STATUS && respHeaders.flat[NON_RETRYABLE_HEADER.toLowerCase()] === 'true'
      const retryAfterHeader = respHeaders.flat['retry-after']
      if (retryAfterHeader !== undefined) retryAfter = retryAfterMs(retryAfterHeader, Date.now())
    } catch (cause) {
      if (controller.signal.aborted && !timedOut) return // the service is stopping: leave the message to its lease
      error = timedOut ? `timed out after ${timeoutMs} ms` : `request failed: ${(cause as Error)?.message ?? cause}`
    } finally {
      clearTimeout(timer)
    }
    const now = Date.now()
    const durationMs = now - started
    const base: AttemptLog = {
      attempt,
      at: started,
      durationMs,
      outcome: 'delivered',
      status,
      error,
      responseBody: responseText === '' ? undefined : responseText.slice(0, 4096),
      responseHeaders: status === undefined ? undefined : respHeaders.flat,
      by: this.owner,
    }
    if (status !== undefined && status >= 200 && status < 300) {
      await this.finish(message, { state: 'delivered', deliveredAt: String(now), lastStatus: String(status), retried: String(attempt + 1) }, undefined, base)
      this.options.emit({ type: 'attempt', messageId: id, runId: message.runId, attempt, outcome: 'delivered', status })
      if (message.call) await this.scheduleCallback(message, run, { status, header: respHeaders.multi, body: responseText, timedOut: false })
      else {
        const callback = successCallbackMessage(message, { status, header: respHeaders.multi, body: responseText }, attempt, DEFAULT_RETRIES)
        if (callback) {
          await store.addMessage(callback)
          this.wake()
        }
      }
      return
    }
    const reason = error ?? (status === undefined ? 'no response' : `status ${status}${nonRetryable ? ' (non-retryable)' : ''}`)
    const lastFields: Record<string, string> = {
      retried: String(attempt + 1),
      lastError: reason,
      lastResponse: Buffer.from(responseText, 'utf8').toString('base64'),
      lastResponseHeaders: JSON.stringify(respHeaders.multi),
    }
    if (status !== undefined) lastFields.lastStatus = String(status)
    if (!nonRetryable && attempt < message.retries) {
      // Retry-After of the answer, else the message's Upstash-Retry-Delay (retried = retries so far), else the backoff
      const delay = retryAfter ?? (message.retryDelay !== undefined ? retryDelayMs(message.retryDelay, attempt) : Math.max(0, this.options.backoff(attempt + 1)))
      const next = now + delay
      await this.finish(message, { ...lastFields, state: 'pending', dueAt: String(next) }, next, { ...base, outcome: 'retry', nextAttemptAt: next })
      this.options.emit({ type: 'attempt', messageId: id, runId: message.runId, attempt, outcome: 'retry', status, error: reason })
      return
    }
    await this.finish(message, { ...lastFields, state: 'failed' }, undefined, { ...base, outcome: 'failed' }, [store.dlqCommand(id, now)])
    this.options.emit({ type: 'attempt', messageId: id, runId: message.runId, attempt, outcome: 'failed', status, error: reason })
    this.options.emit({ type: 'dead-letter', messageId: id, runId: message.runId })
    if (message.call) await this.scheduleCallback(message, run, { status, header: respHeaders.multi, body: responseText, error, timedOut })
    else await this.afterFailure(message, run, status, respHeaders.multi, responseText, reason)
  }

  /** A third-party call ended (answered, or failed for good): deliver its outcome to the workflow. */
  private async scheduleCallback(message: MessageRecord, run: RunRecord | undefined, outcome: CallOutcome): Promise<void> {
    if (!message.call || !message.runId) return
    const callback = callbackMessage(message, message.call, outcome, run?.retries ?? message.retries)
    try {
      await this.options.store.addRunMessage(message.runId, callbackKey(message.call.stepId), callback)
      this.wake()
    } catch (cause) {
      // the run ended meanwhile: nobody waits for the outcome
      if (!(cause instanceof StoreError)) throw cause
    }
  }

  private async finish(message: MessageRecord, fields: Record<string, string>, dueAt: number | undefined, log: AttemptLog, extra: Command[] = []): Promise<void> {
    const { store } = this.options
    const release = message.flowControl ? [releaseFlowSlotCommand(store, message.flowControl, message.id)] : []
    await store.settle(message.id, fields, dueAt, log, [...extra, ...release])
    if (release.length > 0) this.wake() // a slot is free: a message waiting for it may go now
  }

  /**
   * Takes the message's flow-control slot. Without one the message goes back to the schedule for
   * when a slot may be free (no attempt spent, its lease released) and this returns true.
   */
  private async waitForFlowSlot(message: MessageRecord): Promise<boolean> {
    const { store, leaseMs } = this.options
    const now = Date.now()
    const retryAt = await acquireFlowSlot(store, message.flowControl!, message.id, now, now + leaseMs)
    if (retryAt === 0) return false
    await store.multi([
      ['ZADD', store.dueKey, String(retryAt), message.id],
      ['HSET', store.messageKey(message.id), 'state', 'pending', 'note', `waiting for flow control ${message.flowControl!.key}`],
      ['DEL', store.messageLockKey(message.id)],
    ])
    return true
  }

  /** A message failed for good: fail its run and schedule the failure callback. */
  private async afterFailure(
    message: MessageRecord,
    run: RunRecord | undefined,
    status: number | undefined,
    headers: Record<string, string[]>,
    responseText: string,
    reason: string,
  ): Promise<void> {
    const { store } = this.options
    const failed = { status: status ?? 0, header: headers, body: responseText, retried: message.retried + 1, reason }
    if ((message.kind === 'workflow' || message.kind === 'callback') && run) {
      const callback = failureCallbackMessage(run, failureCallbackBody(message, run, failed))
      const outcome = await store.failRun(run.id, message.id, reason, callback)
      if (outcome.failed) {
        this.options.emit({ type: 'run', runId: run.id, state: 'RUN_FAILED' })
        if (await resumeInvoker(store, run.id, { body: responseText || reason, isFailed: true, isCanceled: false })) this.wake()
      }
      if (outcome.callbackId) this.wake()
      return
    }
    if (message.kind === 'publish' && message.failureUrl) {
      const callback = failureCallbackMessage(undefined, failureCallbackBody(message, undefined, failed), message)
      if (callback) {
        await store.addMessage(callback)
        this.wake()
      }
    }
  }
}
