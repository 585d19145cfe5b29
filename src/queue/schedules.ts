/**
 * Schedules (`/v2/schedules…`): a cron expression and a message template (destination, method,
 * headers, body) kept in the engine; each fire publishes one message built from the template, as
 * if it had been sent to `/v2/publish` at that moment, so every publish option applies to every
 * fire: `Upstash-Delay`, `-Retries`, `-Method`, `-Retry-Delay`, `-Timeout`, `-Callback`,
 * `-Failure-Callback`, flow control, `-Redact-Fields` and forwarded headers; with
 * `Upstash-Queue-Name` each fire is enqueued to that queue instead. `Upstash-Schedule-Id` is
 * forwarded to the destination.
 *
 * Fires survive restarts: the next fire time is stored, and any process of the queue fires a due
 * schedule (a per-fire lock keeps it to one message). A fire found more than
 * {@link MISSED_FIRE_GRACE_MS} late (no process ran at its time) is skipped, as the hosted queue
 * does: the schedule continues from the current time, and the skip is counted on the schedule
 * (`skippedFires`, `lastSkippedTime`) and reported to the service's `onError`.
 *
 * Keys (below the store's prefix):
 * - `schedules`          zset  schedule id → creation time
 * - `schedules:due`      zset  schedule id → next fire (ms); absent while paused
 * - `schedule:<id>`      hash  the schedule
 * - `lock:schedule:<id>:<fire>` string  the process publishing that fire
 */
import type { HttpResponse } from '../adapters/http.js'
import { fetchHeaders, jsonResponse } from '../adapters/http.js'
import { CronError, nextFire, parseCron } from './cron.js'
import { checkMessageTimeout, planMessage } from './messages.js'
import { QUEUE_NAME } from './queues.js'
import { REDACTED, redactBody, redactHeaderLists } from './redact.js'
import type { ApiCall, Route } from './routes.js'
import { randomId, StoreError, type NewMessage, type QueueStore, type Scheduled } from './store.js'

/** A schedule in API answers (the hosted queue's field names). @public */
export interface ScheduleView {
  readonly scheduleId: string
  readonly cron: string
  readonly createdAt: number
  readonly destination: string
  readonly method: string
  readonly header: Record<string, string[]>
  readonly body: string
  readonly retries: number
  /** Delay of each fire's message, seconds. */
  readonly delay?: number
  readonly failureCallback?: string
  /** Where each fire's answer is posted (`Upstash-Callback`). */
  readonly callback?: string
  /** The retry delay expression of each fire's message. */
  readonly retryDelayExpression?: string
  /** Bound of one delivery attempt of each fire, seconds (`Upstash-Timeout`). */
  readonly timeout?: number
  /** The queue each fire is enqueued to. */
  readonly queueName?: string
  readonly flowControlKey?: string
  readonly parallelism?: number
  readonly rate?: number
  /** The flow-control rate's period, seconds. */
  readonly period?: number
  readonly isPaused: boolean
  readonly label?: string
  readonly lastScheduleTime?: number
  readonly nextScheduleTime?: number
  /** The message id of the last fire. */
  readonly lastMessageId?: string
  /** Fires skipped because no queue process ran at their time. */
  readonly skippedFires?: number
  /** When the last skipped fire was due. */
  readonly lastSkippedTime?: number
}

/**
 * How late a fire may be published: one found later than this was due while no queue process ran
 * (or while every one was stalled) and is skipped rather than delivered out of its time.
 */
export const MISSED_FIRE_GRACE_MS = 60_000

const QUEUE_NAME_HEADER = 'upstash-queue-name'

/** A fire skipped because no process ran at its time, as reported to `onError`: a notice, so its stack is only its text. @public */
export class SkippedFireNotice extends Error {
  override readonly name = 'SkippedFireNotice'
  constructor(message: string) {
    super(message)
    this.stack = `${this.name}: ${message}`
  }
}

/** Request headers that belong to the API call, not to the message template. */
const NOT_TEMPLATE = new Set(['authorization', 'host', 'connection', 'content-length', 'transfer-encoding', 'upstash-cron', 'upstash-schedule-id', 'accept', 'accept-encoding', 'user-agent'])

const SCHEDULE_ID = /^[A-Za-z0-9_.:-]{1,256}$/

