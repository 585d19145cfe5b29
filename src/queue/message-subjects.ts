/**
 * Messages and dead letters as the list and bulk filters see them (see filters.ts): the
 * message's own fields, what it is for (its `origin`: URL group, schedule, queue, label, the
 * publisher's IP, recorded when it was created) and, for a workflow step, its run's URL,
 * creation time, label and failure callback.
 */
import type { MessageOrigin } from './events.js'
import { callerIpOf, labelsOf, type FilterSubject } from './filters.js'
import { text, type MessageRecord, type MessageState, type QueueStore, type RunRecord } from './store.js'
import type { Reply } from '../reply.js'

/** The hosted queue's failure-callback states (`failureFunctionState`). */
export function callbackState(state: MessageState | undefined): string | undefined {
  if (state === undefined) return undefined
  return { pending: 'CALLBACK_INPROGRESS', delivering: 'CALLBACK_INPROGRESS', delivered: 'CALLBACK_SUCCESS', failed: 'CALLBACK_FAIL', canceled: 'CALLBACK_CANCELED' }[state]
}

/** The origins of `ids` (what each message is for), in order. */
export async function loadOrigins(store: QueueStore, ids: readonly string[]): Promise<MessageOrigin[]> {
  if (ids.length === 0) return []
  const replies = await store.executor.pipeline(ids.map((id) => ['HGET', store.messageKey(id), 'origin']))
  return replies.map((reply) => {
    const origin = text(reply)
    if (origin === undefined) return {}
    try {
      return JSON.parse(origin) as MessageOrigin
    } catch {
      return {}
    }
  })
}

/** One message as the filters see it; `time` is given by the caller (creation, or entry into the DLQ). */
export function messageSubject(message: MessageRecord, origin: MessageOrigin, time: number, run?: RunRecord, callback?: MessageRecord): FilterSubject {
  return {
    time,
    messageId: message.id,
    url: message.url,
    labels: labelsOf(origin.label ?? run?.label),
    callerIp: origin.callerIp,
    flowControlKey: message.flowControl?.key ?? origin.flowControlKey,
    topicName: origin.topicName,
    scheduleId: origin.scheduleId,
    queueName: origin.queueName,
    responseStatus: message.lastStatus,
    workflowRunId: message.runId,
    workflowUrl: run?.url,
    workflowCreatedAt: run?.createdAt,
    failureFunctionState: callbackState(callback?.state),
  }
}

/** The messages of `ids` with their filter subjects (messages that no longer exist are left out). */
export async function subjectsOf(store: QueueStore, ids: readonly string[], times?: ReadonlyMap<string, number>): Promise<{ message: MessageRecord; subject: FilterSubject }[]> {
  const [messages, origins] = await Promise.all([store.loadMessages(ids), loadOrigins(store, ids)])
  const originById = new Map(ids.map((id, index) => [id, origins[index]]))
  const runIds = [...new Set(messages.map((message) => message.runId).filter((id): id is string => id !== undefined))]
  const runs = new Map((await store.loadRuns(runIds)).map((run) => [run.id, run]))
  const callbackIds = [...runs.values()].map((run) => run.failureCallbackMessageId).filter((id): id is string => id !== undefined)
  const callbacks = new Map((await store.loadMessages(callbackIds)).map((callback) => [callback.id, callback]))
  return messages.map((message) => {
    const run = message.runId === undefined ? undefined : runs.get(message.runId)
    const callback = run?.failureCallbackMessageId === undefined ? undefined : callbacks.get(run.failureCallbackMessageId)
    const time = times?.get(message.id) ?? message.createdAt
    return { message, subject: messageSubject(message, originById.get(message.id) ?? {}, time, run, callback) }
  })
}

/** Dead-letter ids, newest first, with the time each entered the list. */
export async function dlqEntries(store: QueueStore): Promise<{ ids: string[]; times: Map<string, number> }> {
  const reply = (await store.call(['ZREVRANGE', store.dlqKey, '0', '-1', 'WITHSCORES'])) as Reply[]
  const ids: string[] = []
  const times = new Map<string, number>()
  for (let i = 0; i + 1 < reply.length; i += 2) {
    const id = text(reply[i])!
    ids.push(id)
    times.set(id, Number(text(reply[i + 1])))
  }
  return { ids, times }
}

/** What a publish request tells about its messages: the publisher's IP and the `Upstash-Label`. */
export function requestOrigin(remoteAddress: string | undefined, headers: Headers): MessageOrigin {
  const callerIp = callerIpOf(remoteAddress)
  const label = headers.get('upstash-label') ?? undefined
  return { ...(callerIp === undefined ? {} : { callerIp }), ...(label === undefined || label === '' ? {} : { label }) }
}
