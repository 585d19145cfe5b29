/**
 * The flow-control API of `@upstash/qstash`'s `client.flowControl`: a key's state
 * (`GET /v2/flowControl/<key>`, and `GET /v2/flowControl` for every key), pause and resume of
 * its deliveries, pinned settings that replace the messages' own, a reset of its rate window,
 * and `GET /v2/globalParallelism`.
 *
 * Everything lives in the executor beside the slots of flow-control.ts (the settings hash
 * `flow:<key>:settings`, the key set `flow-keys`), and the delivery script reads it on every
 * slot it hands out, so a pause or a pin made through any queue process holds in all that share
 * the state. A paused key's messages stay pending, spending no attempt, until it is resumed.
 */
import { jsonResponse, type HttpResponse } from '../adapters/http.js'
import type { FlowControl } from './flow-control.js'
import { activeKey, flowKeysKey, settingsKey, startsKey } from './flow-control.js'
import type { ApiCall, Route } from './routes.js'
import { StoreError, text, type QueueStore } from './store.js'
import type { Command, Reply } from '../reply.js'

/** A key's state, in the hosted queue's field names (`FlowControlInfo`). @public */
export interface FlowControlInfo {
  readonly flowControlKey: string
  /** Messages of the key ready to go and held back (by the key's parallelism, rate or pause). */
  readonly waitListSize: number
  /** The parallelism in force (pinned, else the last message's); 0: unlimited. */
  readonly parallelismMax: number
  /** Deliveries of the key in flight now. */
  readonly parallelismCount: number
  /** The rate in force (starts per period); 0: unlimited. */
  readonly rateMax: number
  /** Deliveries started in the current window. */
  readonly rateCount: number
  /** The rate period, seconds. */
  readonly ratePeriod: number
  /** Start of the current window (the oldest start it counts, else now), unix seconds. */
  readonly ratePeriodStart: number
  readonly isPaused: boolean
  readonly isPinnedParallelism: boolean
  readonly isPinnedRate: boolean
}

export interface FlowControlApiDeps {
  readonly store: QueueStore
  /** Look for due work (after a resume). */
  readonly wake: () => void
  /** Deliveries this process makes at once (`concurrency`), reported as the global maximum. */
  readonly concurrency: number
}

const MAX_SETTING = 1_000_000

function bad(message: string): never {
  throw new StoreError(message, 400)
}

function checkKey(key: string): void {
  if (key.trim() === '' || key.length > 1024) bad(`invalid flow-control key ${JSON.stringify(key)}: 1 to 1024 characters`)
}

function positive(name: string, value: string): number {
  const number = Number(value)
  if (!/^\d+$/.test(value) || number < 1 || number > MAX_SETTING) bad(`invalid ${name} ${JSON.stringify(value)}: an integer from 1 to ${MAX_SETTING}`)
  return number
}

const ok = (): HttpResponse => ({ status: 200, headers: {}, body: '' })

function fields(reply: Reply): Map<string, string> {
  const map = new Map<string, string>()
  const list = reply as Reply[]
  for (let i = 0; i + 1 < list.length; i += 2) map.set(text(list[i])!, text(list[i + 1])!)
  return map
}

/** The messages of `key` held back now: pending, and due or sent back to wait for a slot. */
async function waitListSize(store: QueueStore, key: string, now: number): Promise<number> {
  const due = (await store.call(['ZRANGE', store.dueKey, '0', '-1', 'WITHSCORES'])) as Reply[]
  const ids: string[] = []
  const dueAt = new Map<string, number>()
  for (let i = 0; i + 1 < due.length; i += 2) {
    ids.push(text(due[i])!)
    dueAt.set(text(due[i])!, Number(text(due[i + 1])))
  }
  if (ids.length === 0) return 0
  const replies = await store.executor.pipeline(ids.map((id): Command => ['HMGET', store.messageKey(id), 'flowControl', 'state', 'note']))
  let waiting = 0
  replies.forEach((reply, index) => {
    const [flow, state, note] = (reply as Reply[]).map((item) => text(item))
    if (flow === undefined || state !== 'pending' || (JSON.parse(flow) as FlowControl).key !== key) return
    if (dueAt.get(ids[index])! <= now || note?.startsWith('waiting for flow control')) waiting++
  })
  return waiting
}

