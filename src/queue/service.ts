/**
 * The local message-queue service: the QStash-compatible API an endpoint built with `serve()`
 * (restis's or `@upstash/workflow`'s) talks to, the delivery loop that calls endpoints back,
 * and the dashboard. State lives in an {@link Executor}, so several processes over one Redis
 * share the work and a restarted process picks up where the last one stopped.
 *
 * ```ts
 * import { createServer } from 'node:http'
 * import { createQueueService } from 'restis/queue'
 * const queue = createQueueService({ token: process.env.QUEUE_TOKEN! })
 * createServer(queue.node).listen(8081, '127.0.0.1')
 * ```
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import { createServer as createHttpsServer } from 'node:https'
import type { AddressInfo } from 'node:net'
import { CONTENT_TOO_LARGE, fetchHeaders, jsonResponse, type HttpRequest, type HttpResponse, type HttpService } from '../adapters/http.js'
import { fetchListener } from '../adapters/fetch-listener.js'
import { nodeListener } from '../adapters/node-listener.js'
import { bytesEqual, sha256 } from '../auth/digest.js'
import type { Executor } from '../executor/executor.js'
import { MemoryExecutor } from '../executor/memory/memory-executor.js'
import { DEFAULT_RETRIES } from '../workflow/constants.js'
import { generateSigningKey } from '../workflow/signature.js'
import { dashboardPage } from './dashboard/page.js'
import { createDashboardApi } from './dashboard-api.js'
import { checkMessageTimeout, planMessage, type MessagePlan } from './messages.js'
import { checkCallTimeout, refusalFor } from './call.js'
import { waitRoutes } from './wait.js'
import { resumeInvoker } from './invoke.js'
import { QueueStore, StoreError, type AttemptLog, type MessageKind, type MessageRecord, type MessageState, type RunRecord, type RunState, type Scheduled } from './store.js'
import { Worker, type QueueEvent } from './worker.js'
import { matchRoute, type ApiCall, type Route } from './routes.js'
import { Schedules } from './schedules.js'
import { UrlGroups } from './url-groups.js'
import { Queues } from './queues.js'
import { EventLog, type EventState, type MessageOrigin } from './events.js'
import { claimDeduplication, DEFAULT_DEDUPLICATION_WINDOW_MS } from './dedup.js'
import { dlqListFilter, filteredDlqIds, messageAdminRoutes } from './message-admin.js'
import { workflowDlqRoutes } from './workflow-dlq.js'
import { inheritRunOptions } from './publish-options.js'
import { hostedBackoff } from './retry-delay.js'
import { requestOrigin } from './message-subjects.js'
import { flowControlRoutes } from './flow-control-api.js'
import { WorkflowLogs } from './workflow-logs.js'
import { runsToCancel } from './run-selection.js'
import { REDACTED, redactBody, redactHeaderLists } from './redact.js'

/** Options of {@link createQueueService}. @public */
export interface QueueServiceOptions {
  /** Bearer token every API call must carry (`QUEUE_TOKEN`). Required. */
  readonly token: string
  /** Where state lives. Default: a new in-memory engine (closed with the service). */
  readonly executor?: Executor
  /** Key prefix in the executor. Default `restis:queue:`. */
  readonly prefix?: string
  /** Key that signs every delivery; default a random one (see `signingKeys`). */
  readonly currentSigningKey?: string
  /** The key endpoints should accept next (reported by `GET /v2/keys`); default a random one. */
  readonly nextSigningKey?: string
  /** Retries of a message that does not name its own. Default 3. */
  readonly retries?: number
  /**
   * Delay before retry `n` (1-based) in ms. Default 1 s, 2 s, 4 s … capped at 1 min;
   * `'hosted'`: the hosted queue's `min(86400, e^(2.5·n))` s. A message's `Upstash-Retry-Delay`
   * and an answer's `Retry-After` take precedence.
   */
  readonly backoff?: ((retry: number) => number) | 'hosted'
  /** How long a deduplication id (`Upstash-Deduplication-Id`, content-based) is remembered, ms. Default 10 min. */
  readonly deduplicationWindow?: number
  /** How long one delivery may take, ms. Default 30 s. */
  readonly deliveryTimeout?: number
  /** How long a claimed delivery stays reserved for its process, ms. Default `deliveryTimeout` + 10 s. */
  readonly leaseMs?: number
  /** Deliveries in flight at once in this process. Default 64. */
  readonly concurrency?: number
  /** How often to look for work other processes scheduled, ms. Default 500. */
  readonly pollInterval?: number
  /** Largest request body accepted, bytes. Default 10 MiB. */
  readonly maxBodySize?: number
  /** Start delivering at once. Default true. */
  readonly autoStart?: boolean
  /** Observes deliveries, run outcomes and dead letters. */
  readonly onEvent?: (event: QueueEvent) => void
  /** Receives internal errors of the delivery loop (default: console.error). */
  readonly onError?: (error: unknown) => void
  /** The current time (ms) schedules fire by. Default `Date.now`; tests move it forward. */
  readonly clock?: () => number
}

