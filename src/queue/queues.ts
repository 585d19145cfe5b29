/**
 * Queues (`/v2/queues…`, `/v2/enqueue/<queue>/<destination>`): named FIFO lanes with a
 * parallelism. An enqueued message is stored off the due list and waits in its queue; a
 * dispatcher lets messages onto the due list in order while fewer than `parallelism` of the
 * queue's messages are unfinished (delivering, or waiting for a retry), and not at all while the
 * queue is paused. Enqueueing to a queue that does not exist creates it with parallelism 1, as
 * the hosted queue does.
 *
 * Which messages are unfinished is read from the messages' own state, so the count holds across
 * processes and restarts; a short per-queue lock keeps two processes from dispatching at once.
 *
 * Keys (below the store's prefix):
 * - `queues`                 zset  queue name → creation time
 * - `queue:<name>`           hash  parallelism, paused, createdAt, updatedAt
 * - `queue:<name>:waiting`   list  message ids in order, not yet let through
 * - `queue:<name>:active`    set   message ids let through and not yet finished
 * - `lock:queue:<name>`      string  the process dispatching the queue
 */
import { randomUUID } from 'node:crypto'
import { jsonResponse, type HttpResponse } from '../adapters/http.js'
import type { ApiCall, Route } from './routes.js'
import { StoreError, type NewMessage, type QueueStore } from './store.js'

/** A queue in API answers (the hosted queue's field names). @public */
export interface QueueView {
  readonly name: string
  readonly parallelism: number
  /** Messages waiting for their turn. */
  readonly lag: number
  readonly paused: boolean
  readonly createdAt: number
  readonly updatedAt: number
}

export const QUEUE_NAME = /^[A-Za-z0-9_.-]{1,256}$/
const MAX_PARALLELISM = 1000
const FINISHED = new Set(['delivered', 'failed', 'canceled'])
const decoder = new TextDecoder()

function bad(message: string): never {
  throw new StoreError(message, 400)
}

export class Queues {
  private timer: ReturnType<typeof setInterval> | undefined
  private dispatching: Promise<void> | undefined
  private again = false

  constructor(
    private readonly store: QueueStore,
    private readonly wake: () => void,
    private readonly onError: (error: unknown) => void,
  ) {}

  private key(name: string): string {
    return `${this.store.prefix}queue:${name}`
  }
  private get listKey(): string {
    return `${this.store.prefix}queues`
  }

