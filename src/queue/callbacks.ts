/**
 * `Upstash-Callback`: after a message is delivered (a 2xx answer), the queue posts the
 * destination's answer to the callback URL, as the hosted queue does: a JSON body `{status,
 * header, body (base64 of the answer), retried, maxRetries, sourceMessageId, url, method,
 * sourceHeader, sourceBody (base64), notBefore, createdAt, …}`. The callback is a message of its
 * own (signed, retried, dead-lettered like any other); `Upstash-Callback-Forward-X` headers reach
 * it as `X`, `Upstash-Callback-Retries` and `-Method` configure it.
 */
import type { MessageRecord, NewMessage } from './store.js'

/** The destination's successful answer. */
export interface DeliveredAnswer {
  readonly status: number
  readonly header: Record<string, string[]>
  readonly body: string
}

/**
 * The headers of the message a callback reports on, as callback bodies of every kind show them
 * (`sourceHeader`): each name with the list of its values.
 */
export function sourceHeaderOf(message: MessageRecord): Record<string, string[]> {
  const sourceHeader: Record<string, string[]> = {}
  for (const [name, value] of Object.entries(message.headers)) sourceHeader[name] = [value]
  return sourceHeader
}

export function callbackBody(message: MessageRecord, answer: DeliveredAnswer, retried: number): string {
  return JSON.stringify({
    status: answer.status,
    header: answer.header,
    body: Buffer.from(answer.body, 'utf8').toString('base64'),
    retried,
    maxRetries: message.retries,
    sourceMessageId: message.id,
    topicName: '',
    endpointName: '',
    url: message.url,
    method: message.method,
    sourceHeader: sourceHeaderOf(message),
    sourceBody: Buffer.from(message.body).toString('base64'),
    notBefore: message.dueAt,
    createdAt: message.createdAt,
    scheduleId: '',
    callerIP: '',
  })
}

/** The callback message for a delivered message, or undefined when it has no callback URL. */
export function callbackMessage(message: MessageRecord, answer: DeliveredAnswer, retried: number, defaultRetries: number): NewMessage | undefined {
  if (message.callbackUrl === undefined) return undefined
  const headers: Record<string, string> = { 'content-type': 'application/json' }
  let retries = defaultRetries
  let method = 'POST'
  for (const [name, value] of Object.entries(message.callbackHeaders ?? {})) {
    if (name.startsWith('forward-')) headers[name.slice('forward-'.length)] = value
    else if (name === 'retries') retries = Number(value)
    else if (name === 'method') method = value.toUpperCase()
  }
  return {
    kind: 'publish',
    url: message.callbackUrl,
    method,
    headers,
    body: Buffer.from(callbackBody(message, answer, retried), 'utf8'),
    retries: Number.isInteger(retries) && retries >= 0 ? retries : defaultRetries,
    dueAt: Date.now(),
    stepName: 'callback',
    stepType: 'Callback',
  }
}
