/**
 * The endpoint's side of the queue API: schedule messages (`POST /v2/batch`), end a run
 * (`DELETE /v2/workflows/runs/<id>`), fetch a run's steps (`GET /v2/workflows/runs/<id>`), and
 * start a run from code. Works against the restis queue service and the hosted queue alike.
 */
import { randomBytes } from 'node:crypto'
import { QueueRequestError } from './errors.js'
import { DEFAULT_QUEUE_URL, RUN_ID_HEADER } from './constants.js'
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
 * The body of `POST /v2/wait/<eventId>`: the step that waits, where the run resumes, how long it waits.
 * @public
 */
export interface WaitRequest {
  /** The workflow URL the run resumes at. */
  readonly url: string
  /** How long the run waits, e.g. `"30s"`, `"7d"`. */
  readonly timeout: string
  /** Where the run resumes when nobody notified it in time (the workflow URL). */
  readonly timeoutUrl?: string
  /** Headers of the resuming delivery after a timeout. */
  readonly timeoutHeaders?: Readonly<Record<string, readonly string[]>>
  /** The wait step: its id (or, in a parallel group, its targetStep), name, type and group size. */
  readonly step: { readonly stepId: number; readonly stepName: string; readonly stepType: string; readonly concurrent: number; readonly targetStep?: number }
}

/** A run waiting for an event, as the queue reports it. @public */
export interface Waiter {
  /** The workflow URL the run resumes at. */
  readonly url: string
  /** When the wait times out, unix seconds. */
  readonly deadline: number
  readonly headers?: Readonly<Record<string, readonly string[]>>
  readonly timeoutUrl?: string
  readonly timeoutHeaders?: Readonly<Record<string, readonly string[]>>
}

/** One notified waiter in the answer of a notification. @public */
export interface NotifyResult {
  readonly waiter: Waiter
  /** The message that resumes the run. */
  readonly messageId: string
  /** Why the run could not be resumed (it ended meanwhile); empty when it was. */
  readonly error: string
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
  /**
   * Registers a run as waiting for `eventId` (`POST /v2/wait/<eventId>`). Needed by
   * `context.waitForEvent`; a client without it makes that step fail with a clear error.
   */
  wait?(eventId: string, workflowRunId: string, request: WaitRequest, headers: Readonly<Record<string, string>>): Promise<void>
  /**
   * Notifies the runs waiting for `eventId` (only `workflowRunId`'s when given) with `eventData`
   * (`POST /v2/notify/…`). Needed by `context.notify`.
   */
  notify?(eventId: string, eventData: unknown, workflowRunId?: string): Promise<NotifyResult[]>
}

/** A run as {@link WorkflowClient.listRuns} and {@link WorkflowClient.getRun} report it. @public */
export interface WorkflowRunSummary {
  readonly workflowRunId: string
  /** The workflow endpoint. */
  readonly url: string
  /** `RUN_STARTED`, `RUN_SUCCESS`, `RUN_FAILED` or `RUN_CANCELED`. */
  readonly state: string
  /** ms since the epoch. */
  readonly createdAt: number
  readonly updatedAt: number
  readonly finishedAt?: number
  /** The start payload, as text. */
  readonly payload: string
  /** What the workflow returned (JSON text), once it succeeded. */
  readonly result?: string
  /** Why the run failed. */
  readonly error?: string
}

/** One message of a run (its start, a step, a call, a wait, a failure callback). @public */
export interface WorkflowRunStep {
  readonly messageId: string
  /** The step's position in the run, when the message is a step. */
  readonly stepId?: number
  readonly stepName: string
  /** `Initial`, `Run`, `SleepFor`, `Call`, `Wait for <event>`, `Invoke` … */
  readonly stepType: string
  /** The message's state: `scheduled`, `delivered`, `failed`, `canceled` … */
  readonly status: string
  /** Attempts made so far. */
  readonly attempts: number
  /** The message body as text (a step record's JSON for a step). */
  readonly body: string
  readonly lastError?: string
}

/** A page of runs, newest first. @public */
export interface WorkflowRunPage {
  readonly runs: readonly WorkflowRunSummary[]
  /** How many runs the queue keeps in all. */
  readonly total: number
}

/** Options of {@link WorkflowClient.trigger}. @public */
export type WorkflowTriggerOptions = TriggerOptions

/**
 * A client of the queue's workflow API: what `serve()` needs, and what an application uses to
 * start, cancel, notify and inspect runs. Built by {@link createQueueClient}.
 * @public
 */
