/**
 * The queue's durable state, kept in any {@link Executor} (the in-memory engine or a real Redis
 * through the socket executor) with ordinary commands: hashes for runs and messages, a sorted set
 * of due times, lists for each run's step records and each message's attempt log. Every change
 * that must be all-or-nothing is one MULTI/EXEC; changes to one run are serialised by a short
 * lock (SET NX PX) so a step is recorded once whichever process receives it.
 *
 * Keys (prefix `restis:queue:` by default):
 * - `due`                 zset  message id → due time (ms); a claimed message is pushed to its lease end
 * - `runs`                zset  run id → creation time
 * - `dlq`                 zset  message id → time it failed for good
 * - `run:<id>`            hash  the run (url, state, retries, failure callback, forwarded headers…)
 * - `run:<id>:records`    list  raw steps `{messageId, body, callType}` in order (the delivery body)
 * - `run:<id>:keys`       hash  step key (`init`, `s:<stepId>`, `p:<targetStep>`, `f`) → message id
 * - `run:<id>:msgs`       list  every message of the run, in order
 * - `msg:<id>`            hash  one message (destination, headers, body, retries, state…)
 * - `msg:<id>:log`        list  attempt log entries (JSON), the last 50
 * - `lock:msg:<id>`       string lease of the process delivering the message
 * - `lock:run:<id>`       string short lock for changes to one run
 * - `credentials`         hash  the CLI's generated token and signing keys (credentials.ts)
 */
import { randomUUID } from 'node:crypto'
import type { Executor } from '../executor/executor.js'
import { isReplyError, type Command, type Reply } from '../reply.js'
import type { CallSettings } from './call.js'
import type { FlowControl } from './flow-control.js'
import type { Redaction } from './redact.js'

/** States of a run, as the hosted queue names them. @public */
export type RunState = 'RUN_STARTED' | 'RUN_SUCCESS' | 'RUN_FAILED' | 'RUN_CANCELED'

/** States of a message. @public */
export type MessageState = 'pending' | 'delivering' | 'delivered' | 'failed' | 'canceled'

/** What a message is for. @public */
export type MessageKind = 'workflow' | 'publish' | 'failure' | 'call' | 'callback' | 'wait'

/** A run as stored. @public */
export interface RunRecord {
  readonly id: string
  readonly url: string
  readonly state: RunState
  readonly createdAt: number
  readonly updatedAt: number
  readonly finishedAt?: number
  readonly retries: number
  /** Explicit failure callback URL from the start message, if any. */
  readonly failureUrl?: string
  /** `Upstash-Failure-Callback-*` headers of the start message, prefix removed. */
  readonly failureHeaders: Record<string, string>
  /** User headers every delivery of the run carries. */
  readonly forward: Record<string, string>
  readonly label?: string
  /** The start payload, base64. */
  readonly sourceBody: string
  readonly initMessageId: string
  /** What the workflow returned (JSON text), once it succeeded. */
  readonly result?: string
  readonly error?: string
  readonly failedMessageId?: string
  readonly failureCallbackMessageId?: string
  /** The parent run and step of an invoked run (JSON, see invoke.ts). */
  readonly invoker?: string
}

/** A message as stored. @public */
export interface MessageRecord {
  readonly id: string
  readonly kind: MessageKind
  readonly runId?: string
  /** Index of the run's record this message delivers. */
  readonly seq?: number
  readonly url: string
  readonly method: string
  /** Headers the destination receives (without the per-attempt ones). */
  readonly headers: Record<string, string>
  readonly body: Uint8Array
  readonly retries: number
  /** Attempts made so far. */
  readonly retried: number
  readonly state: MessageState
  readonly createdAt: number
  readonly dueAt: number
  readonly stepId?: number
  readonly stepName?: string
  readonly stepType?: string
  /** Step keys whose presence means this delivery already did its work. */
  readonly expect: readonly string[]
  readonly lastStatus?: number
  readonly lastError?: string
  /** base64 of the last failed response body (first 64 KiB). */
  readonly lastResponse?: string
  readonly lastResponseHeaders?: Record<string, string[]>
  readonly deliveredAt?: number
  readonly claimedBy?: string
  readonly failureUrl?: string
  readonly failureHeaders?: Record<string, string>
  readonly note?: string
  /** A third-party call's timeout and callback (kind `call`). */
  readonly call?: CallSettings
  /** `Upstash-Retry-Delay`: the expression giving the delay before a retry, ms. */
  readonly retryDelay?: string
  /** `Upstash-Callback`: where the destination's answer is posted after a delivery. */
  readonly callbackUrl?: string
  /** `Upstash-Callback-*` headers, prefix removed. */
  readonly callbackHeaders?: Record<string, string>
  /** `Upstash-Flow-Control-Key` / `-Value`. */
  readonly flowControl?: FlowControl
  /** `Upstash-Timeout`: the bound of one attempt, ms (the service's delivery timeout otherwise). */
  readonly timeoutMs?: number
  /** `Upstash-Redact-Fields`: what API answers must not show. */
  readonly redact?: Redaction
}

