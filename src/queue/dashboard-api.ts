/**
 * The dashboard's own read API below `/v2/dashboard/`: the run list with server-side filters and
 * pagination, a run with its step rows (dashboard-steps.ts), the messages waiting for delivery,
 * and a change stream the page listens to for live updates. Actions are not here: the page calls
 * the same endpoints the SDKs use (cancel, notify, DLQ, schedules …).
 *
 * Live updates are server-sent events (`GET /v2/dashboard/stream`), not polling: one cheap
 * fingerprint of the shared state (the event log's last id and the sizes of the due, run and
 * dead-letter sets) is compared every {@link STREAM_CHECK_MS} ms, so a change made by another
 * queue process over the same Redis reaches the page too, and this process's own deliveries
 * nudge the stream at once. The page receives "something changed" and refetches only what it
 * shows.
 */
import { jsonResponse, type HttpResponse } from '../adapters/http.js'
import { eventStream } from '../rest/sse.js'
import type { Reply } from '../reply.js'
import { stepRows } from './dashboard-steps.js'
import type { ApiCall, Route } from './routes.js'
import { StoreError, text, type AttemptLog, type QueueStore, type RunRecord, type RunState } from './store.js'

/** What the dashboard API needs from the service. */
export interface DashboardDeps {
  readonly store: QueueStore
  /** A run in API answers (the service's `RunView`). */
  readonly runView: (run: RunRecord, steps?: number) => Promise<object>
  /** A run with its messages (the service's `RunDetail`), or undefined. */
  readonly runDetail: (id: string) => Promise<object | undefined>
  /** Observes this process's queue events; returns the unsubscribe function. */
  readonly subscribe: (listener: () => void) => () => void
}

/** How often the change stream compares the state's fingerprint, ms. */
export const STREAM_CHECK_MS = 250

/** The shortest gap between two checks, however often events nudge the stream, ms. */
const STREAM_MIN_GAP_MS = 50

const RUN_STATES: ReadonlySet<string> = new Set<RunState>(['RUN_STARTED', 'RUN_SUCCESS', 'RUN_FAILED', 'RUN_CANCELED'])
const RUN_FILTERS = ['state', 'url', 'fromDate', 'toDate', 'runId', 'label', 'offset', 'count', '_token'] as const
const SCAN_BATCH = 500

function bad(message: string): never {
  throw new StoreError(message, 400)
}

/** Refuses query parameters outside `allowed`, naming them all. */
export function refuseUnknown(query: URLSearchParams, allowed: readonly string[], what: string): void {
  const unknown = [...new Set(query.keys())].filter((name) => !allowed.includes(name))
  if (unknown.length > 0) bad(`unknown ${what} parameter${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')} (supported: ${allowed.filter((name) => name !== '_token').join(', ')})`)
}

function integer(query: URLSearchParams, name: string, fallback: number, min: number, max: number): number {
  const raw = query.get(name)
  if (raw === null || raw === '') return fallback
  const value = Number(raw)
  if (!Number.isInteger(value) || value < min || value > max) bad(`invalid ${name} ${JSON.stringify(raw)}: an integer from ${min} to ${max}`)
  return value
}

function date(query: URLSearchParams, name: string): number | undefined {
  const raw = query.get(name)
  if (raw === null || raw === '') return undefined
  const time = /^\d+$/.test(raw) ? Number(raw) : Date.parse(raw)
  if (!Number.isFinite(time)) bad(`invalid ${name} ${JSON.stringify(raw)}: unix milliseconds or an ISO 8601 date`)
  return time
}

/** The run list's filters, checked. */
interface RunFilter {
  readonly state?: string
  readonly url?: string
  readonly from?: number
  readonly to?: number
  readonly runId?: string
  readonly label?: string
  readonly offset: number
  readonly count: number
}

function runFilter(query: URLSearchParams): RunFilter {
  refuseUnknown(query, RUN_FILTERS, 'run list')
  const state = query.get('state') || undefined
  if (state !== undefined && !RUN_STATES.has(state)) bad(`invalid state ${JSON.stringify(state)}: one of ${[...RUN_STATES].join(', ')}`)
  return {
    state,
    url: query.get('url') || undefined,
    from: date(query, 'fromDate'),
    to: date(query, 'toDate'),
    runId: query.get('runId') || undefined,
    label: query.get('label') || undefined,
    offset: integer(query, 'offset', 0, 0, Number.MAX_SAFE_INTEGER),
    count: integer(query, 'count', 50, 1, 1000),
  }
}