export interface WorkflowClient extends QueueClient {
  /** Registers a run as waiting for `eventId` (what `context.waitForEvent` sends). */
  wait(eventId: string, workflowRunId: string, request: WaitRequest, headers: Readonly<Record<string, string>>): Promise<void>
  /**
   * Notifies the runs waiting for `eventId` (only `workflowRunId`'s when given) with `eventData`
   * (a string as is, anything else as JSON): one entry per resumed run, `[]` when none waits.
   */
  notify(eventId: string, eventData: unknown, workflowRunId?: string): Promise<NotifyResult[]>
  /** Starts a run through the queue (see {@link triggerWorkflow}). */
  trigger(options: WorkflowTriggerOptions): Promise<{ workflowRunId: string }>
  /** Cancels a running run; throws {@link QueueRequestError} (404) for an unknown run. */
  cancel(workflowRunId: string): Promise<void>
  /** The runs waiting for `eventId` (`GET /v2/waiters/<eventId>`). */
  getWaiters(eventId: string): Promise<Waiter[]>
  /** A page of runs, newest first (`GET /v2/dashboard/runs`); restis queue only. */
  listRuns(options?: { readonly offset?: number; readonly count?: number }): Promise<WorkflowRunPage>
  /** One run and its messages, or `undefined` when the queue does not know it (`GET /v2/dashboard/runs/<id>`); restis queue only. */
  getRun(workflowRunId: string): Promise<{ run: WorkflowRunSummary; steps: WorkflowRunStep[] } | undefined>
}

/** Options of {@link createQueueClient}. @public */
export interface QueueClientOptions {
  /** Base URL of the queue, e.g. `http://127.0.0.1:8081`. Default: the hosted queue. */
  readonly url?: string
  /** Bearer token of the queue (`QUEUE_TOKEN`). */
  readonly token: string
  /** Retries of a request that could not reach the queue (network errors only). Default 4. */
  readonly retries?: number
  /**
   * The fetch to use. Default: on Node, node:http/https with keep-alive connections (several
   * times faster than `fetch` there); elsewhere the global `fetch`.
   */
  readonly fetch?: typeof fetch
}

/** What the client needs from an HTTP stack. */
interface Answer {
  readonly status: number
  readonly text: string
}
type Transport = (method: string, url: string, headers: Record<string, string>, body: string | undefined) => Promise<Answer>

function fetchTransport(doFetch: typeof fetch): Transport {
  return async (method, url, headers, body) => {
    const response = await doFetch(url, { method, headers, body })
    return { status: response.status, text: await response.text() }
  }
}

let nodeTransportPromise: Promise<Transport> | undefined

/** node:http(s) with keep-alive agents, loaded lazily so other runtimes never import it. */
function nodeTransport(): Promise<Transport> {
  nodeTransportPromise ??= (async () => {
    const [http, https] = await Promise.all([import('node:http'), import('node:https')])
    const agents = { http: new http.Agent({ keepAlive: true, maxSockets: 256 }), https: new https.Agent({ keepAlive: true, maxSockets: 256 }) }
    return (method, url, headers, body) =>
      new Promise<Answer>((resolve, reject) => {
        const target = new URL(url)
        const secure = target.protocol === 'https:'
        const payload = body === undefined ? undefined : Buffer.from(body, 'utf8')
        const request = (secure ? https : http).request(
          target,
          {
            method,
            agent: secure ? agents.https : agents.http,
            headers: payload === undefined ? headers : { ...headers, 'content-length': String(payload.length) },
          },
          (response) => {
            const chunks: Buffer[] = []
            response.on('data', (chunk: Buffer) => chunks.push(chunk))
            response.on('end', () => resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }))
            response.on('error', reject)
          },
        )
        request.on('error', reject)
        request.end(payload)
      })
  })()
  return nodeTransportPromise
}

function isNode(): boolean {
  const proc = (globalThis as { process?: { versions?: { node?: string; bun?: string } } }).process
  return typeof proc?.versions?.node === 'string' && proc.versions.bun === undefined && typeof (globalThis as { Deno?: unknown }).Deno === 'undefined'
}