/** One entry of a message's attempt log. @public */
export interface AttemptLog {
  readonly attempt: number
  readonly at: number
  readonly durationMs?: number
  /** `delivered`, `retry`, `failed`, `superseded`, `canceled`, `replayed`, `created`, `recovered` (due again after its process stopped mid-delivery). */
  readonly outcome: string
  readonly status?: number
  readonly error?: string
  readonly responseBody?: string
  readonly responseHeaders?: Record<string, string>
  readonly nextAttemptAt?: number
  readonly by?: string
}

/** A change the store refused, with the HTTP status the API answers. */
export class StoreError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message)
    this.name = 'StoreError'
  }
}

const decoder = new TextDecoder()

export function text(reply: Reply): string | undefined {
  if (reply === null || reply === undefined) return undefined
  if (reply instanceof Uint8Array) return decoder.decode(reply)
  if (typeof reply === 'number' || typeof reply === 'bigint') return String(reply)
  if (typeof reply === 'object' && 'text' in (reply as object)) return String((reply as { text: string }).text)
  return undefined
}

function hash(reply: Reply): Map<string, Uint8Array> {
  const map = new Map<string, Uint8Array>()
  if (!Array.isArray(reply)) return map
  for (let i = 0; i + 1 < reply.length; i += 2) map.set(text(reply[i]) ?? '', reply[i + 1] as Uint8Array)
  return map
}

function field(map: Map<string, Uint8Array>, name: string): string | undefined {
  const value = map.get(name)
  return value === undefined ? undefined : decoder.decode(value)
}

function num(map: Map<string, Uint8Array>, name: string): number | undefined {
  const value = field(map, name)
  return value === undefined || value === '' ? undefined : Number(value)
}

function jsonField<T>(map: Map<string, Uint8Array>, name: string, fallback: T): T {
  const value = field(map, name)
  if (value === undefined || value === '') return fallback
  try {
    return JSON.parse(value) as T
  } catch {
    return fallback
  }
}

/** Random id with a prefix: `msg_…`. */
export function randomId(prefix: string): string {
  return `${prefix}_${randomUUID().replaceAll('-', '')}`
}

/** Fields of a new message. */
export interface NewMessage {
  readonly kind: MessageKind
  readonly url: string
  readonly method: string
  readonly headers: Record<string, string>
  readonly body: Uint8Array
  readonly retries: number
  readonly dueAt: number
  readonly stepId?: number
  readonly stepName?: string
  readonly stepType?: string
  readonly expect?: readonly string[]
  readonly failureUrl?: string
  readonly failureHeaders?: Record<string, string>
  readonly call?: CallSettings
  readonly retryDelay?: string
  readonly callbackUrl?: string
  readonly callbackHeaders?: Record<string, string>
  readonly flowControl?: FlowControl
  readonly timeoutMs?: number
  readonly redact?: Redaction
}

/** Fields of a new run. */
export interface NewRun {
  readonly id: string
  readonly url: string
  readonly retries: number
  readonly failureUrl?: string
  readonly failureHeaders: Record<string, string>
  readonly forward: Record<string, string>
  readonly label?: string
  readonly payload: Uint8Array
  /** The parent of an invoked run (JSON). */
  readonly invoker?: string
}

/** Outcome of scheduling a message. */
export interface Scheduled {
  readonly messageId: string
  readonly deduplicated?: boolean
}