function matches(filter: RunFilter, run: RunRecord): boolean {
  return (
    (filter.state === undefined || run.state === filter.state) &&
    (filter.url === undefined || run.url.startsWith(filter.url)) &&
    (filter.runId === undefined || run.id.startsWith(filter.runId)) &&
    (filter.label === undefined || run.label === filter.label)
  )
}

/** Every run matching `filter`, newest first (the date range is the runs index's score range). */
async function matchingRuns(store: QueueStore, filter: RunFilter): Promise<RunRecord[]> {
  const max = filter.to === undefined ? '+inf' : String(filter.to)
  const min = filter.from === undefined ? '-inf' : String(filter.from)
  const found: RunRecord[] = []
  for (let offset = 0; ; offset += SCAN_BATCH) {
    const reply = (await store.call(['ZREVRANGEBYSCORE', store.runsKey, max, min, 'LIMIT', String(offset), String(SCAN_BATCH)])) as Reply[]
    const runs = await store.loadRuns(reply.map((id) => text(id)!))
    found.push(...runs.filter((run) => matches(filter, run)))
    if (reply.length < SCAN_BATCH) return found
  }
}

async function logsOf(store: QueueStore, ids: readonly string[]): Promise<Map<string, AttemptLog[]>> {
  const logs = await Promise.all(ids.map((id) => store.attemptLog(id)))
  return new Map(ids.map((id, index) => [id, logs[index]]))
}

/**
 * The state's fingerprint: the event log's last entry and the sizes of the due, run, dead-letter,
 * schedule, queue and URL group sets change whenever a message, run or dead letter does, or a
 * schedule, queue or group is created, fired, paused or deleted, by whichever process.
 */
async function fingerprint(store: QueueStore): Promise<string> {
  const p = store.prefix
  const replies = await store.executor.pipeline([
    ['XREVRANGE', `${p}events`, '+', '-', 'COUNT', '1'],
    ...[store.dueKey, store.runsKey, store.dlqKey, `${p}schedules`, `${p}schedules:due`, `${p}queues`, `${p}topics`].map((key): string[] => ['ZCARD', key]),
  ])
  const last = replies[0]
  const lastId = Array.isArray(last) && Array.isArray(last[0]) ? text(last[0][0] as Reply) : ''
  return [lastId, ...replies.slice(1).map(String)].join('|')
}

/** The dashboard API, and the hook the service calls after each change made through its API. */
export interface DashboardApi {
  readonly routes: Route[]
  /** A write went through this process's API (a queue paused, an endpoint removed): streams report a change. */
  touch(): void
}

