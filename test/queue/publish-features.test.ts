/**
 * Publish features through the real `@upstash/qstash` 2.12.0 client against the local queue:
 * `Upstash-Retry-Delay` expressions, deduplication (id and content-based), success callbacks,
 * `messages.get` / `messages.cancel` (single and bulk), the DLQ's bulk retry and delete, flow
 * control (parallelism and rate) in one process, and refusals of malformed options.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { Client, QstashError } from '@upstash/qstash'
import { hostedBackoff, parseRetryDelay, retryDelayMs } from '../../src/queue/retry-delay.js'
import { listenFetch, startQueue, TOKEN, until, type Listening } from './support.js'
import type { QueueService } from '../../src/queue/index.js'

interface Hit {
  readonly path: string
  readonly body: string
  readonly headers: Headers
  readonly at: number
}

describe('retry-delay expressions', () => {
  test('evaluate with retried, operators, precedence and the documented functions', () => {
    expect(parseRetryDelay('1000 * (1 + retried)')(2)).toBe(3000)
    expect(parseRetryDelay('pow(2, retried) * 1000')(3)).toBe(8000)
    expect(parseRetryDelay('min(86400, exp(2.5 * retried))')(10)).toBe(86400)
    expect(parseRetryDelay('max(10, -retried + 2 * 3 / 2)')(1)).toBe(10)
    expect(parseRetryDelay('sqrt(16) + abs(-1) + floor(1.7) + ceil(1.2) + round(2.5)')(0)).toBe(4 + 1 + 1 + 2 + 3)
    expect(retryDelayMs('1 / 0', 0)).toBe(86_400_000)
    expect(retryDelayMs('sqrt(-1)', 0)).toBe(0)
  })

  test('malformed expressions are refused with the reason', () => {
    expect(() => parseRetryDelay('')).toThrow('empty expression')
    expect(() => parseRetryDelay('pow(2)')).toThrow('pow takes 2 arguments, got 1')
    expect(() => parseRetryDelay('attempts * 10')).toThrow('unknown name "attempts"')
    expect(() => parseRetryDelay('1 +')).toThrow('unexpected end of expression')
    expect(() => parseRetryDelay('(1 + 2')).toThrow('expected ")"')
    expect(() => parseRetryDelay('2 $ 3')).toThrow('unexpected character "$"')
  })

  test('the hosted backoff is min(86400, e^(2.5n)) seconds', () => {
    expect(hostedBackoff(1)).toBe(Math.round(Math.exp(2.5) * 1000))
    expect(hostedBackoff(3)).toBe(Math.round(Math.exp(7.5) * 1000))
    expect(hostedBackoff(5)).toBe(86_400_000)
  })
})

describe('publish features with @upstash/qstash', () => {
  let queue: QueueService & { url: string }
  let target: Listening
  let client: Client
  const hits: Hit[] = []
  /** Paths answered 500 until the given number of hits. */
  const failFirst = new Map<string, number>()
  /** Paths held open for ms, to observe concurrency. */
  const holdMs = new Map<string, number>()
  let inFlight = new Map<string, number>()
  const maxInFlight = new Map<string, number>()

  beforeAll(async () => {
    queue = await startQueue()
    target = await listenFetch(async (request) => {
      const path = new URL(request.url).pathname
      const prefix = path.split('/')[1]
      hits.push({ path, body: await request.text(), headers: request.headers, at: Date.now() })
      const now = (inFlight.get(prefix) ?? 0) + 1
      inFlight.set(prefix, now)
      maxInFlight.set(prefix, Math.max(maxInFlight.get(prefix) ?? 0, now))
      try {
        const hold = holdMs.get(prefix)
        if (hold) await new Promise((resolve) => setTimeout(resolve, hold))
        const failures = failFirst.get(path) ?? 0
        if (hits.filter((hit) => hit.path === path).length <= failures) return new Response('not yet', { status: 500 })
        return new Response(JSON.stringify({ handled: path }), { headers: { 'content-type': 'application/json', 'x-answer': 'yes' } })
      } finally {
        inFlight.set(prefix, (inFlight.get(prefix) ?? 1) - 1)
      }
    })
    client = new Client({ baseUrl: queue.url, token: TOKEN, retry: false })
  })
  afterAll(async () => {
    await target.close()
    await queue.close()
  })

  const hitsOf = (path: string): Hit[] => hits.filter((hit) => hit.path === path)
  /** The queue's state of a message (a field the local queue adds to the hosted shape). */
  const stateOf = async (id: string): Promise<unknown> => ((await client.messages.get(id)) as { state?: unknown }).state

  test('Upstash-Retry-Delay spaces the retries by the expression, with retried counting from 0', async () => {
    failFirst.set('/retry-delay', 2)
    await client.publish({ url: `${target.url}/retry-delay`, body: 'x', retries: 3, retryDelay: '300 + 200 * retried' })
    const got = await until(() => (hitsOf('/retry-delay').length === 3 ? hitsOf('/retry-delay') : undefined))
    expect(got.map((hit) => hit.headers.get('upstash-retried'))).toEqual(['0', '1', '2'])
    expect(got[1].at - got[0].at).toBeGreaterThanOrEqual(290)
    expect(got[2].at - got[1].at).toBeGreaterThanOrEqual(490)
  })

  test('a malformed retry delay is refused and the SDK throws the reason', async () => {
    const attempt = client.publish({ url: `${target.url}/never`, body: 'x', retryDelay: 'pow(2' })
    await expect(attempt).rejects.toThrow(QstashError)
    await expect(client.publish({ url: `${target.url}/never`, body: 'x', retryDelay: 'later' })).rejects.toThrow(/invalid Upstash-Retry-Delay .*later.*: unknown name/)
  })

  test('a deduplication id schedules once and answers the duplicate with the same message id', async () => {
    const first = await client.publish({ url: `${target.url}/dedup-id`, body: 'a', deduplicationId: 'order-1' })
    const second = await client.publish({ url: `${target.url}/dedup-id`, body: 'b', deduplicationId: 'order-1' })
    const other = await client.publish({ url: `${target.url}/dedup-id`, body: 'c', deduplicationId: 'order-2' })
    expect(first).toEqual({ messageId: expect.stringMatching(/^msg_/), url: `${target.url}/dedup-id` })
    expect(second).toEqual({ messageId: first.messageId, url: `${target.url}/dedup-id`, deduplicated: true })
    expect(other.messageId).not.toBe(first.messageId)
    await until(() => (hitsOf('/dedup-id').length === 2 ? true : undefined))
    expect(hitsOf('/dedup-id').map((hit) => hit.body).sort()).toEqual(['a', 'c'])
  })

  test('content-based deduplication: same destination, headers and body is one message', async () => {
    const publish = (body: string) => client.publish({ url: `${target.url}/dedup-content`, body, contentBasedDeduplication: true, headers: { 'x-tenant': 't1' } })
    const first = await publish('same')
    const again = await publish('same')
    const different = await publish('different')
    expect(again).toMatchObject({ messageId: first.messageId, deduplicated: true })
    expect(different.deduplicated).toBeUndefined()
    const sameWithOtherHeader = await client.publish({ url: `${target.url}/dedup-content`, body: 'same', contentBasedDeduplication: true, headers: { 'x-tenant': 't2' } })
    expect(sameWithOtherHeader.deduplicated).toBeUndefined()
  })

  test('a delivered message calls its callback with the answer', async () => {
    const callbacks: { body: string; headers: Headers }[] = []
    const recorder = await listenFetch(async (request) => {
      callbacks.push({ body: await request.text(), headers: request.headers })
      return new Response('ok')
    })
    try {
      const { messageId } = await client.publish({ url: `${target.url}/with-callback`, body: 'payload', callback: `${recorder.url}/done`, headers: { 'Upstash-Callback-Forward-X-Trace': 'cb-1' } })
      const [callback] = await until(() => (callbacks.length > 0 ? callbacks : undefined))
      const body = JSON.parse(callback.body) as Record<string, unknown>
      expect(body).toMatchObject({ status: 200, sourceMessageId: messageId, url: `${target.url}/with-callback`, method: 'POST', retried: 0, sourceBody: Buffer.from('payload').toString('base64') })
      expect(Buffer.from(body.body as string, 'base64').toString()).toBe('{"handled":"/with-callback"}')
      expect((body.header as Record<string, string[]>)['x-answer']).toEqual(['yes'])
      expect(callback.headers.get('x-trace')).toBe('cb-1')
      expect(callback.headers.get('upstash-signature')).toBeTruthy()
    } finally {
      await recorder.close()
    }
  })

  test('unknown Upstash-Callback-* options and a callback that is not a URL are refused', async () => {
    await expect(client.publish({ url: `${target.url}/never`, body: 'x', callback: 'not a url' })).rejects.toThrow(/invalid Upstash-Callback .*not a url.*an absolute http\(s\) URL is required/)
    await expect(client.publish({ url: `${target.url}/never`, body: 'x', callback: `${target.url}/cb`, headers: { 'Upstash-Callback-Delay': '10s' } })).rejects.toThrow('Upstash-Callback-delay is not supported')
  })

  test('messages.get shows a delayed message and messages.cancel cancels it before delivery', async () => {
    const { messageId } = await client.publish({ url: `${target.url}/delayed`, body: 'later', delay: 60, retryDelay: '1000', flowControl: { key: 'shown', parallelism: 3 } })
    const message = await client.messages.get(messageId)
    expect(message).toMatchObject({ messageId, url: `${target.url}/delayed`, method: 'POST', body: 'later', maxRetries: 3, retryDelayExpression: '1000', flowControlKey: 'shown', parallelism: 3 })
    expect(message.notBefore).toBeGreaterThan(Date.now() + 50_000)
    expect(await client.messages.cancel(messageId)).toEqual({ cancelled: 1 })
    expect(await client.messages.get(messageId)).toMatchObject({ state: 'canceled' })
    await expect(client.messages.cancel(messageId)).rejects.toThrow(`message ${messageId} not found or no longer pending`)
    await expect(client.messages.get('msg_missing')).rejects.toThrow('message msg_missing not found')
    expect(hitsOf('/delayed')).toEqual([])
  })

  test('bulk cancel: by ids, and by url filter; filters the cancel does not take are refused', async () => {
    const ids = await Promise.all([1, 2, 3].map((n) => client.publish({ url: `${target.url}/bulk-${n % 2}`, body: String(n), delay: 60 })))
    expect(await client.messages.cancel([ids[0].messageId])).toEqual({ cancelled: 1 })
    expect(await client.messages.cancel({ filter: { url: `${target.url}/bulk-1` } })).toEqual({ cancelled: 1 })
    expect(await stateOf(ids[2].messageId)).toBe('canceled')
    expect(await stateOf(ids[1].messageId)).toBe('pending')
    expect(await client.messages.cancel({ filter: { label: 'x' } })).toEqual({ cancelled: 0 })
    await expect(client.messages.cancel({ filter: { responseStatus: 500 } as never })).rejects.toThrow(/filter responseStatus is not supported on the bulk message cancel/)
    expect(await client.messages.cancel({ all: true })).toMatchObject({ cancelled: expect.any(Number) })
    expect(await stateOf(ids[1].messageId)).toBe('canceled')
  })

  test('dlq.retry and dlq.delete act on several dead letters', async () => {
    failFirst.set('/dead-a', 1)
    failFirst.set('/dead-b', 1)
    failFirst.set('/dead-c', 100)
    const published = await Promise.all(['a', 'b', 'c'].map((name) => client.publish({ url: `${target.url}/dead-${name}`, body: name, retries: 0 })))
    const ids = published.map((entry) => entry.messageId)
    await until(async () => {
      const { messages } = await client.dlq.listMessages()
      return ids.every((id) => messages.some((letter) => letter.dlqId === id)) ? true : undefined
    })
    const retried = await client.dlq.retry([ids[0], ids[1]])
    expect(retried.responses).toEqual([{ messageId: ids[0] }, { messageId: ids[1] }])
    await until(() => (hitsOf('/dead-a').length === 2 && hitsOf('/dead-b').length === 2 ? true : undefined))
    expect(await client.dlq.deleteMany({ dlqIds: [ids[2]] })).toEqual({ deleted: 1 })
    const { messages } = await client.dlq.listMessages()
    expect(messages.map((letter) => letter.dlqId)).not.toContain(ids[2])
    await expect(client.dlq.retry(['msg_missing'])).rejects.toThrow('dead letter msg_missing not found')
  })

  test('dlq.delete({ all: true }) empties the list', async () => {
    failFirst.set('/dead-all', 100)
    await Promise.all([1, 2].map((n) => client.publish({ url: `${target.url}/dead-all`, body: String(n), retries: 0 })))
    await until(async () => ((await client.dlq.listMessages()).messages.length >= 2 ? true : undefined))
    const { deleted } = await client.dlq.delete({ all: true })
    expect(deleted).toBeGreaterThanOrEqual(2)
    expect((await client.dlq.listMessages()).messages).toEqual([])
  })

  test('flow control: parallelism is never exceeded', async () => {
    holdMs.set('par', 80)
    await Promise.all([1, 2, 3, 4, 5, 6].map((n) => client.publish({ url: `${target.url}/par/${n}`, body: String(n), flowControl: { key: 'par-key', parallelism: 2 } })))
    await until(() => (hits.filter((hit) => hit.path.startsWith('/par/')).length === 6 ? true : undefined))
    expect(maxInFlight.get('par')).toBe(2)
  })

  test('flow control: rate per period is respected', async () => {
    await Promise.all([1, 2, 3, 4].map((n) => client.publish({ url: `${target.url}/rate/${n}`, body: String(n), flowControl: { key: 'rate-key', rate: 2, period: '1s' } })))
    const got = await until(() => {
      const list = hits.filter((hit) => hit.path.startsWith('/rate/'))
      return list.length === 4 ? list : undefined
    }, 5000)
    const starts = got.map((hit) => hit.at).sort((a, b) => a - b)
    // any two deliveries two apart started one period apart; measured at the target, so a
    // request that opened a connection arrives a few ms after the queue started it
    expect(starts[2] - starts[0]).toBeGreaterThanOrEqual(950)
    expect(starts[3] - starts[1]).toBeGreaterThanOrEqual(950)
    expect(starts[1] - starts[0]).toBeLessThan(500)
  })

  test('malformed flow control is refused with the reason', async () => {
    const publish = (value: string) =>
      fetch(`${queue.url}/v2/publish/${target.url}/never`, { method: 'POST', body: 'x', headers: { authorization: `Bearer ${TOKEN}`, 'Upstash-Flow-Control-Key': 'k', 'Upstash-Flow-Control-Value': value } })
    const answers = await Promise.all(['parallelism=0', 'rate=2, period=soon', 'burst=3', ''].map(async (value) => (await (await publish(value)).json()) as { error: string }))
    expect(answers.map((answer) => answer.error)).toEqual([
      'invalid Upstash-Flow-Control-Value parallelism "0": a positive integer',
      'invalid Upstash-Flow-Control-Value period "soon": a positive duration such as 1s, 30s, 1m, 1h, 1d',
      'invalid Upstash-Flow-Control-Value: unknown setting "burst" (parallelism, rate, period)',
      'Upstash-Flow-Control-Key needs a Upstash-Flow-Control-Value (parallelism=<n>, rate=<n>, period=<duration>)',
    ])
    expect(hitsOf('/never')).toEqual([])
  })
})