/** The queue's state over an executor. */
export class QueueStore {
  readonly prefix: string
  constructor(
    readonly executor: Executor,
    prefix = 'restis:queue:',
  ) {
    this.prefix = prefix
  }

  // ---- keys
  get dueKey(): string {
    return `${this.prefix}due`
  }
  get runsKey(): string {
    return `${this.prefix}runs`
  }
  get dlqKey(): string {
    return `${this.prefix}dlq`
  }
  runKey(id: string): string {
    return `${this.prefix}run:${id}`
  }
  recordsKey(id: string): string {
    return `${this.prefix}run:${id}:records`
  }
  stepKeysKey(id: string): string {
    return `${this.prefix}run:${id}:keys`
  }
  runMessagesKey(id: string): string {
    return `${this.prefix}run:${id}:msgs`
  }
  messageKey(id: string): string {
    return `${this.prefix}msg:${id}`
  }
  logKey(id: string): string {
    return `${this.prefix}msg:${id}:log`
  }
  messageLockKey(id: string): string {
    return `${this.prefix}lock:msg:${id}`
  }
  runLockKey(id: string): string {
    return `${this.prefix}lock:run:${id}`
  }

  // ---- executor helpers
  async call(command: Command): Promise<Reply> {
    const reply = await this.executor.exec(command)
    if (isReplyError(reply)) throw new Error(`queue store: ${String(command[0])} failed: ${reply.message}`)
    return reply
  }

  async multi(commands: Command[]): Promise<Reply[]> {
    const replies = await this.executor.transaction(commands)
    if (isReplyError(replies)) throw new Error(`queue store: transaction failed: ${replies.message}`)
    const failed = replies.find(isReplyError)
    if (failed) throw new Error(`queue store: transaction command failed: ${failed.message}`)
    return replies
  }

  /** Runs `fn` holding the run's lock (SET NX PX with a 10 s safety expiry). */
  async withRunLock<T>(runId: string, fn: () => Promise<T>): Promise<T> {
    const key = this.runLockKey(runId)
    const token = randomUUID()
    const deadline = Date.now() + 15_000
    let wait = 1
    while ((await this.call(['SET', key, token, 'NX', 'PX', '10000'])) === null) {
      if (Date.now() > deadline) throw new StoreError(`run ${runId} is locked by another process`, 503)
      await new Promise((resolve) => setTimeout(resolve, wait))
      wait = Math.min(wait * 2, 50)
    }
    try {
      return await fn()
    } finally {
      if (text(await this.call(['GET', key])) === token) await this.call(['DEL', key])
    }
  }

  private messageFields(id: string, message: NewMessage, extra: Record<string, string>): string[] {
    const fields: Record<string, string> = {
      id,
      kind: message.kind,
      url: message.url,
      method: message.method,
      headers: JSON.stringify(message.headers),
      retries: String(message.retries),
      retried: '0',
      state: 'pending',
      createdAt: String(Date.now()),
      dueAt: String(message.dueAt),
      expect: JSON.stringify(message.expect ?? []),
      ...extra,
    }
    if (message.stepId !== undefined) fields.stepId = String(message.stepId)
    if (message.stepName !== undefined) fields.stepName = message.stepName
    if (message.stepType !== undefined) fields.stepType = message.stepType
    if (message.failureUrl !== undefined) fields.failureUrl = message.failureUrl
    if (message.failureHeaders !== undefined) fields.failureHeaders = JSON.stringify(message.failureHeaders)
    if (message.call !== undefined) fields.call = JSON.stringify(message.call)
    if (message.retryDelay !== undefined) fields.retryDelay = message.retryDelay
    if (message.callbackUrl !== undefined) fields.callbackUrl = message.callbackUrl
    if (message.callbackHeaders !== undefined) fields.callbackHeaders = JSON.stringify(message.callbackHeaders)
    if (message.flowControl !== undefined) fields.flowControl = JSON.stringify(message.flowControl)
    if (message.timeoutMs !== undefined) fields.timeoutMs = String(message.timeoutMs)
    if (message.redact !== undefined) fields.redact = JSON.stringify(message.redact)
    return Object.entries(fields).flat()
  }