export function createDashboardApi({ store, runView, runDetail, subscribe }: DashboardDeps): DashboardApi {
  /** Bumped by {@link DashboardApi.touch}; part of each stream's fingerprint. */
  let version = 0
  /** The streams' early wake-ups, for {@link DashboardApi.touch}. */
  const wakers = new Set<() => void>()

  async function listRuns({ query }: ApiCall): Promise<HttpResponse> {
    const filter = runFilter(query)
    const { page, total } = await selectRuns(filter)
    const counts = await store.stepCounts(page.map((run) => run.id))
    const runs = await Promise.all(page.map((run, index) => runView(run, counts[index])))
    const next = filter.offset + filter.count < total ? filter.offset + filter.count : undefined
    return jsonResponse(200, { runs, total, offset: filter.offset, count: filter.count, ...(next === undefined ? {} : { nextOffset: next }) })
  }

  /**
   * The page of runs and how many match. Without a field filter the page is read straight from
   * the runs index (by creation time); a field filter scans the runs in the date range.
   */
  async function selectRuns(filter: RunFilter): Promise<{ page: RunRecord[]; total: number }> {
    if (filter.state === undefined && filter.url === undefined && filter.runId === undefined && filter.label === undefined) {
      const max = filter.to === undefined ? '+inf' : String(filter.to)
      const min = filter.from === undefined ? '-inf' : String(filter.from)
      const [ids, total] = await store.executor.pipeline([
        ['ZREVRANGEBYSCORE', store.runsKey, max, min, 'LIMIT', String(filter.offset), String(filter.count)],
        ['ZCOUNT', store.runsKey, min, max],
      ])
      return { page: await store.loadRuns((ids as Reply[]).map((id) => text(id)!)), total: Number(total) }
    }
    const all = filter.runId !== undefined && /^wfr_[\w-]+$/.test(filter.runId) ? await exactOrPrefix(filter) : await matchingRuns(store, filter)
    return { page: all.slice(filter.offset, filter.offset + filter.count), total: all.length }
  }

  /** A whole run id is one lookup; a prefix scans. */
  async function exactOrPrefix(filter: RunFilter): Promise<RunRecord[]> {
    const run = await store.loadRun(filter.runId!)
    if (run && matches(filter, run) && (filter.from === undefined || run.createdAt >= filter.from) && (filter.to === undefined || run.createdAt <= filter.to)) return [run]
    return matchingRuns(store, filter)
  }

  async function getRun({ params, query }: ApiCall): Promise<HttpResponse> {
    refuseUnknown(query, ['_token'], 'run')
    const detail = await runDetail(params.id)
    const run = await store.loadRun(params.id)
    if (!detail || !run) return jsonResponse(404, { error: `workflow run ${params.id} not found` })
    const messages = await store.loadMessages(await store.runMessageIds(params.id))
    const logs = await logsOf(store, messages.map((message) => message.id))
    const rows = stepRows({ run, messages, logs, now: Date.now() })
    return jsonResponse(200, { ...detail, rows, dlqId: run.failedMessageId && (await store.inDlq(run.failedMessageId)) ? run.failedMessageId : undefined })
  }

  async function pendingMessages({ query }: ApiCall): Promise<HttpResponse> {
    refuseUnknown(query, ['offset', 'count', '_token'], 'message list')
    const offset = integer(query, 'offset', 0, 0, Number.MAX_SAFE_INTEGER)
    const count = integer(query, 'count', 50, 1, 1000)
    const [ids, total] = await store.executor.pipeline([
      ['ZRANGE', store.dueKey, String(offset), String(offset + count - 1)],
      ['ZCARD', store.dueKey],
    ])
    const messages = await store.loadMessages((ids as Reply[]).map((id) => text(id)!))
    const views = messages.map((message) => ({
      messageId: message.id,
      kind: message.kind,
      state: message.state,
      url: message.url,
      method: message.method,
      dueAt: message.dueAt,
      createdAt: message.createdAt,
      attempts: message.retried,
      maxRetries: message.retries,
      runId: message.runId,
      stepName: message.stepName,
      stepType: message.stepType,
      body: new TextDecoder().decode(message.body).slice(0, 2000),
    }))
    return jsonResponse(200, { messages: views, total: Number(total), offset, count })
  }

  function changes(): HttpResponse {
    const stream = eventStream(async (emit, signal) => {
      // `wake` ends the current wait early: on this process's own queue events, and on abort
      let wake: (() => void) | undefined
      const poke = () => wake?.()
      const unsubscribe = subscribe(poke)
      wakers.add(poke)
      signal.addEventListener('abort', poke, { once: true })
      const state = async () => `${version}|${await fingerprint(store)}`
      try {
        let seen = await state()
        emit(JSON.stringify({ type: 'hello' }))
        while (!signal.aborted) {
          await new Promise<void>((resolve) => {
            const timer = setTimeout(done, STREAM_CHECK_MS)
            function done(): void {
              clearTimeout(timer)
              wake = undefined
              resolve()
            }
            wake = done
          })
          if (signal.aborted) break
          const now = await state()
          if (now !== seen) emit(JSON.stringify({ type: 'change' }))
          seen = now
          // a burst of deliveries is one check per STREAM_MIN_GAP_MS, not one per event
          await new Promise<void>((resolve) => setTimeout(resolve, STREAM_MIN_GAP_MS))
        }
      } finally {
        signal.removeEventListener('abort', poke)
        wakers.delete(poke)
        unsubscribe()
      }
    })
    return { status: 200, headers: { 'content-type': 'text/event-stream', 'cache-control': 'no-store', 'x-accel-buffering': 'no' }, body: stream }
  }

  return {
    routes: [
      { method: 'GET', path: 'dashboard/runs', run: listRuns },
      { method: 'GET', path: 'dashboard/runs/:id', run: getRun },
      { method: 'GET', path: 'dashboard/pending', run: pendingMessages },
      { method: 'GET', path: 'dashboard/stream', run: changes },
    ],
    touch() {
      version++
      for (const wake of wakers) wake()
    },
  }
}