/** The key's state, or undefined when neither a message nor the API ever used it. */
export async function flowControlInfo(store: QueueStore, key: string, now = Date.now()): Promise<FlowControlInfo | undefined> {
  const [known, settingsReply] = await store.executor.pipeline([
    ['SISMEMBER', flowKeysKey(store), key],
    ['HGETALL', settingsKey(store, key)],
  ])
  if (Number(known) !== 1) return undefined
  const settings = fields(settingsReply)
  const setting = (pinned: string, seen: string): number => Number(settings.get(pinned) ?? settings.get(seen) ?? 0)
  const periodMs = setting('pinPeriod', 'period') || 1000
  const [inFlight, starts, oldest] = await store.executor.pipeline([
    ['ZCOUNT', activeKey(store, key), `(${now}`, '+inf'],
    ['ZCOUNT', startsKey(store, key), `(${now - periodMs}`, '+inf'],
    ['ZRANGEBYSCORE', startsKey(store, key), `(${now - periodMs}`, '+inf', 'LIMIT', '0', '1', 'WITHSCORES'],
  ])
  const oldestStart = (oldest as Reply[]).length === 2 ? Number(text((oldest as Reply[])[1])) : now
  return {
    flowControlKey: key,
    waitListSize: await waitListSize(store, key, now),
    parallelismMax: setting('pinParallelism', 'parallelism'),
    parallelismCount: Number(inFlight),
    rateMax: setting('pinRate', 'rate'),
    rateCount: Number(starts),
    ratePeriod: periodMs / 1000,
    ratePeriodStart: Math.floor(oldestStart / 1000),
    isPaused: settings.get('paused') === '1',
    isPinnedParallelism: settings.has('pinParallelism'),
    isPinnedRate: settings.has('pinRate') || settings.has('pinPeriod'),
  }
}

/** Brings the key's held-back messages forward, so a change of its settings (resume, pin, reset) takes effect at once, in every process. */
async function bringForward(store: QueueStore, key: string, now: number): Promise<void> {
  const due = ((await store.call(['ZRANGEBYSCORE', store.dueKey, String(now), '+inf'])) as Reply[]).map((id) => text(id)!)
  if (due.length === 0) return
  const replies = await store.executor.pipeline(due.map((id): Command => ['HMGET', store.messageKey(id), 'flowControl', 'state', 'note']))
  const forward: Command[] = []
  replies.forEach((reply, index) => {
    const [flow, state, note] = (reply as Reply[]).map((item) => text(item))
    if (flow === undefined || state !== 'pending' || !note?.startsWith('waiting for flow control')) return
    if ((JSON.parse(flow) as FlowControl).key === key) forward.push(['ZADD', store.dueKey, 'XX', String(now), due[index]])
  })
  if (forward.length > 0) await store.multi(forward)
}