  private createCommands(id: string, message: NewMessage, extra: Record<string, string>): Command[] {
    const log: AttemptLog = { attempt: 0, at: Date.now(), outcome: 'created' }
    return [
      ['HSET', this.messageKey(id), ...this.messageFields(id, message, extra), 'body', message.body],
      ['ZADD', this.dueKey, String(message.dueAt), id],
      ['RPUSH', this.logKey(id), JSON.stringify(log)],
    ]
  }

  // ---- scheduling

  /** A plain message (publish, or a batch entry that is not part of a workflow). */
  async addMessage(message: NewMessage, id = randomId('msg')): Promise<Scheduled> {
    await this.multi(this.createCommands(id, message, {}))
    return { messageId: id }
  }

  /** A plain message kept off the due list (a queue's message waiting for its turn, see queues.ts). */
  async addHeldMessage(message: NewMessage): Promise<string> {
    const id = randomId('msg')
    await this.multi(this.createCommands(id, message, {}).filter((command) => command[0] !== 'ZADD'))
    return id
  }

  /** Creates a run and its first message; an existing run id is a duplicate (nothing new). */
  async createRun(run: NewRun, message: NewMessage): Promise<Scheduled> {
    return this.withRunLock(run.id, async () => {
      const existing = await this.call(['HGET', this.runKey(run.id), 'initMessageId'])
      if (existing !== null) return { messageId: text(existing)!, deduplicated: true }
      const id = randomId('msg')
      const now = Date.now()
      const sourceBody = Buffer.from(run.payload).toString('base64')
      const fields: Record<string, string> = {
        id: run.id,
        url: run.url,
        state: 'RUN_STARTED',
        createdAt: String(now),
        updatedAt: String(now),
        retries: String(run.retries),
        failureHeaders: JSON.stringify(run.failureHeaders),
        forward: JSON.stringify(run.forward),
        sourceBody,
        initMessageId: id,
      }
      if (run.failureUrl) fields.failureUrl = run.failureUrl
      if (run.label) fields.label = run.label
      if (run.invoker) fields.invoker = run.invoker
      const record = JSON.stringify({ messageId: id, body: sourceBody, callType: 'step' })
      await this.multi([
        ['HSET', this.runKey(run.id), ...Object.entries(fields).flat()],
        ['ZADD', this.runsKey, String(now), run.id],
        ['HSET', this.stepKeysKey(run.id), 'init', id],
        ['RPUSH', this.recordsKey(run.id), record],
        ['RPUSH', this.runMessagesKey(run.id), id],
        ...this.createCommands(id, message, { runId: run.id, seq: '0' }),
      ])
      return { messageId: id }
    })
  }

  /**
   * Records a step of a running run and schedules its delivery, once per step key: a repeated
   * step (a retried delivery that ran the step again) returns the first message id.
   */
  async appendStep(runId: string, stepKey: string, stepJson: string, message: NewMessage): Promise<Scheduled> {
    return this.withRunLock(runId, async () => {
      const [stateReply, retriesReply] = (await this.call(['HMGET', this.runKey(runId), 'state', 'retries'])) as Reply[]
      const state = text(stateReply)
      if (state === undefined) throw new StoreError(`workflow run ${runId} not found`, 404)
      if (state !== 'RUN_STARTED') throw new StoreError(`workflow run ${runId} is not running (${state})`, 400)
      if (message.retries < 0) message = { ...message, retries: Number(text(retriesReply) ?? 3) }
      const existing = await this.call(['HGET', this.stepKeysKey(runId), stepKey])
      if (existing !== null) return { messageId: text(existing)!, deduplicated: true }
      const seq = Number(await this.call(['LLEN', this.recordsKey(runId)]))
      const id = randomId('msg')
      const record = JSON.stringify({ messageId: id, body: Buffer.from(stepJson, 'utf8').toString('base64'), callType: 'step' })
      await this.multi([
        ['HSET', this.stepKeysKey(runId), stepKey, id],
        ['RPUSH', this.recordsKey(runId), record],
        ['RPUSH', this.runMessagesKey(runId), id],
        ['HSET', this.runKey(runId), 'updatedAt', String(Date.now())],
        ...this.createCommands(id, message, { runId, seq: String(seq) }),
      ])
      return { messageId: id }
    })
  }

