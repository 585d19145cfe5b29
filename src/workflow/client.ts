/**
 * The endpoint's side of the queue API: schedule messages (`POST /v2/batch`), end a run
 * (`DELETE /v2/workflows/runs/<id>`), fetch a run's steps (`GET /v2/workflows/runs/<id>`), and
 * start a run from code. Works against the restis queue service and the hosted queue alike.
 */
import { randomBytes } from 'node:crypto'
import { QueueRequestError } from './errors.js'
import { DEFAULT_QUEUE_URL } from './constants.js'
import { initMessageHeaders } from './headers.js'
import type { RawStep } from './steps.js'

/** One message for `POST /v2/batch`. @public */
export interface BatchMessage {
  /** Where the queue delivers it. */
  readonly destination: string
  /** Queue headers (`Upstash-*`) and forwarded headers (`Upstash-Forward-*`). */
  readonly headers: Readonly<Record<string, string>>
  readonly body?: string
}

/** The queue's answer for one scheduled message. @public */
export interface BatchResult {
  readonly messageId: string
  readonly url?: string
  /** The message (or run) already existed; nothing new was scheduled. */
  readonly deduplicated?: boolean
}

/**
 * What `serve()` needs from a queue. {@link createQueueClient} builds one over HTTP; tests and
 * embedders can pass their own.
 * @public
 */
export interface QueueClient {
  /** Schedules messages; one result per message, in order. */
  batch(messages: readonly BatchMessage[]): Promise<BatchResult[]>
  /** Ends a run: `result` is what the workflow returned; `cancel` when it was cancelled. */
  deleteRun(workflowRunId: string, result: unknown, cancel: boolean): Promise<void>
  /** The run's raw steps, or `undefined` when the run is unknown or ended (404). */
  getRunSteps(workflowRunId: string): Promise<RawStep[] | undefined>
}

/** Options of {@link createQueueClient}. @public */
export interface QueueClientOptions {
  /** Base URL of the queue, e.g. `http://127.0.0.1:8081`. Default: the hosted queue. */
  readonly url?: string
  /** Bearer token of the queue (`QUEUE_TOKEN`). */
  readonly token: string
  /** Retries of a request that could not reach the queue (network errors only). Default 4. */
  readonly retries?: number
  /** The fetch to use. Default: global `fetch`. */
  readonly fetch?: typeof fetch
}

/** A {@link QueueClient} over HTTP. @public */
export function createQueueClient(options: QueueClientOptions): QueueClient {
  const base = (options.url ?? DEFAULT_QUEUE_URL).replace(/\/+$/, '')
  const doFetch = options.fetch ?? fetch
  const retries = options.retries ?? 4
  const authorization = `Bearer ${options.token}`

  async function request(method: string, path: string, body?: string, headers: Record<string, string> = {}): Promise<Response> {
    let lastError: unknown
    for (let attempt = 0; attempt <= retries; attempt++) {
      try {
        const response = await doFetch(`${base}${path}`, { method, body, headers: { authorization, ...headers } })
        return response
      } catch (error) {
        lastError = error
        if (attempt < retries) await new Promise((resolve) => setTimeout(resolve, 50 * 2 ** attempt))
      }
    }
    throw new QueueRequestError(`queue unreachable at ${base}: ${(lastError as Error)?.message ?? lastError}`, 0, '')
  }

  async function fail(response: Response, what: string): Promise<never> {
    const text = await response.text().catch(() => '')
    throw new QueueRequestError(`${what} failed with status ${response.status}: ${text || response.statusText}`, response.status, text)
  }

  return {
    async batch(messages) {
      const response = await request('POST', '/v2/batch', JSON.stringify(messages), { 'content-type': 'application/json' })
      if (!response.ok) return fail(response, 'scheduling a message (POST /v2/batch)')
      const parsed = (await response.json()) as BatchResult | BatchResult[]
      return Array.isArray(parsed) ? parsed : [parsed]
    },
    async deleteRun(workflowRunId, result, cancel) {
      const body = result === undefined ? undefined : JSON.stringify(result)
      const response = await request('DELETE', `/v2/workflows/runs/${encodeURIComponent(workflowRunId)}?cancel=${cancel}`, body)
      if (!response.ok) return fail(response, `ending run ${workflowRunId}`)
      await response.arrayBuffer()
    },
    async getRunSteps(workflowRunId) {
      const response = await request('GET', `/v2/workflows/runs/${encodeURIComponent(workflowRunId)}`)
      if (response.status === 404) {
        await response.arrayBuffer()
        return undefined
      }
      if (!response.ok) return fail(response, `fetching the steps of run ${workflowRunId}`)
      return (await response.json()) as RawStep[]
    },
  }
}

const NANOID = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_'

/** A new run id: `wfr_` and 21 random characters. @public */
export function newRunId(): string {
  let id = 'wfr_'
  for (const byte of randomBytes(21)) id += NANOID[byte & 63]
  return id
}

/** Options of {@link triggerWorkflow}. @public */
export interface TriggerOptions {
  /** The workflow endpoint's URL. */
  readonly url: string
  /** The start payload: a string as is, anything else as JSON. */
  readonly body?: unknown
  /** Headers the steps see in `context.headers`. */
  readonly headers?: Readonly<Record<string, string>>
  /** Retries per step. Default 3. */
  readonly retries?: number
  /** The run id; default a new `wfr_…`. */
  readonly workflowRunId?: string
  /** Where the queue calls the failure callback; default the workflow URL itself. */
  readonly failureUrl?: string
}

/**
 * Starts a run through the queue, without calling the endpoint: what to use when the endpoint
 * verifies signatures (a direct start request would be unsigned). Like the SDK's `Client.trigger`.
 * @public
 */
export async function triggerWorkflow(queue: QueueClient, options: TriggerOptions): Promise<{ workflowRunId: string }> {
  const workflowRunId = options.workflowRunId ?? newRunId()
  const body = options.body === undefined ? '' : typeof options.body === 'string' ? options.body : JSON.stringify(options.body)
  const headers = initMessageHeaders({
    runId: workflowRunId,
    url: options.url,
    retries: options.retries,
    failureUrl: options.failureUrl ?? options.url,
    forward: new Headers(options.headers ?? {}),
    contentType: new Headers(options.headers ?? {}).get('content-type'),
  })
  await queue.batch([{ destination: options.url, headers, body }])
  return { workflowRunId }
}