  /** Dispatches every `interval` ms (messages finished by other processes free their slots). */
  start(interval: number): void {
    if (this.timer) return
    this.timer = setInterval(() => void this.dispatch(), interval)
    this.timer.unref?.()
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer)
    this.timer = undefined
    await this.dispatching
  }

  /** Lets waiting messages through where slots are free (one pass at a time; a call meanwhile runs another). */
  dispatch(): Promise<void> {
    if (this.dispatching) {
      this.again = true
      return this.dispatching
    }
    this.dispatching = (async () => {
      do {
        this.again = false
        const names = ((await this.store.call(['ZRANGE', this.listKey, '0', '-1'])) as Uint8Array[]).map((name) => decoder.decode(name))
        for (const name of names) await this.dispatchQueue(name)
      } while (this.again)
    })()
      .catch(this.onError)
      .finally(() => (this.dispatching = undefined))
    return this.dispatching
  }

  private async dispatchQueue(name: string): Promise<void> {
    const queue = await this.get(name)
    if (!queue || queue.paused || queue.lag === 0) return
    const lock = `${this.store.prefix}lock:queue:${name}`
    const token = randomUUID()
    if ((await this.store.call(['SET', lock, token, 'NX', 'PX', '10000'])) === null) return
    try {
      const active = ((await this.store.call(['SMEMBERS', `${this.key(name)}:active`])) as Uint8Array[]).map((id) => decoder.decode(id))
      let running = 0
      for (const id of active) {
        const state = (await this.store.call(['HGET', this.store.messageKey(id), 'state'])) as Uint8Array | null
        if (state === null || FINISHED.has(decoder.decode(state))) await this.store.call(['SREM', `${this.key(name)}:active`, id])
        else running++
      }
      let released = false
      for (; running < queue.parallelism; running++) {
        const next = (await this.store.call(['LPOP', `${this.key(name)}:waiting`])) as Uint8Array | null
        if (next === null) break
        const id = decoder.decode(next)
        const dueAt = Number(decoder.decode(((await this.store.call(['HGET', this.store.messageKey(id), 'dueAt'])) as Uint8Array | null) ?? new Uint8Array(0))) || Date.now()
        await this.store.multi([
          ['SADD', `${this.key(name)}:active`, id],
          ['ZADD', this.store.dueKey, String(Math.max(dueAt, Date.now())), id],
        ])
        released = true
      }
      if (released) this.wake()
    } finally {
      if (decoder.decode(((await this.store.call(['GET', lock])) as Uint8Array | null) ?? new Uint8Array(0)) === token) await this.store.call(['DEL', lock])
    }
  }

  /** The queue named `name`, or undefined. */
  async get(name: string): Promise<QueueView | undefined> {
    const [parallelism, paused, createdAt, updatedAt] = (await this.store.call(['HMGET', this.key(name), 'parallelism', 'paused', 'createdAt', 'updatedAt'])) as (Uint8Array | null)[]
    if (parallelism === null) return undefined
    const lag = Number(await this.store.call(['LLEN', `${this.key(name)}:waiting`]))
    const number = (value: Uint8Array | null): number => Number(decoder.decode(value ?? new Uint8Array(0)))
    return { name, parallelism: number(parallelism), lag, paused: decoder.decode(paused ?? new Uint8Array(0)) === '1', createdAt: number(createdAt), updatedAt: number(updatedAt) }
  }

  private async upsert(name: string, parallelism: number, paused: boolean): Promise<void> {
    if (!QUEUE_NAME.test(name)) bad(`invalid queue name ${JSON.stringify(name)}: letters, digits, "-", "_" and "." only`)
    if (!Number.isInteger(parallelism) || parallelism < 1 || parallelism > MAX_PARALLELISM) bad(`invalid parallelism ${JSON.stringify(parallelism)}: an integer from 1 to ${MAX_PARALLELISM}`)
    const now = Date.now()
    const createdAt = (await this.get(name))?.createdAt ?? now
    await this.store.multi([
      ['HSET', this.key(name), 'parallelism', String(parallelism), 'paused', paused ? '1' : '0', 'createdAt', String(createdAt), 'updatedAt', String(now)],
      ['ZADD', this.listKey, String(createdAt), name],
    ])
  }

  /** Stores `message` at the end of queue `name` (created with parallelism 1 if new); returns its id. Call {@link dispatch} after. */
  async enqueue(name: string, message: NewMessage): Promise<string> {
    if (!(await this.get(name))) await this.upsert(name, 1, false)
    const id = await this.store.addHeldMessage(message)
    await this.store.call(['RPUSH', `${this.key(name)}:waiting`, id])
    // the caller dispatches once it has noted the message (its event log entry comes first)
    return id
  }

  // ---- API handlers

  private async create({ request }: ApiCall): Promise<HttpResponse> {
    let parsed: { queueName?: unknown; parallelism?: unknown; paused?: unknown }
    try {
      parsed = JSON.parse(decoder.decode(request.body ?? new Uint8Array(0))) as typeof parsed
    } catch {
      bad('the body must be JSON {"queueName": "…", "parallelism": 1, "paused": false}')
    }
    if (typeof parsed.queueName !== 'string') bad('"queueName" (a string) is required')
    if (parsed.paused !== undefined && typeof parsed.paused !== 'boolean') bad('"paused" must be true or false')
    await this.upsert(parsed.queueName, parsed.parallelism === undefined ? 1 : (parsed.parallelism as number), parsed.paused === true)
    void this.dispatch()
    return { status: 200, headers: {}, body: '' }
  }

  private async required(name: string): Promise<QueueView> {
    const queue = await this.get(name)
    if (!queue) throw new StoreError(`queue ${name} not found`, 404)
    return queue
  }

  private async list(): Promise<HttpResponse> {
    const names = ((await this.store.call(['ZRANGE', this.listKey, '0', '-1'])) as Uint8Array[]).map((name) => decoder.decode(name))
    const queues = await Promise.all(names.map((name) => this.get(name)))
    return jsonResponse(200, queues.filter((queue) => queue !== undefined))
  }

  private async setPaused(name: string, paused: boolean): Promise<HttpResponse> {
    await this.required(name)
    await this.store.call(['HSET', this.key(name), 'paused', paused ? '1' : '0', 'updatedAt', String(Date.now())])
    if (!paused) void this.dispatch()
    return { status: 200, headers: {}, body: '' }
  }

  /** Deletes the queue; its waiting messages are canceled (those already let through finish). */
  private async remove({ params }: ApiCall): Promise<HttpResponse> {
    await this.required(params.name)
    const waiting = ((await this.store.call(['LRANGE', `${this.key(params.name)}:waiting`, '0', '-1'])) as Uint8Array[]).map((id) => decoder.decode(id))
    await this.store.multi([
      ...waiting.map((id) => ['HSET', this.store.messageKey(id), 'state', 'canceled', 'note', `queue ${params.name} was deleted`]),
      ['DEL', this.key(params.name), `${this.key(params.name)}:waiting`, `${this.key(params.name)}:active`],
      ['ZREM', this.listKey, params.name],
    ])
    return { status: 200, headers: {}, body: '' }
  }

  /** The routes below `/v2/` (enqueueing is the service's: it plans the message). */
  routes(): Route[] {
    return [
      { method: 'POST', path: 'queues', run: (call) => this.create(call) },
      { method: 'GET', path: 'queues', run: () => this.list() },
      { method: 'GET', path: 'queues/:name', run: async ({ params }) => jsonResponse(200, await this.required(params.name)) },
      { method: 'DELETE', path: 'queues/:name', run: (call) => this.remove(call) },
      { method: 'POST', path: 'queues/:name/pause', run: ({ params }) => this.setPaused(params.name, true) },
      { method: 'POST', path: 'queues/:name/resume', run: ({ params }) => this.setPaused(params.name, false) },
    ]
  }
}