  /**
   * Adds a message of a running run that is no step record (a third-party call, its callback),
   * once per `key`: a repeated submission returns the first message id.
   */
  async addRunMessage(runId: string, key: string, message: NewMessage): Promise<Scheduled> {
    return this.withRunLock(runId, async () => {
      const state = text(await this.call(['HGET', this.runKey(runId), 'state']))
      if (state === undefined) throw new StoreError(`workflow run ${runId} not found`, 404)
      if (state !== 'RUN_STARTED') throw new StoreError(`workflow run ${runId} is not running (${state})`, 400)
      const existing = await this.call(['HGET', this.stepKeysKey(runId), key])
      if (existing !== null) return { messageId: text(existing)!, deduplicated: true }
      const id = randomId('msg')
      await this.multi([
        ['HSET', this.stepKeysKey(runId), key, id],
        ['RPUSH', this.runMessagesKey(runId), id],
        ['HSET', this.runKey(runId), 'updatedAt', String(Date.now())],
        ...this.createCommands(id, message, { runId }),
      ])
      return { messageId: id }
    })
  }

  /** Ends a run (the endpoint's DELETE): success, or cancelled. Idempotent once ended. */
  async finishRun(runId: string, cancel: boolean, result: string | undefined): Promise<RunState> {
    return this.withRunLock(runId, async () => {
      const state = text(await this.call(['HGET', this.runKey(runId), 'state'])) as RunState | undefined
      if (state === undefined) throw new StoreError(`workflow run ${runId} not found`, 404)
      if (state !== 'RUN_STARTED' && !(cancel && state === 'RUN_FAILED')) return state
      const next: RunState = cancel ? 'RUN_CANCELED' : 'RUN_SUCCESS'
      const now = String(Date.now())
      const commands: Command[] = [['HSET', this.runKey(runId), 'state', next, 'updatedAt', now, 'finishedAt', now, ...(result === undefined ? [] : ['result', result])]]
      commands.push(...(await this.cancelPendingCommands(runId)))
      await this.multi(commands)
      return next
    })
  }

  /**
   * Commands that take the run's waiting messages off the schedule (not the one being
   * delivered): a message whose next step is already recorded counts as delivered
   * (superseded), any other is cancelled. Each gets a log entry.
   */
  private async cancelPendingCommands(runId: string, keep?: string): Promise<Command[]> {
    const ids = ((await this.call(['LRANGE', this.runMessagesKey(runId), '0', '-1'])) as Reply[]).map((id) => text(id)!)
    const [recorded, ...states] = await this.executor.pipeline([
      ['HKEYS', this.stepKeysKey(runId)],
      ...ids.map((id): Command => ['HMGET', this.messageKey(id), 'state', 'expect', 'retried']),
    ])
    const keys = new Set(((recorded as Reply[]) ?? []).map((key) => text(key)!))
    const commands: Command[] = []
    const now = Date.now()
    ids.forEach((id, index) => {
      const [state, expect, retried] = (states[index] as Reply[]).map((value) => text(value))
      if (id === keep || state !== 'pending') return
      let expected: string[] = []
      try {
        expected = JSON.parse(expect ?? '[]') as string[]
      } catch {
        // no expectations
      }
      const superseded = expected.some((key) => keys.has(key))
      const log: AttemptLog = { attempt: Number(retried ?? 0), at: now, outcome: superseded ? 'superseded' : 'canceled' }
      commands.push(
        ['ZREM', this.dueKey, id],
        superseded
          ? ['HSET', this.messageKey(id), 'state', 'delivered', 'deliveredAt', String(now), 'note', 'superseded: the next step was already recorded']
          : ['HSET', this.messageKey(id), 'state', 'canceled', 'note', 'the run ended'],
        ['RPUSH', this.logKey(id), JSON.stringify(log)],
      )
    })
    return commands
  }

  // ---- delivery

  /** Ids of messages due at `now`, oldest first. */
  async dueIds(now: number, limit: number): Promise<string[]> {
    const reply = (await this.call(['ZRANGEBYSCORE', this.dueKey, '-inf', String(now), 'LIMIT', '0', String(limit)])) as Reply[]
    return reply.map((id) => text(id)!)
  }