interface ScheduleRecord {
  readonly id: string
  readonly cron: string
  readonly destination: string
  readonly headers: Record<string, string>
  readonly body: Uint8Array
  readonly createdAt: number
  readonly paused: boolean
  readonly nextAt?: number
  readonly lastAt?: number
  readonly lastMessageId?: string
  readonly skippedFires?: number
  readonly lastSkippedTime?: number
}

export interface SchedulesOptions {
  readonly store: QueueStore
  /** The current time, ms (injectable so tests need not wait for the minute). */
  readonly now: () => number
  readonly defaultRetries: number
  /** The service's delivery timeout: a template's `Upstash-Timeout` may not exceed it. */
  readonly deliveryTimeout: number
  /** Adds a fire's message and wakes the delivery loop. */
  readonly publish: (message: NewMessage, scheduleId: string) => Promise<Scheduled>
  /** Adds a fire's message to the end of queue `queueName`; returns its id. */
  readonly enqueue: (queueName: string, message: NewMessage, scheduleId: string) => Promise<string>
  readonly onError: (error: unknown) => void
}

const decoder = new TextDecoder()

function bad(message: string): never {
  throw new StoreError(message, 400)
}

/** Schedules: their API routes and the loop that fires them. */
export class Schedules {
  private timer: ReturnType<typeof setInterval> | undefined
  private ticking: Promise<void> | undefined

  constructor(private readonly options: SchedulesOptions) {}

  private get store(): QueueStore {
    return this.options.store
  }
  private key(id: string): string {
    return `${this.store.prefix}schedule:${id}`
  }
  private get listKey(): string {
    return `${this.store.prefix}schedules`
  }
  private get dueKey(): string {
    return `${this.store.prefix}schedules:due`
  }