export function flowControlRoutes({ store, wake, concurrency }: FlowControlApiDeps): Route[] {
  /** Sets fields of the key's settings (the key becomes known). */
  async function update(key: string, set: Record<string, string>, remove: readonly string[] = []): Promise<void> {
    checkKey(key)
    const commands: Command[] = [['SADD', flowKeysKey(store), key]]
    if (Object.keys(set).length > 0) commands.push(['HSET', settingsKey(store, key), ...Object.entries(set).flat()])
    if (remove.length > 0) commands.push(['HDEL', settingsKey(store, key), ...remove])
    await store.multi(commands)
  }

  async function get({ params }: ApiCall): Promise<HttpResponse> {
    checkKey(params.key)
    const info = await flowControlInfo(store, params.key)
    return info ? jsonResponse(200, info) : jsonResponse(404, { error: `flow-control key ${params.key} not found` })
  }

  async function list(): Promise<HttpResponse> {
    const keys = ((await store.call(['SMEMBERS', flowKeysKey(store)])) as Reply[]).map((key) => text(key)!).sort()
    const infos = await Promise.all(keys.map((key) => flowControlInfo(store, key)))
    return jsonResponse(200, infos.filter((info) => info !== undefined))
  }

  async function pause({ params }: ApiCall): Promise<HttpResponse> {
    await update(params.key, { paused: '1' })
    return ok()
  }

  async function resume({ params }: ApiCall): Promise<HttpResponse> {
    await update(params.key, {}, ['paused'])
    await bringForward(store, params.key, Date.now())
    wake()
    return ok()
  }

  async function pin({ params, query }: ApiCall): Promise<HttpResponse> {
    const set: Record<string, string> = {}
    for (const name of query.keys()) if (name !== '_token' && !['parallelism', 'rate', 'period'].includes(name)) bad(`unknown pin setting ${JSON.stringify(name)} (parallelism, rate, period in seconds)`)
    const parallelism = query.get('parallelism')
    const rate = query.get('rate')
    const period = query.get('period')
    if (parallelism !== null) set.pinParallelism = String(positive('parallelism', parallelism))
    if (rate !== null) set.pinRate = String(positive('rate', rate))
    if (period !== null) set.pinPeriod = String(positive('period', period) * 1000)
    if (Object.keys(set).length === 0) bad('pin needs parallelism, rate or period')
    await update(params.key, set)
    await bringForward(store, params.key, Date.now())
    wake()
    return ok()
  }

  async function unpin({ params, query }: ApiCall): Promise<HttpResponse> {
    for (const name of query.keys()) if (name !== '_token' && !['parallelism', 'rate'].includes(name)) bad(`unknown unpin setting ${JSON.stringify(name)} (parallelism=true, rate=true)`)
    const flag = (name: string): boolean => {
      const value = query.get(name)
      if (value !== null && value !== 'true' && value !== 'false') bad(`invalid ${name} ${JSON.stringify(value)}: true or false`)
      return value === 'true'
    }
    const remove = [...(flag('parallelism') ? ['pinParallelism'] : []), ...(flag('rate') ? ['pinRate', 'pinPeriod'] : [])]
    if (remove.length === 0) bad('unpin needs parallelism=true or rate=true: name what to unpin')
    await update(params.key, {}, remove)
    await bringForward(store, params.key, Date.now())
    wake()
    return ok()
  }

  async function resetRate({ params }: ApiCall): Promise<HttpResponse> {
    checkKey(params.key)
    await store.call(['DEL', startsKey(store, params.key)])
    await bringForward(store, params.key, Date.now())
    wake()
    return ok()
  }

  /** Deliveries in flight across every process (messages being delivered), and this process's cap. */
  async function globalParallelism(): Promise<HttpResponse> {
    const ids = ((await store.call(['ZRANGE', store.dueKey, '0', '-1'])) as Reply[]).map((id) => text(id)!)
    const states = ids.length === 0 ? [] : await store.executor.pipeline(ids.map((id): Command => ['HGET', store.messageKey(id), 'state']))
    const delivering = states.filter((state) => text(state) === 'delivering').length
    return jsonResponse(200, { parallelismMax: concurrency, parallelismCount: delivering })
  }

  return [
    { method: 'GET', path: 'flowControl', run: list },
    { method: 'GET', path: 'flowControl/:key', run: get },
    { method: 'POST', path: 'flowControl/:key/pause', run: pause },
    { method: 'POST', path: 'flowControl/:key/resume', run: resume },
    { method: 'POST', path: 'flowControl/:key/pin', run: pin },
    { method: 'POST', path: 'flowControl/:key/unpin', run: unpin },
    { method: 'POST', path: 'flowControl/:key/resetRate', run: resetRate },
    { method: 'GET', path: 'globalParallelism', run: globalParallelism },
  ]
}