  /** The earliest due time, or undefined when nothing is scheduled. */
  async nextDueAt(): Promise<number | undefined> {
    const reply = (await this.call(['ZRANGE', this.dueKey, '0', '0', 'WITHSCORES'])) as Reply[]
    return reply.length === 2 ? Number(text(reply[1])) : undefined
  }

  /**
   * Claims a due message for `leaseMs`: only one process wins (SET NX), and the message's due
   * time moves to the lease end, so a process that dies mid-delivery leaves it to be claimed
   * again once the lease expires.
   */
  async claim(id: string, owner: string, leaseMs: number, now: number): Promise<boolean> {
    const won = await this.call(['SET', this.messageLockKey(id), owner, 'NX', 'PX', String(leaseMs)])
    if (won === null) return false
    const score = await this.call(['ZSCORE', this.dueKey, id])
    if (score === null || Number(text(score)) > now) {
      await this.call(['DEL', this.messageLockKey(id)])
      return false
    }
    await this.multi([
      ['ZADD', this.dueKey, 'XX', String(now + leaseMs), id],
      ['HSET', this.messageKey(id), 'state', 'delivering', 'claimedBy', owner],
    ])
    return true
  }

  async loadMessage(id: string): Promise<MessageRecord | undefined> {
    return toMessage(hash(await this.call(['HGETALL', this.messageKey(id)])))
  }

  async loadRun(id: string): Promise<RunRecord | undefined> {
    return toRun(hash(await this.call(['HGETALL', this.runKey(id)])))
  }

  /** The delivery body of record `seq`: the run's raw steps up to and including it. */
  async deliveryBody(runId: string, seq: number): Promise<string> {
    const records = (await this.call(['LRANGE', this.recordsKey(runId), '0', String(seq)])) as Reply[]
    return `[${records.map((record) => text(record)).join(',')}]`
  }

  /** The run's raw steps (the lazy-fetch answer). */
  async rawSteps(runId: string): Promise<unknown[]> {
    const records = (await this.call(['LRANGE', this.recordsKey(runId), '0', '-1'])) as Reply[]
    return records.map((record) => JSON.parse(text(record)!) as unknown)
  }

  /** Whether any of the step keys is recorded for the run. */
  async hasAnyStep(runId: string, keys: readonly string[]): Promise<boolean> {
    if (keys.length === 0) return false
    const reply = (await this.call(['HMGET', this.stepKeysKey(runId), ...keys])) as Reply[]
    return reply.some((value) => value !== null)
  }

  /**
   * Settles an attempt: updates the message, reschedules it (`dueAt`) or takes it off the
   * schedule, appends the log entry and releases the lease, in one transaction.
   */
  async settle(id: string, fields: Record<string, string>, dueAt: number | undefined, log: AttemptLog, extra: Command[] = []): Promise<void> {
    await this.multi([
      ['HSET', this.messageKey(id), ...Object.entries(fields).flat()],
      dueAt === undefined ? ['ZREM', this.dueKey, id] : ['ZADD', this.dueKey, String(dueAt), id],
      ['RPUSH', this.logKey(id), JSON.stringify(log)],
      ['LTRIM', this.logKey(id), '-50', '-1'],
      ['DEL', this.messageLockKey(id)],
      ...extra,
    ])
  }

  /** Command that puts a message on the dead-letter list. */
  dlqCommand(id: string, at: number): Command {
    return ['ZADD', this.dlqKey, String(at), id]
  }

  /**
   * Marks a run failed and schedules its failure callback once (`message`, unless undefined).
   * Returns false when the run was no longer running.
   */
  async failRun(runId: string, failedMessageId: string, error: string, callback: NewMessage | undefined): Promise<{ failed: boolean; callbackId?: string }> {
    return this.withRunLock(runId, async () => {
      const state = text(await this.call(['HGET', this.runKey(runId), 'state']))
      if (state !== 'RUN_STARTED') return { failed: false }
      const now = String(Date.now())
      const commands: Command[] = [
        ['HSET', this.runKey(runId), 'state', 'RUN_FAILED', 'updatedAt', now, 'finishedAt', now, 'error', error, 'failedMessageId', failedMessageId],
      ]
      let callbackId: string | undefined
      const existing = await this.call(['HGET', this.stepKeysKey(runId), 'f'])
      if (callback && existing === null) {
        callbackId = randomId('msg')
        commands.push(
          ['HSET', this.stepKeysKey(runId), 'f', callbackId],
          ['HSET', this.runKey(runId), 'failureCallbackMessageId', callbackId],
          ['RPUSH', this.runMessagesKey(runId), callbackId],
          ...this.createCommands(callbackId, callback, { runId }),
        )
      }
      commands.push(...(await this.cancelPendingCommands(runId, failedMessageId)))
      await this.multi(commands)
      return { failed: true, callbackId }
    })
  }

