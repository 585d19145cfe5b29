/**
 * The event log (`GET /v2/events`, the `@upstash/qstash` client's `logs()`): one entry per state
 * change of a message, newest first, with the hosted queue's filters and cursor pagination.
 *
 * Entries live in a stream (`events`, trimmed to about {@link EVENT_LOG_LENGTH} entries), so
 * every process sharing the state writes to and reads from one log; the cursor is the stream id
 * of the last entry returned. What a message is for (its URL group, schedule, queue) is kept on
 * the message's hash (`origin`) when it is created, so later entries carry it too.
 *
 * States: `CREATED` (published, enqueued, fired by a schedule, or a workflow step recorded),
 * `DELIVERED`, `RETRY` (an attempt failed, another is due at `nextDeliveryTime`), `FAILED`
 * (dead-lettered), `CANCELED`.
 */
import { jsonResponse, type HttpResponse } from '../adapters/http.js'
import type { ApiCall, Route } from './routes.js'
import { StoreError, type QueueStore } from './store.js'

/** Entries kept (approximately: the stream is trimmed with `MAXLEN ~`). */
export const EVENT_LOG_LENGTH = 10_000

/** The hosted queue's message states the log records. @public */
export type EventState = 'CREATED' | 'DELIVERED' | 'RETRY' | 'FAILED' | 'CANCELED'

/** What a message is for, recorded with each of its events. */
export interface MessageOrigin {
  readonly topicName?: string
  readonly endpointName?: string
  readonly scheduleId?: string
  readonly queueName?: string
  readonly workflowRunId?: string
  readonly label?: string
}

/** One entry of the log in API answers. @public */
export interface EventView extends MessageOrigin {
  readonly time: number
  readonly state: EventState
  readonly messageId: string
  readonly url: string
  readonly nextDeliveryTime?: number
  readonly error?: string
  readonly responseStatus?: number
}

/** Filters the log answers (each a query parameter; those that may repeat match any value). */
const LIST_FILTERS = ['url', 'topicName', 'scheduleId', 'queueName', 'label', 'messageIds'] as const
const SINGLE_FILTERS = ['messageId', 'state', 'fromDate', 'toDate', 'count', 'cursor'] as const
const STATES = new Set(['CREATED', 'DELIVERED', 'RETRY', 'FAILED', 'CANCELED', 'ACTIVE', 'ERROR', 'IN_PROGRESS'])
const decoder = new TextDecoder()

function bad(message: string): never {
  throw new StoreError(message, 400)
}

function dateOf(name: string, value: string | null): number | undefined {
  if (value === null) return undefined
  const time = /^\d+$/.test(value) ? Number(value) : Date.parse(value)
  if (!Number.isFinite(time)) bad(`invalid ${name} ${JSON.stringify(value)}: unix milliseconds or a date`)
  return time
}

/** The predicate of a request's filters. */
function filterOf(query: URLSearchParams): (event: EventView) => boolean {
  for (const name of new Set(query.keys())) {
    if (name === '_token' || (LIST_FILTERS as readonly string[]).includes(name) || (SINGLE_FILTERS as readonly string[]).includes(name)) continue
    bad(`filter ${name} is not supported by the restis queue service's event log`)
  }
  const lists = new Map(LIST_FILTERS.map((name) => [name, query.getAll(name)]))
  const state = query.get('state')
  if (state !== null && !STATES.has(state)) bad(`invalid state ${JSON.stringify(state)}`)
  const messageId = query.get('messageId')
  const from = dateOf('fromDate', query.get('fromDate'))
  const to = dateOf('toDate', query.get('toDate'))
  const ids = lists.get('messageIds')!
  const matches = (name: (typeof LIST_FILTERS)[number], value: string | undefined): boolean => {
    const wanted = lists.get(name)!
    return wanted.length === 0 || (value !== undefined && wanted.includes(value))
  }
  return (event) =>
    (state === null || event.state === state) &&
    (messageId === null || event.messageId === messageId) &&
    (ids.length === 0 || ids.includes(event.messageId)) &&
    (from === undefined || event.time >= from) &&
    (to === undefined || event.time <= to) &&
    matches('url', event.url) &&
    matches('topicName', event.topicName) &&
    matches('scheduleId', event.scheduleId) &&
    matches('queueName', event.queueName) &&
    matches('label', event.label)
}

export class EventLog {
  constructor(private readonly store: QueueStore) {}

  private get key(): string {
    return `${this.store.prefix}events`
  }

  /** Notes what a new message is for, on its hash, so each of its events carries it. */
  async setOrigin(messageId: string, origin: MessageOrigin): Promise<void> {
    if (Object.keys(origin).length > 0) await this.store.call(['HSET', this.store.messageKey(messageId), 'origin', JSON.stringify(origin)])
  }

  /** Appends one state change of `messageId` (its URL and origin read from the message). */
  async record(messageId: string, state: EventState, extra: { error?: string; nextDeliveryTime?: number; responseStatus?: number } = {}): Promise<void> {
    const [url, origin] = (await this.store.call(['HMGET', this.store.messageKey(messageId), 'url', 'origin'])) as (Uint8Array | null)[]
    const event: EventView = {
      time: Date.now(),
      state,
      messageId,
      url: url === null ? '' : decoder.decode(url),
      ...(origin === null ? {} : (JSON.parse(decoder.decode(origin)) as MessageOrigin)),
      ...extra,
    }
    await this.store.call(['XADD', this.key, 'MAXLEN', '~', String(EVENT_LOG_LENGTH), '*', 'event', JSON.stringify(event)])
  }

  /** `GET /v2/events`: `{events, cursor?}`, newest first. */
  private async list({ query }: ApiCall): Promise<HttpResponse> {
    const count = query.get('count') === null ? 100 : Number(query.get('count'))
    if (!Number.isInteger(count) || count < 1 || count > 1000) bad(`invalid count ${JSON.stringify(query.get('count'))}: an integer from 1 to 1000`)
    const accept = filterOf(query)
    const cursor = query.get('cursor')
    if (cursor !== null && cursor !== '' && !/^\d+-\d+$/.test(cursor)) bad(`invalid cursor ${JSON.stringify(cursor)}: pass back the cursor of the previous page`)
    let end = cursor ? `(${cursor}` : '+'
    const events: EventView[] = []
    let last: string | undefined
    for (;;) {
      const entries = (await this.store.call(['XREVRANGE', this.key, end, '-', 'COUNT', '500'])) as [Uint8Array, Uint8Array[]][]
      for (const [id, fields] of entries) {
        const event = JSON.parse(decoder.decode(fields[1])) as EventView
        last = decoder.decode(id)
        if (!accept(event)) continue
        events.push(event)
        if (events.length === count) break
      }
      if (events.length === count || entries.length < 500) break
      end = `(${last}`
    }
    const more = events.length === count && last !== undefined
    return jsonResponse(200, { events, ...(more ? { cursor: last } : {}) })
  }

  /** The routes below `/v2/`. */
  routes(): Route[] {
    return [{ method: 'GET', path: 'events', run: (call) => this.list(call) }]
  }
}