/** A {@link WorkflowClient} over HTTP. @public */
export function createQueueClient(options: QueueClientOptions): WorkflowClient {
  const base = (options.url ?? DEFAULT_QUEUE_URL).replace(/\/+$/, '')
  const retries = options.retries ?? 4
  const authorization = `Bearer ${options.token}`
  const transport: Promise<Transport> = options.fetch
    ? Promise.resolve(fetchTransport(options.fetch))
    : isNode()
      ? nodeTransport()
      : Promise.resolve(fetchTransport((...args) => fetch(...args)))

  async function request(method: string, path: string, body?: string, headers: Record<string, string> = {}): Promise<Answer> {
    const send = await transport
    let lastError: unknown
    for (let attempt = 0; attempt <= retries; attempt++) {
      try {
        return await send(method, `${base}${path}`, { authorization, ...headers }, body)
      } catch (error) {
        lastError = error
        if (attempt < retries) await new Promise((resolve) => setTimeout(resolve, 50 * 2 ** attempt))
      }
    }
    throw new QueueRequestError(`queue unreachable at ${base}: ${(lastError as Error)?.message ?? lastError}`, 0, '')
  }

  function fail(answer: Answer, what: string): never {
    throw new QueueRequestError(`${what} failed with status ${answer.status}: ${answer.text}`, answer.status, answer.text)
  }
  const ok = (answer: Answer) => answer.status >= 200 && answer.status < 300

  return {
    async batch(messages) {
      const answer = await request('POST', '/v2/batch', JSON.stringify(messages), { 'content-type': 'application/json' })
      if (!ok(answer)) fail(answer, 'scheduling a message (POST /v2/batch)')
      const parsed = JSON.parse(answer.text) as BatchResult | BatchResult[]
      return Array.isArray(parsed) ? parsed : [parsed]
    },
    async deleteRun(workflowRunId, result, cancel) {
      const body = result === undefined ? undefined : JSON.stringify(result)
      const answer = await request('DELETE', `/v2/workflows/runs/${encodeURIComponent(workflowRunId)}?cancel=${cancel}`, body)
      if (!ok(answer)) fail(answer, `ending run ${workflowRunId}`)
    },
    async getRunSteps(workflowRunId) {
      const answer = await request('GET', `/v2/workflows/runs/${encodeURIComponent(workflowRunId)}`)
      if (answer.status === 404) return undefined
      if (!ok(answer)) fail(answer, `fetching the steps of run ${workflowRunId}`)
      return JSON.parse(answer.text) as RawStep[]
    },
    async wait(eventId, workflowRunId, waitRequest, headers) {
      const answer = await request('POST', `/v2/wait/${encodeURIComponent(eventId)}`, JSON.stringify(waitRequest), {
        ...headers,
        'content-type': 'application/json',
        [RUN_ID_HEADER]: workflowRunId,
      })
      if (!ok(answer)) fail(answer, `waiting for event ${eventId} (POST /v2/wait)`)
    },
    async notify(eventId, eventData, workflowRunId) {
      const path = workflowRunId === undefined ? `/v2/notify/${encodeURIComponent(eventId)}` : `/v2/notify/${encodeURIComponent(workflowRunId)}/${encodeURIComponent(eventId)}`
      const answer = await request('POST', path, typeof eventData === 'string' ? eventData : JSON.stringify(eventData ?? null))
      if (!ok(answer)) fail(answer, `notifying event ${eventId}`)
      return JSON.parse(answer.text) as NotifyResult[]
    },
    trigger(triggerOptions) {
      return triggerWorkflow(this, triggerOptions)
    },
    async cancel(workflowRunId) {
      const answer = await request('DELETE', `/v2/workflows/runs/${encodeURIComponent(workflowRunId)}?cancel=true`)
      if (!ok(answer)) fail(answer, `cancelling run ${workflowRunId}`)
    },
    async getWaiters(eventId) {
      const answer = await request('GET', `/v2/waiters/${encodeURIComponent(eventId)}`)
      if (!ok(answer)) fail(answer, `listing the waiters of event ${eventId}`)
      return JSON.parse(answer.text) as Waiter[]
    },
    async listRuns(page = {}) {
      const query = new URLSearchParams({ offset: String(page.offset ?? 0), count: String(page.count ?? 50) })
      const answer = await request('GET', `/v2/dashboard/runs?${query}`)
      if (!ok(answer)) fail(answer, 'listing runs (GET /v2/dashboard/runs)')
      const parsed = JSON.parse(answer.text) as { runs: WorkflowRunSummary[]; total: number }
      return { runs: parsed.runs, total: parsed.total }
    },
    async getRun(workflowRunId) {
      const answer = await request('GET', `/v2/dashboard/runs/${encodeURIComponent(workflowRunId)}`)
      if (answer.status === 404) return undefined
      if (!ok(answer)) fail(answer, `reading run ${workflowRunId}`)
      return JSON.parse(answer.text) as { run: WorkflowRunSummary; steps: WorkflowRunStep[] }
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