  // ---- dead letters

  /** Dead-lettered message ids, newest first. */
  async dlqIds(offset: number, count: number): Promise<string[]> {
    const reply = (await this.call(['ZREVRANGE', this.dlqKey, String(offset), String(offset + count - 1)])) as Reply[]
    return reply.map((id) => text(id)!)
  }

  async inDlq(id: string): Promise<boolean> {
    return (await this.call(['ZSCORE', this.dlqKey, id])) !== null
  }

  /** Removes a message from the dead-letter list (it stays visible in its run). */
  async deleteDlq(id: string): Promise<boolean> {
    return Number(await this.call(['ZREM', this.dlqKey, id])) === 1
  }

  /**
   * Delivers a dead-lettered message again with a fresh retry budget. A workflow message puts
   * its run back to running (its failure callback, if still waiting, is cancelled and may fire
   * again later).
   */
  async replay(id: string): Promise<MessageRecord> {
    const message = await this.loadMessage(id)
    if (!message || !(await this.inDlq(id))) throw new StoreError(`dead letter ${id} not found`, 404)
    const now = Date.now()
    const log: AttemptLog = { attempt: message.retried, at: now, outcome: 'replayed' }
    const requeue: Command[] = [
      ['ZREM', this.dlqKey, id],
      ['HSET', this.messageKey(id), 'state', 'pending', 'retried', '0', 'dueAt', String(now), 'note', 'replayed from the dead-letter list'],
      ['ZADD', this.dueKey, String(now), id],
      ['RPUSH', this.logKey(id), JSON.stringify(log)],
    ]
    if (message.kind === 'workflow' && message.runId) {
      const runId = message.runId
      await this.withRunLock(runId, async () => {
        const run = await this.loadRun(runId)
        if (!run) throw new StoreError(`workflow run ${runId} not found`, 404)
        const commands = [...requeue]
        if (run.state === 'RUN_FAILED') {
          commands.push(['HSET', this.runKey(runId), 'state', 'RUN_STARTED', 'updatedAt', String(now)], ['HDEL', this.runKey(runId), 'finishedAt', 'error', 'failedMessageId'])
          if (run.failureCallbackMessageId) {
            const callback = await this.loadMessage(run.failureCallbackMessageId)
            if (callback?.state === 'pending') {
              commands.push(['ZREM', this.dueKey, callback.id], ['HSET', this.messageKey(callback.id), 'state', 'canceled', 'note', 'the run was replayed'])
            }
            commands.push(['HDEL', this.stepKeysKey(runId), 'f'], ['HDEL', this.runKey(runId), 'failureCallbackMessageId'])
          }
        } else if (run.state !== 'RUN_STARTED') {
          throw new StoreError(`workflow run ${runId} already ended (${run.state}); it cannot be replayed`, 400)
        }
        await this.multi(commands)
      })
    } else await this.multi(requeue)
    return (await this.loadMessage(id))!
  }

  // ---- reading

  /** Run ids, newest first. */
  async runIds(offset: number, count: number): Promise<{ ids: string[]; total: number }> {
    const [ids, total] = await this.executor.pipeline([
      ['ZREVRANGE', this.runsKey, String(offset), String(offset + count - 1)],
      ['ZCARD', this.runsKey],
    ])
    return { ids: (ids as Reply[]).map((id) => text(id)!), total: Number(total) }
  }

  async loadRuns(ids: readonly string[]): Promise<RunRecord[]> {
    const replies = await this.executor.pipeline(ids.map((id) => ['HGETALL', this.runKey(id)]))
    return replies.map((reply) => toRun(hash(reply))).filter((run): run is RunRecord => run !== undefined)
  }