/** A run with its steps, as the dashboard API returns it. @public */
export interface RunDetail {
  /** The run. */
  readonly run: RunView
  /** Its messages (start, steps, failure callback), in the order the run added them. */
  readonly steps: StepView[]
}

/** A run in API answers. @public */
export interface RunView {
  /** The run id (`wfr_…`). */
  readonly workflowRunId: string
  /** The workflow endpoint the run calls. */
  readonly url: string
  /** Where the run is: started, or how it ended. */
  readonly state: RunState
  /** When the run started, ms since the epoch. */
  readonly createdAt: number
  /** When the run last changed, ms since the epoch. */
  readonly updatedAt: number
  /** When the run ended, ms since the epoch. */
  readonly finishedAt?: number
  /** Retries each delivery of the run gets. */
  readonly retries: number
  /** The start payload, as text. */
  readonly payload: string
  /** What the workflow returned (JSON text), once it succeeded. */
  readonly result?: string
  /** Why the run failed. */
  readonly error?: string
  /** How many messages the run has (its start, steps and failure callback). */
  readonly steps?: number
  /** The state of the failure callback's message, when the run has one. */
  readonly failureCallback?: string
}

/** One step (message) of a run in API answers. @public */
export interface StepView {
  /** The message id (`msg_…`). */
  readonly messageId: string
  /** What the message is for: a workflow delivery, a published message or a failure callback. */
  readonly kind: MessageKind
  /** The step's position in the run, when it is one. */
  readonly stepId?: number
  /** The step's name (`message` for a published message). */
  readonly stepName: string
  /** The step's type (`Initial`, `Run`, `SleepFor` …), else the message's kind. */
  readonly stepType: string
  /** The message's state. */
  readonly status: MessageState
  /** Attempts made so far. */
  readonly attempts: number
  /** Retries the message gets before it is dead-lettered. */
  readonly maxRetries: number
  /** Where the message is delivered. */
  readonly url: string
  /** The HTTP method of the delivery. */
  readonly method: string
  /** Headers the destination receives (a workflow step also gets the run's forwarded headers). */
  readonly headers: Record<string, string>
  /** The body delivered, as text. */
  readonly body: string
  /** When the message was created, ms since the epoch. */
  readonly createdAt: number
  /** When the next attempt is due, ms since the epoch. */
  readonly dueAt: number
  /** When the destination accepted it, ms since the epoch. */
  readonly deliveredAt?: number
  /** The last failed attempt's HTTP status. */
  readonly lastStatus?: number
  /** The last failed attempt's error. */
  readonly lastError?: string
  /** Why the message ended without a delivery of its own (superseded, or its run ended). */
  readonly note?: string
  /** The run the message belongs to. */
  readonly runId?: string
  /**
   * For a workflow message: the step its delivery ran (the next step's name, the step named in
   * `Upstash-Error-Step-Name` of a failed attempt, or `(end of run)`). A step's attempts show in
   * the log of the message before it.
   */
  readonly ranStep?: string
}

/** A dead letter in API answers (the hosted queue's field names). @public */
export interface DeadLetter {
  readonly dlqId: string
  readonly messageId: string
  readonly url: string
  readonly method: string
  readonly header: Record<string, string[]>
  readonly body: string
  readonly responseStatus?: number
  readonly responseBody?: string
  readonly responseHeader?: Record<string, string[]>
  readonly retried: number
  readonly maxRetries: number
  readonly createdAt: number
  readonly workflowRunId?: string
  readonly error?: string
}