  /** Fires due schedules every `interval` ms until {@link stop}. */
  start(interval: number): void {
    if (this.timer) return
    this.timer = setInterval(() => void this.tick(), interval)
    this.timer.unref?.()
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer)
    this.timer = undefined
    await this.ticking
  }

  /** Publishes every due fire once (one pass; concurrent calls share it). */
  tick(): Promise<void> {
    this.ticking ??= this.fireDue()
      .catch(this.options.onError)
      .finally(() => (this.ticking = undefined))
    return this.ticking
  }

  private async fireDue(): Promise<void> {
    const now = this.options.now()
    const due = (await this.store.call(['ZRANGEBYSCORE', this.dueKey, '-inf', String(now), 'WITHSCORES', 'LIMIT', '0', '100'])) as Uint8Array[]
    for (let i = 0; i + 1 < due.length; i += 2) {
      const id = decoder.decode(due[i])
      const fireAt = decoder.decode(due[i + 1])
      const locked = await this.store.call(['SET', `${this.store.prefix}lock:schedule:${id}:${fireAt}`, '1', 'NX', 'PX', '3600000'])
      if (locked === null) continue
      if (now - Number(fireAt) > MISSED_FIRE_GRACE_MS) await this.skip(id, Number(fireAt), now)
      else await this.fire(id, now)
    }
  }

  private async fire(id: string, now: number): Promise<void> {
    const schedule = await this.load(id)
    if (!schedule || schedule.paused) return
    const headers = new Headers(schedule.headers)
    headers.set('upstash-forward-upstash-schedule-id', id)
    // the message's own due time (its delay) counts from the delivery loop's clock, the real one
    const plan = planMessage(schedule.destination, headers, schedule.body, this.options.defaultRetries, Date.now())
    const queueName = headers.get(QUEUE_NAME_HEADER)
    const messageId = queueName === null ? (await this.options.publish(plan.message, id)).messageId : await this.options.enqueue(queueName, plan.message, id)
    await this.advance(id, schedule.cron, now, ['lastAt', String(now), 'lastMessageId', messageId])
  }

  /** A fire due while no process ran: not published; counted on the schedule and reported. */
  private async skip(id: string, fireAt: number, now: number): Promise<void> {
    const schedule = await this.load(id)
    if (!schedule || schedule.paused) return
    await this.advance(id, schedule.cron, now, ['skippedFires', String((schedule.skippedFires ?? 0) + 1), 'lastSkippedTime', String(fireAt)])
    this.options.onError(
      new SkippedFireNotice(`schedule ${id}: the fire due at ${new Date(fireAt).toISOString()} was skipped: no queue process ran at its time (found ${Math.round((now - fireAt) / 1000)} s late); the schedule goes on from now`),
    )
  }

  /** Records what a fire did and moves the schedule to its next fire after `now`. */
  private async advance(id: string, cron: string, now: number, fields: string[]): Promise<void> {
    const next = nextFire(parseCron(cron), now)
    const commands: (string | Uint8Array)[][] = [['HSET', this.key(id), ...fields, 'nextAt', String(next ?? '')]]
    // XX: a schedule deleted or paused meanwhile is not put back on the due list
    commands.push(next === undefined ? ['ZREM', this.dueKey, id] : ['ZADD', this.dueKey, 'XX', String(next), id])
    await this.store.multi(commands)
  }

  private async load(id: string): Promise<ScheduleRecord | undefined> {
    const reply = (await this.store.call(['HGETALL', this.key(id)])) as Uint8Array[]
    const map = new Map<string, Uint8Array>()
    for (let i = 0; i + 1 < reply.length; i += 2) map.set(decoder.decode(reply[i]), reply[i + 1])
    const text = (name: string): string | undefined => (map.has(name) ? decoder.decode(map.get(name)) : undefined)
    const number = (name: string): number | undefined => (text(name) ? Number(text(name)) : undefined)
    if (text('id') === undefined) return undefined
    return {
      id: text('id')!,
      cron: text('cron')!,
      destination: text('destination')!,
      headers: JSON.parse(text('headers') ?? '{}') as Record<string, string>,
      body: map.get('body') ?? new Uint8Array(0),
      createdAt: number('createdAt') ?? 0,
      paused: text('paused') === '1',
      nextAt: number('nextAt'),
      lastAt: number('lastAt'),
      lastMessageId: text('lastMessageId'),
      skippedFires: number('skippedFires'),
      lastSkippedTime: number('lastSkippedTime'),
    }
  }

  private view(schedule: ScheduleRecord): ScheduleView {
    const headers = new Headers(schedule.headers)
    // a template that is not publishable was refused at creation
    const { message } = planMessage(schedule.destination, headers, schedule.body, this.options.defaultRetries, 0)
    const header: Record<string, string[]> = {}
    for (const [name, value] of Object.entries(message.headers)) header[name] = [value]
    const flow = message.flowControl
    return {
      scheduleId: schedule.id,
      cron: schedule.cron,
      createdAt: schedule.createdAt,
      destination: schedule.destination,
      method: message.method,
      header: redactHeaderLists(header, message.redact, [REDACTED]),
      body: redactBody(decoder.decode(schedule.body), message.redact),
      retries: message.retries,
      ...(message.dueAt > 0 ? { delay: Math.round(message.dueAt / 1000) } : {}),
      failureCallback: message.failureUrl,
      callback: message.callbackUrl,
      retryDelayExpression: message.retryDelay,
      ...(message.timeoutMs === undefined ? {} : { timeout: message.timeoutMs / 1000 }),
      queueName: headers.get(QUEUE_NAME_HEADER) ?? undefined,
      ...(flow ? { flowControlKey: flow.key, parallelism: flow.parallelism || undefined, rate: flow.rate || undefined, period: flow.rate ? flow.periodMs / 1000 : undefined } : {}),
      isPaused: schedule.paused,
      label: headers.get('upstash-label') ?? undefined,
      lastScheduleTime: schedule.lastAt,
      nextScheduleTime: schedule.paused ? undefined : schedule.nextAt,
      lastMessageId: schedule.lastMessageId,
      skippedFires: schedule.skippedFires,
      lastSkippedTime: schedule.lastSkippedTime,
    }
  }

  // ---- API handlers

  private async create({ request, rawPath }: ApiCall): Promise<HttpResponse> {
    let destination = rawPath.slice('/v2/schedules/'.length)
    if (!/^https?:\/\//i.test(destination)) {
      try {
        destination = decodeURIComponent(destination)
      } catch {
        bad('invalid destination: bad percent-encoding')
      }
    }
    const incoming = fetchHeaders(request.headers)
    const cron = incoming.get('upstash-cron')
    if (!cron) bad('Upstash-Cron is required: the schedule\'s cron expression, e.g. "*/5 * * * *"')
    let next: number | undefined
    try {
      next = nextFire(parseCron(cron), this.options.now())
    } catch (cause) {
      if (cause instanceof CronError) bad(`invalid Upstash-Cron ${JSON.stringify(cron)}: ${cause.message}`)
      throw cause
    }
    if (next === undefined) bad(`invalid Upstash-Cron ${JSON.stringify(cron)}: it never fires`)
    const queueName = incoming.get(QUEUE_NAME_HEADER)
    if (queueName !== null && !QUEUE_NAME.test(queueName)) bad(`invalid Upstash-Queue-Name ${JSON.stringify(queueName)}: letters, digits, "-", "_" and "." only`)
    const template: Record<string, string> = {}
    incoming.forEach((value, name) => {
      if (!NOT_TEMPLATE.has(name)) template[name] = value
    })
    const body = request.body ?? new Uint8Array(0)
    const plan = planMessage(destination, new Headers(template), body, this.options.defaultRetries)
    if (plan.kind !== 'publish') bad('a schedule publishes plain messages: workflow run headers (Upstash-Workflow-RunId …) are not accepted; schedule the workflow endpoint itself')
    checkMessageTimeout(plan.message, this.options.deliveryTimeout)
    // every fire would carry the same id, so all but the first in each window would be dropped
    if (plan.dedupId !== undefined) bad('Upstash-Deduplication-Id and Upstash-Content-Based-Deduplication do not apply to schedules: every fire would share one id; each fire is one message already')
    const id = incoming.get('upstash-schedule-id') ?? randomId('scd')
    if (!SCHEDULE_ID.test(id)) bad(`invalid Upstash-Schedule-Id ${JSON.stringify(id)}`)
    const existing = await this.load(id)
    const createdAt = existing?.createdAt ?? this.options.now()
    await this.store.multi([
      ['DEL', this.key(id)],
      ['HSET', this.key(id), 'id', id, 'cron', cron, 'destination', destination, 'headers', JSON.stringify(template), 'createdAt', String(createdAt), 'paused', '0', 'nextAt', String(next), 'body', body],
      ['ZADD', this.listKey, String(createdAt), id],
      ['ZADD', this.dueKey, String(next), id],
    ])
    return jsonResponse(201, { scheduleId: id })
  }

  private async list(): Promise<HttpResponse> {
    const ids = ((await this.store.call(['ZRANGE', this.listKey, '0', '-1'])) as Uint8Array[]).map((id) => decoder.decode(id))
    const schedules = await Promise.all(ids.map((id) => this.load(id)))
    return jsonResponse(
      200,
      schedules.filter((schedule) => schedule !== undefined).map((schedule) => this.view(schedule)),
    )
  }

  private async required(id: string): Promise<ScheduleRecord> {
    const schedule = await this.load(id)
    if (!schedule) throw new StoreError(`schedule ${id} not found`, 404)
    return schedule
  }

  private async get({ params }: ApiCall): Promise<HttpResponse> {
    return jsonResponse(200, this.view(await this.required(params.id)))
  }

  private async remove({ params }: ApiCall): Promise<HttpResponse> {
    await this.required(params.id)
    await this.store.multi([
      ['DEL', this.key(params.id)],
      ['ZREM', this.listKey, params.id],
      ['ZREM', this.dueKey, params.id],
    ])
    return { status: 200, headers: {}, body: '' }
  }

  private async pause({ params }: ApiCall): Promise<HttpResponse> {
    await this.required(params.id)
    await this.store.multi([
      ['HSET', this.key(params.id), 'paused', '1'],
      ['ZREM', this.dueKey, params.id],
    ])
    return { status: 200, headers: {}, body: '' }
  }

  /** Resuming fires next at the first cron time after now: fires during the pause are skipped. */
  private async resume({ params }: ApiCall): Promise<HttpResponse> {
    const schedule = await this.required(params.id)
    if (!schedule.paused) return { status: 200, headers: {}, body: '' }
    const next = nextFire(parseCron(schedule.cron), this.options.now())
    await this.store.multi([
      ['HSET', this.key(params.id), 'paused', '0', 'nextAt', String(next ?? '')],
      ...(next === undefined ? [] : [['ZADD', this.dueKey, String(next), params.id]]),
    ])
    return { status: 200, headers: {}, body: '' }
  }

  /** The routes below `/v2/`. */
  routes(): Route[] {
    return [
      { method: 'GET', path: 'schedules', run: () => this.list() },
      { method: 'POST', path: 'schedules/*', run: (call) => this.create(call) },
      { method: 'GET', path: 'schedules/:id', run: (call) => this.get(call) },
      { method: 'DELETE', path: 'schedules/:id', run: (call) => this.remove(call) },
      { method: 'PATCH', path: 'schedules/:id/pause', run: (call) => this.pause(call) },
      { method: 'PATCH', path: 'schedules/:id/resume', run: (call) => this.resume(call) },
    ]
  }
}