  async runMessageIds(runId: string): Promise<string[]> {
    return ((await this.call(['LRANGE', this.runMessagesKey(runId), '0', '-1'])) as Reply[]).map((id) => text(id)!)
  }

  async loadMessages(ids: readonly string[]): Promise<MessageRecord[]> {
    const replies = await this.executor.pipeline(ids.map((id) => ['HGETALL', this.messageKey(id)]))
    return replies.map((reply) => toMessage(hash(reply))).filter((message): message is MessageRecord => message !== undefined)
  }

  async attemptLog(id: string): Promise<AttemptLog[]> {
    const reply = (await this.call(['LRANGE', this.logKey(id), '0', '-1'])) as Reply[]
    return reply.map((entry) => JSON.parse(text(entry)!) as AttemptLog)
  }

  async stepCounts(runIds: readonly string[]): Promise<number[]> {
    const replies = await this.executor.pipeline(runIds.map((id) => ['LLEN', this.runMessagesKey(id)]))
    return replies.map((reply) => Number(reply))
  }
}

function toRun(map: Map<string, Uint8Array>): RunRecord | undefined {
  const id = field(map, 'id')
  if (id === undefined) return undefined
  return {
    id,
    url: field(map, 'url') ?? '',
    state: (field(map, 'state') ?? 'RUN_STARTED') as RunState,
    createdAt: num(map, 'createdAt') ?? 0,
    updatedAt: num(map, 'updatedAt') ?? 0,
    finishedAt: num(map, 'finishedAt'),
    retries: num(map, 'retries') ?? 3,
    failureUrl: field(map, 'failureUrl'),
    failureHeaders: jsonField(map, 'failureHeaders', {}),
    forward: jsonField(map, 'forward', {}),
    label: field(map, 'label'),
    sourceBody: field(map, 'sourceBody') ?? '',
    initMessageId: field(map, 'initMessageId') ?? '',
    result: field(map, 'result'),
    error: field(map, 'error'),
    failedMessageId: field(map, 'failedMessageId'),
    failureCallbackMessageId: field(map, 'failureCallbackMessageId'),
    invoker: field(map, 'invoker'),
  }
}

function toMessage(map: Map<string, Uint8Array>): MessageRecord | undefined {
  const id = field(map, 'id')
  if (id === undefined) return undefined
  return {
    id,
    kind: (field(map, 'kind') ?? 'publish') as MessageKind,
    runId: field(map, 'runId'),
    seq: num(map, 'seq'),
    url: field(map, 'url') ?? '',
    method: field(map, 'method') ?? 'POST',
    headers: jsonField(map, 'headers', {}),
    body: map.get('body') ?? new Uint8Array(0),
    retries: num(map, 'retries') ?? 3,
    retried: num(map, 'retried') ?? 0,
    state: (field(map, 'state') ?? 'pending') as MessageState,
    createdAt: num(map, 'createdAt') ?? 0,
    dueAt: num(map, 'dueAt') ?? 0,
    stepId: num(map, 'stepId'),
    stepName: field(map, 'stepName'),
    stepType: field(map, 'stepType'),
    expect: jsonField(map, 'expect', []),
    lastStatus: num(map, 'lastStatus'),
    lastError: field(map, 'lastError'),
    lastResponse: field(map, 'lastResponse'),
    lastResponseHeaders: jsonField(map, 'lastResponseHeaders', undefined),
    deliveredAt: num(map, 'deliveredAt'),
    claimedBy: field(map, 'claimedBy'),
    failureUrl: field(map, 'failureUrl'),
    failureHeaders: jsonField(map, 'failureHeaders', undefined),
    note: field(map, 'note'),
    call: jsonField(map, 'call', undefined),
    retryDelay: field(map, 'retryDelay'),
    callbackUrl: field(map, 'callbackUrl'),
    callbackHeaders: jsonField(map, 'callbackHeaders', undefined),
    flowControl: jsonField(map, 'flowControl', undefined),
    timeoutMs: num(map, 'timeoutMs'),
    redact: jsonField(map, 'redact', undefined),
  }
}