/** A running queue service. @public */
export interface QueueService {
  /** The API and dashboard as a Fetch handler. */
  readonly fetch: (request: Request) => Promise<Response>
  /** The API and dashboard as a Node `http` listener. */
  readonly node: (request: IncomingMessage, response: ServerResponse) => void
  /** The keys deliveries are signed with; give them to endpoints as `QUEUE_CURRENT_SIGNING_KEY` / `QUEUE_NEXT_SIGNING_KEY`. */
  readonly signingKeys: { readonly current: string; readonly next: string }
  /** The service's state, for the CLI and tests; its key layout is no public contract. @internal */
  readonly store: QueueStore
  /** Starts delivering (when `autoStart` was false). */
  start(): void
  /** Serves the API on `port` (default 0: a free one) and `host` (default 127.0.0.1). */
  /**
   * Listens on `port` and `host` (default an ephemeral port on 127.0.0.1); with `tls` (a PEM
   * certificate and key) it serves HTTPS.
   */
  listen(port?: number, host?: string, tls?: { readonly cert: string; readonly key: string }): Promise<{ readonly url: string; readonly port: number; readonly server: Server }>
  /** Stops delivering (in-flight deliveries are abandoned to their leases), closes the listener and an owned executor. */
  close(): Promise<void>
  /** Observes events; returns the unsubscribe function. */
  on(listener: (event: QueueEvent) => void): () => void
  readonly runs: {
    list(offset?: number, count?: number): Promise<{ runs: RunView[]; total: number }>
    get(workflowRunId: string): Promise<RunDetail | undefined>
  }
  readonly dlq: {
    list(offset?: number, count?: number): Promise<DeadLetter[]>
    /** Delivers a dead letter again with a fresh retry budget (a failed run resumes). */
    replay(dlqId: string): Promise<void>
    delete(dlqId: string): Promise<boolean>
  }
  /**
   * Polls until the run ended and none of its messages (e.g. the failure callback) is still
   * waiting, or rejects after `timeoutMs` (default 30 s).
   */
  waitForRun(workflowRunId: string, timeoutMs?: number): Promise<RunDetail>
}

const decoder = new TextDecoder()

const reply = (status: number, body: unknown): HttpResponse => jsonResponse(status, body)

function error(status: number, message: string): HttpResponse {
  return reply(status, { error: message })
}

function digest(value: string): Buffer {
  return sha256(value)
}

/** The default local backoff: 1 s, 2 s, 4 s, … at most 60 s. */
export function defaultBackoff(retry: number): number {
  return Math.min(60_000, 1000 * 2 ** Math.max(0, retry - 1))
}

/**
 * Creates a queue service. Nothing listens until `listen()` (or until you mount `fetch`/`node`
 * in your own server); delivering starts at once unless `autoStart` is false.
 * @public
 */
