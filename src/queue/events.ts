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
import { labelsOf, parseFilter, type FilterName } from './filters.js'
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
  /** The publisher's IP address. */
  readonly callerIp?: string
  readonly flowControlKey?: string
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
const EVENT_FILTERS: readonly FilterName[] = ['messageId', 'state', 'url', 'topicName', 'scheduleId', 'queueName', 'label', 'callerIp', 'flowControlKey', 'host', 'path', 'fromDate', 'toDate']
const STATES = new Set(['CREATED', 'DELIVERED', 'RETRY', 'FAILED', 'CANCELED', 'ACTIVE', 'ERROR', 'IN_PROGRESS'])
const decoder = new TextDecoder()

function bad(message: string): never {
  throw new StoreError(message, 400)
}

/** The predicate of a request's filters. */
function filterOf(query: URLSearchParams): (event: EventView) => boolean {
  const state = query.get('state')
  if (state !== null && !STATES.has(state)) bad(`invalid state ${JSON.stringify(state)}`)
  const filter = parseFilter(query, EVENT_FILTERS, ['count', 'cursor', 'messageIds'], 'the event log (GET /v2/events)')
  const ids = query.getAll('messageIds')
  return (event) =>
    (ids.length === 0 || ids.includes(event.messageId)) &&
    filter.accepts({
      time: event.time,
      messageId: event.messageId,
      url: event.url,
      state: event.state,
      labels: labelsOf(event.label),
      callerIp: event.callerIp,
      flowControlKey: event.flowControlKey,
      topicName: event.topicName,
      scheduleId: event.scheduleId,
      queueName: event.queueName,
    })
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