export function createQueueService(options: QueueServiceOptions): QueueService {
  if (!options.token) throw new TypeError('createQueueService: a token is required')
  const ownsExecutor = options.executor === undefined
  const executor = options.executor ?? new MemoryExecutor()
  const store = new QueueStore(executor, options.prefix)
  const signingKeys = { current: options.currentSigningKey || generateSigningKey(), next: options.nextSigningKey || generateSigningKey() }
  const defaultRetries = options.retries ?? DEFAULT_RETRIES
  const deliveryTimeout = options.deliveryTimeout ?? 30_000
  const maxBodySize = options.maxBodySize ?? 10 * 1024 * 1024
  const listeners = new Set<(event: QueueEvent) => void>()
  if (options.onEvent) listeners.add(options.onEvent)
  const emit = (event: QueueEvent): void => {
    for (const listener of listeners) {
      try {
        listener(event)
      } catch {
        // an observer's failure is not the queue's
      }
    }
  }
  const worker = new Worker({
    store,
    signingKey: signingKeys.current,
    concurrency: options.concurrency ?? 64,
    pollInterval: options.pollInterval ?? 500,
    deliveryTimeout,
    leaseMs: options.leaseMs ?? deliveryTimeout + 10_000,
    backoff: options.backoff === 'hosted' ? hostedBackoff : (options.backoff ?? defaultBackoff),
    emit,
    onError: options.onError ?? ((cause: unknown) => console.error('[restis queue]', cause)),
  })
  const schedules = new Schedules({
    store,
    now: options.clock ?? Date.now,
    defaultRetries,
    deliveryTimeout,
    publish: (message, scheduleId) => schedule({ kind: 'publish', message }, { scheduleId }),
    enqueue: async (queueName, message, scheduleId) => {
      const messageId = await queues.enqueue(queueName, message)
      await created(messageId, { queueName, scheduleId })
      void queues.dispatch()
      return messageId
    },
    onError: options.onError ?? ((cause: unknown) => console.error('[restis queue]', cause)),
  })
  const urlGroups = new UrlGroups(store)
  const queues = new Queues(store, () => worker.wake(), options.onError ?? ((cause: unknown) => console.error('[restis queue]', cause)))
  const eventLog = new EventLog(store)
  const logFailure = options.onError ?? ((cause: unknown) => console.error('[restis queue]', cause))
  const OUTCOME_STATES: Record<string, EventState> = { delivered: 'DELIVERED', retry: 'RETRY', failed: 'FAILED', superseded: 'CANCELED', canceled: 'CANCELED' }
  listeners.add((event) => {
    if (event.type !== 'attempt') return
    // a queue's message that finished frees its slot for the next one
    if (event.outcome !== 'retry') void queues.dispatch()
    eventLog.record(event.messageId, OUTCOME_STATES[event.outcome], { error: event.error, responseStatus: event.status }).catch(logFailure)
  })
  /** Records a new message in the event log, with what it is for. */
  async function created(messageId: string, origin: MessageOrigin): Promise<void> {
    try {
      await eventLog.setOrigin(messageId, origin)
      await eventLog.record(messageId, 'CREATED')
    } catch (cause) {
      logFailure(cause)
    }
  }
  const tokenDigest = digest(options.token)
  let server: Server | undefined
  let closed = false

  function authorized(request: HttpRequest, query: URLSearchParams): boolean {
    const header = request.headers.get('authorization')
    const given = header?.startsWith('Bearer ') ? header.slice(7) : query.get('_token')
    return given !== null && given !== undefined && bytesEqual(digest(given), tokenDigest)
  }

  async function schedule(plan: MessagePlan, origin: MessageOrigin = {}): Promise<Scheduled> {
    let scheduled: Scheduled
    if (plan.kind !== 'call') checkMessageTimeout(plan.message, deliveryTimeout)
    if (plan.kind === 'init') scheduled = await store.createRun(plan.run, plan.message)
    else if (plan.kind === 'step') scheduled = await store.appendStep(plan.runId, plan.stepKey, plan.stepJson, await inheritRunOptions(store, plan.runId, plan.message))
    else if (plan.kind === 'call') {
      if (plan.message.call) checkCallTimeout(plan.message.call, deliveryTimeout)
      scheduled = await store.addRunMessage(plan.runId, plan.stepKey, plan.message)
    } else if (plan.dedupId !== undefined) {
      const claim = await claimDeduplication(store, plan.dedupId, options.deduplicationWindow ?? DEFAULT_DEDUPLICATION_WINDOW_MS)
      scheduled = claim.duplicate ? { messageId: claim.messageId, deduplicated: true } : await store.addMessage(plan.message, claim.messageId)
    } else scheduled = await store.addMessage(plan.message)
    if (!scheduled.deduplicated) {
      const runId = plan.kind === 'init' ? plan.run.id : plan.kind === 'step' ? plan.runId : undefined
      const flowControlKey = plan.message.flowControl?.key
      await created(scheduled.messageId, { ...origin, ...(runId === undefined ? {} : { workflowRunId: runId }), ...(flowControlKey === undefined ? {} : { flowControlKey }) })
      worker.wake()
    }
    return scheduled
  }

  function scheduledAnswer(scheduled: Scheduled, url: string): Record<string, unknown> {
    return { messageId: scheduled.messageId, url, ...(scheduled.deduplicated ? { deduplicated: true } : {}) }
  }

  async function publish({ request, rawPath, search }: ApiCall): Promise<HttpResponse> {
    let destination = rawPath.slice('/v2/publish/'.length)
    if (!/^https?:\/\//i.test(destination)) {
      try {
        destination = decodeURIComponent(destination)
      } catch {
        return error(400, 'invalid destination: bad percent-encoding')
      }
    }
    const query = new URLSearchParams(search)
    query.delete('_token')
    const rest = query.toString()
    const withQuery = (url: string): string => (rest ? url + (url.includes('?') ? '&' : '?') + rest : url)
    if (!/^[a-z][a-z0-9+.-]*:/i.test(destination)) return publishToGroup(destination, request, withQuery)
    destination = withQuery(destination)
    const headers = fetchHeaders(request.headers)
    let plan: MessagePlan
    try {
      plan = planMessage(destination, headers, request.body ?? new Uint8Array(0), defaultRetries)
    } catch (cause) {
      throw cause instanceof StoreError ? refusalFor(headers, cause) : cause
    }
    return reply(201, scheduledAnswer(await schedule(plan, requestOrigin(request.remoteAddress, headers)), destination))
  }

  /** `POST /v2/enqueue/<queue>/<destination>`: a message that waits for its turn in the queue. */
  async function enqueue({ request, rawPath, params }: ApiCall): Promise<HttpResponse> {
    const prefix = `/v2/enqueue/${rawPath.split('/')[3]}/`
    let destination = rawPath.slice(prefix.length)
    if (!/^https?:\/\//i.test(destination)) {
      try {
        destination = decodeURIComponent(destination)
      } catch {
        return error(400, 'invalid destination: bad percent-encoding')
      }
    }
    const plan = planMessage(destination, fetchHeaders(request.headers), request.body ?? new Uint8Array(0), defaultRetries)
    if (plan.kind !== 'publish') return error(400, 'workflow messages cannot be enqueued: a run orders its own steps')
    checkMessageTimeout(plan.message, deliveryTimeout)
    const messageId = await queues.enqueue(params.name, plan.message)
    await created(messageId, { ...requestOrigin(request.remoteAddress, fetchHeaders(request.headers)), queueName: params.name })
    void queues.dispatch()
    return reply(201, { messageId, url: destination })
  }

  /** Publishing to a URL group's name: one message per endpoint, `[{messageId, url}]`. */
  async function publishToGroup(name: string, request: HttpRequest, withQuery: (url: string) => string): Promise<HttpResponse> {
    const group = await urlGroups.get(name)
    if (!group) return error(404, `url group ${name} not found (publish to an http(s) URL or to the name of a URL group)`)
    if (group.endpoints.length === 0) return error(400, `url group ${name} has no endpoints`)
    const plans = group.endpoints.map((endpoint) => planMessage(withQuery(endpoint.url), fetchHeaders(request.headers), request.body ?? new Uint8Array(0), defaultRetries))
    if (plans.some((plan) => plan.kind !== 'publish')) return error(400, 'workflow messages cannot be published to a URL group')
    const answers: Record<string, unknown>[] = []
    const origin = requestOrigin(request.remoteAddress, fetchHeaders(request.headers))
    for (const [index, plan] of plans.entries()) answers.push(scheduledAnswer(await schedule(plan, { ...origin, topicName: name, endpointName: group.endpoints[index].name }), withQuery(group.endpoints[index].url)))
    return reply(201, answers)
  }

  async function batch({ request }: ApiCall): Promise<HttpResponse> {
    let entries: unknown
    try {
      entries = JSON.parse(decoder.decode(request.body ?? new Uint8Array(0)))
    } catch {
      return error(400, 'the batch body must be a JSON array of messages {destination, headers, body}')
    }
    if (!Array.isArray(entries)) return error(400, 'the batch body must be a JSON array of messages {destination, headers, body}')
    const plans: MessagePlan[] = []
    const origins: MessageOrigin[] = []
    for (const [index, entry] of entries.entries()) {
      if (typeof entry !== 'object' || entry === null || typeof (entry as { destination?: unknown }).destination !== 'string') {
        return error(400, `batch message ${index}: "destination" (a URL string) is required`)
      }
      const { destination, headers, body } = entry as { destination: string; headers?: unknown; body?: unknown }
      let parsedHeaders: Headers
      try {
        parsedHeaders = new Headers((headers ?? {}) as Record<string, string>)
      } catch (cause) {
        return error(400, `batch message ${index}: invalid headers: ${(cause as Error).message}`)
      }
      try {
        if (body !== undefined && body !== null && typeof body !== 'string') throw new StoreError('"body" must be a string', 400)
        const plan = planMessage(destination, parsedHeaders, Buffer.from(body ?? '', 'utf8'), defaultRetries)
        // checked before any entry is scheduled, so a refused batch schedules nothing
        if (plan.kind !== 'call') checkMessageTimeout(plan.message, deliveryTimeout)
        plans.push(plan)
        origins.push(requestOrigin(request.remoteAddress, parsedHeaders))
      } catch (cause) {
        if (cause instanceof StoreError) return error(refusalFor(parsedHeaders, cause).status, `batch message ${index}: ${cause.message}`)
        throw cause
      }
    }
    const answers: Record<string, unknown>[] = []
    for (const [index, plan] of plans.entries()) {
      const destination = (entries[index] as { destination: string }).destination
      answers.push(scheduledAnswer(await schedule(plan, origins[index]), destination))
    }
    return reply(200, answers)
  }

  async function runView(run: RunRecord, steps?: number): Promise<RunView> {
    let failureCallback: string | undefined
    if (run.failureCallbackMessageId) failureCallback = (await store.loadMessage(run.failureCallbackMessageId))?.state
    return {
      workflowRunId: run.id,
      url: run.url,
      state: run.state,
      createdAt: run.createdAt,
      updatedAt: run.updatedAt,
      finishedAt: run.finishedAt,
      retries: run.retries,
      payload: Buffer.from(run.sourceBody, 'base64').toString('utf8'),
      result: run.result,
      error: run.error,
      steps,
      failureCallback,
    }
  }

  function stepView(message: MessageRecord, run?: RunRecord): StepView {
    return {
      messageId: message.id,
      kind: message.kind,
      stepId: message.stepId,
      stepName: message.stepName ?? (message.kind === 'publish' ? 'message' : '?'),
      stepType: message.stepType ?? message.kind,
      status: message.state,
      attempts: message.retried,
      maxRetries: message.retries,
      url: message.url,
      method: message.method,
      headers: redactHeaderLists(message.kind === 'workflow' && run ? { ...run.forward, ...message.headers } : message.headers, message.redact, REDACTED),
      body: redactBody(decoder.decode(message.body), message.redact),
      createdAt: message.createdAt,
      dueAt: message.dueAt,
      deliveredAt: message.deliveredAt,
      lastStatus: message.lastStatus,
      lastError: message.lastError,
      note: message.note,
      runId: message.runId,
    }
  }

  /** What the delivery of each workflow message ran: the step recorded after it, or its failing step. */
  function ranSteps(messages: readonly MessageRecord[], run: RunRecord): Map<string, string> {
    const ran = new Map<string, string>()
    const workflow = messages.filter((message) => message.kind === 'workflow').sort((a, b) => (a.seq ?? 0) - (b.seq ?? 0))
    workflow.forEach((message, index) => {
      const following = workflow[index + 1]
      const failing = message.lastResponseHeaders?.['upstash-error-step-name']?.[0]
      if (following?.stepName) ran.set(message.id, following.stepName)
      else if (message.state === 'delivered' && run.state === 'RUN_SUCCESS') ran.set(message.id, '(end of run)')
      else if (failing) ran.set(message.id, failing)
    })
    return ran
  }

  async function runDetail(id: string): Promise<RunDetail | undefined> {
    const run = await store.loadRun(id)
    if (!run) return undefined
    const messages = await store.loadMessages(await store.runMessageIds(id))
    const ran = ranSteps(messages, run)
    return { run: await runView(run, messages.length), steps: messages.map((message) => ({ ...stepView(message, run), ranStep: ran.get(message.id) })) }
  }

  async function listRuns(offset = 0, count = 50): Promise<{ runs: RunView[]; total: number }> {
    const { ids, total } = await store.runIds(offset, count)
    const runs = await store.loadRuns(ids)
    const counts = await store.stepCounts(runs.map((run) => run.id))
    return { runs: await Promise.all(runs.map((run, index) => runView(run, counts[index]))), total }
  }

  async function listDlq(offset = 0, count = 100, ids?: readonly string[]): Promise<DeadLetter[]> {
    const messages = await store.loadMessages(ids ?? (await store.dlqIds(offset, count)))
    return messages.map((message) => {
      const header: Record<string, string[]> = {}
      for (const [name, value] of Object.entries(message.headers)) header[name] = [value]
      return {
        dlqId: message.id,
        messageId: message.id,
        url: message.url,
        method: message.method,
        header: redactHeaderLists(header, message.redact, [REDACTED]),
        body: redactBody(decoder.decode(message.body), message.redact),
        responseStatus: message.lastStatus,
        responseBody: message.lastResponse === undefined ? undefined : Buffer.from(message.lastResponse, 'base64').toString('utf8'),
        responseHeader: message.lastResponseHeaders,
        retried: message.retried,
        maxRetries: message.retries,
        createdAt: message.createdAt,
        workflowRunId: message.runId,
        error: message.lastError,
      }
    })
  }

  function paging(query: URLSearchParams, fallback: number): { offset: number; count: number } {
    const offset = Math.max(0, Number(query.get('offset') ?? query.get('cursor') ?? 0) || 0)
    const count = Math.min(1000, Math.max(1, Number(query.get('count') ?? fallback) || fallback))
    return { offset, count }
  }

  // --- the API: one handler per route ------------------------------------------------------

  async function cancelRuns({ query }: ApiCall): Promise<HttpResponse> {
    const named = query.getAll('workflowRunIds')
    if (named.length > 0 && [...query.keys()].some((name) => name !== 'workflowRunIds' && name !== '_token')) return error(400, 'workflowRunIds and filters cannot be combined: name the runs, or filter them')
    const ids = named.length > 0 ? named : await runsToCancel(store, query)
    let cancelled = 0
    for (const id of ids) {
      try {
        if ((await store.finishRun(id, true, undefined)) === 'RUN_CANCELED') {
          cancelled++
          if (await resumeInvoker(store, id, { body: undefined, isFailed: false, isCanceled: true })) worker.wake()
        }
      } catch (cause) {
        if (!(cause instanceof StoreError && cause.status === 404)) throw cause
      }
    }
    return reply(200, { cancelled })
  }

  async function runSteps({ params }: ApiCall): Promise<HttpResponse> {
    const run = await store.loadRun(params.id)
    if (!run || run.state !== 'RUN_STARTED') return error(404, `workflow run ${params.id} not found or no longer running`)
    return reply(200, await store.rawSteps(params.id))
  }

  async function finishRun({ params, query, request }: ApiCall): Promise<HttpResponse> {
    const cancel = query.get('cancel') === 'true'
    const result = request.body && request.body.length > 0 ? decoder.decode(request.body) : undefined
    const state = await store.finishRun(params.id, cancel, result)
    if (state === 'RUN_SUCCESS' || state === 'RUN_CANCELED') {
      emit({ type: 'run', runId: params.id, state })
      if (await resumeInvoker(store, params.id, { body: state === 'RUN_SUCCESS' ? result : undefined, isFailed: false, isCanceled: state === 'RUN_CANCELED' })) worker.wake()
    }
    return reply(200, { workflowRunId: params.id, state })
  }

  async function deadLetters({ query }: ApiCall): Promise<HttpResponse> {
    const { offset, count } = paging(query, 100)
    const filter = dlqListFilter(query)
    if (filter) {
      const ids = await filteredDlqIds(store, filter)
      const messages = await listDlq(0, 0, ids.slice(offset, offset + count))
      return reply(200, { messages, ...(offset + count < ids.length ? { cursor: String(offset + count) } : {}) })
    }
    const messages = await listDlq(offset, count)
    return reply(200, { messages, ...(messages.length === count ? { cursor: String(offset + count) } : {}) })
  }

  async function deleteDeadLetter({ params }: ApiCall): Promise<HttpResponse> {
    return (await store.deleteDlq(params.id)) ? reply(200, { deleted: 1 }) : error(404, `dead letter ${params.id} not found`)
  }

  async function replayDeadLetter({ params }: ApiCall): Promise<HttpResponse> {
    const message = await store.replay(params.id)
    worker.wake()
    return reply(200, { messageId: message.id, workflowRunId: message.runId, state: message.state })
  }

  async function dashboardMessage({ params }: ApiCall): Promise<HttpResponse> {
    const message = await store.loadMessage(params.id)
    if (!message) return error(404, `message ${params.id} not found`)
    const run = message.runId ? await store.loadRun(message.runId) : undefined
    const log: AttemptLog[] = await store.attemptLog(params.id)
    const ranStep = run ? ranSteps(await store.loadMessages(await store.runMessageIds(run.id)), run).get(message.id) : undefined
    return reply(200, { message: { ...stepView(message, run), ranStep }, log })
  }

  const dashboard = createDashboardApi({ store, runView, runDetail, subscribe: (listener) => (listeners.add(listener), () => listeners.delete(listener)) })

  /** The API below `/v2/`: method, path pattern (`:id` one segment, `*` one or more), handler. */
  const routes: readonly Route[] = [
    { method: 'POST', path: 'publish/*', run: publish },
    { method: 'POST', path: 'batch', run: batch },
    { method: 'GET', path: 'keys', run: () => reply(200, { current: signingKeys.current, next: signingKeys.next }) },
    { method: 'DELETE', path: 'workflows/runs', run: cancelRuns },
    { method: 'GET', path: 'workflows/runs/:id', run: runSteps },
    { method: 'DELETE', path: 'workflows/runs/:id', run: finishRun },
    { method: 'GET', path: 'dlq', run: deadLetters },
    { method: 'DELETE', path: 'dlq/:id', run: deleteDeadLetter },
    { method: 'POST', path: 'dlq/:id/replay', run: replayDeadLetter },
    ...dashboard.routes,
    { method: 'GET', path: 'dashboard/messages/:id', run: dashboardMessage },
    { method: 'GET', path: 'dashboard/dlq', run: async () => reply(200, { messages: await listDlq() }) },
    ...waitRoutes(store, () => worker.wake()),
    ...schedules.routes(),
    ...urlGroups.routes(),
    ...queues.routes(),
    { method: 'POST', path: 'enqueue/:name/*', run: enqueue },
    ...eventLog.routes(),
    ...messageAdminRoutes({ store, wake: () => worker.wake() }),
    ...workflowDlqRoutes({ store, wake: () => worker.wake() }),
    ...flowControlRoutes({ store, wake: () => worker.wake(), concurrency: options.concurrency ?? 64 }),
    ...new WorkflowLogs(store).routes(),
  ]

  /** The pages (no token: the page asks for it) and the API (the token first). */
  async function route(request: HttpRequest): Promise<HttpResponse> {
    const queryIndex = request.url.indexOf('?')
    const rawPath = queryIndex === -1 ? request.url : request.url.slice(0, queryIndex)
    const search = queryIndex === -1 ? '' : request.url.slice(queryIndex + 1)
    const method = request.method.toUpperCase()
    if (method === 'GET' && rawPath === '/') return { status: 302, headers: { location: `/dashboard${search ? `?${search}` : ''}` }, body: '' }
    if (method === 'GET' && (rawPath === '/dashboard' || rawPath === '/dashboard/')) {
      return { status: 200, headers: { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' }, body: dashboardPage }
    }
    if (!rawPath.startsWith('/v2/')) return error(404, `not found: ${method} ${rawPath}`)
    const query = new URLSearchParams(search)
    if (!authorized(request, query)) return error(401, 'invalid or missing queue token')
    const match = matchRoute(routes, method, rawPath.slice('/v2/'.length))
    if (match.kind === 'found') {
      const answer = await match.route.run({ request, rawPath, search, query, params: match.params })
      if (method !== 'GET') dashboard.touch() // open dashboards refresh after a change made through the API
      return answer
    }
    if (match.kind === 'method') {
      return jsonResponse(405, { error: `method ${method} not allowed here` }, { allow: match.allow.join(', ') })
    }
    return error(404, `not found: ${method} ${rawPath}`)
  }

  const onError = options.onError ?? ((failure: unknown) => console.error('[restis queue]', failure))

  const api: HttpService = {
    async handle(request) {
      try {
        return await route(request)
      } catch (cause) {
        if (cause instanceof StoreError) return error(cause.status, cause.message)
        onError(cause)
        return error(500, 'internal error')
      }
    },
    bodyLimit: () => maxBodySize,
    bodyTooLarge: () => error(CONTENT_TOO_LARGE, `request body larger than ${maxBodySize} bytes`),
  }
  const fetchHandler = fetchListener(api)
  const nodeHandler = nodeListener(api)

  const service: QueueService = {
    fetch: fetchHandler,
    node: nodeHandler,
    signingKeys,
    store,
    start() {
      worker.start()
      schedules.start(options.pollInterval ?? 500)
      queues.start(options.pollInterval ?? 500)
    },
    async listen(port = 0, host = '127.0.0.1', tls) {
      if (server) throw new Error('the queue service is already listening')
      const listening: Server = tls === undefined ? createServer(nodeHandler) : createHttpsServer(tls, nodeHandler)
      listening.keepAliveTimeout = 65_000
      await new Promise<void>((resolve, reject) => {
        listening.once('error', reject)
        listening.listen(port, host, () => {
          listening.off('error', reject)
          resolve()
        })
      })
      server = listening
      const address = listening.address() as AddressInfo
      const shownHost = host.includes(':') ? `[${host}]` : host
      return { url: `${tls === undefined ? 'http' : 'https'}://${shownHost}:${address.port}`, port: address.port, server: listening }
    },
    async close() {
      if (closed) return
      closed = true
      await schedules.stop()
      await queues.stop()
      await worker.stop()
      if (server) {
        const listening = server
        await new Promise<void>((resolve) => {
          listening.close(() => resolve())
          listening.closeAllConnections()
        })
      }
      if (ownsExecutor) await executor.close()
    },
    on(listener) {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
    runs: { list: listRuns, get: runDetail },
    dlq: {
      list: listDlq,
      async replay(id) {
        await store.replay(id)
        worker.wake()
      },
      delete: (id) => store.deleteDlq(id),
    },
    async waitForRun(id, timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs
      for (;;) {
        const detail = await runDetail(id)
        if (detail && detail.run.state !== 'RUN_STARTED' && detail.steps.every((step) => step.status !== 'pending' && step.status !== 'delivering')) {
          return detail
        }
        if (Date.now() > deadline) {
          throw new Error(`run ${id} did not finish within ${timeoutMs} ms: ${detail ? `${detail.run.state}, steps ${detail.steps.map((step) => `${step.stepName}:${step.status}`).join(', ')}` : 'unknown run'}`)
        }
        await new Promise((resolve) => setTimeout(resolve, 20))
      }
    },
  }
  if (options.autoStart !== false) service.start()
  return service
}
