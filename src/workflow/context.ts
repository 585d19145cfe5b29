/**
 * The context a workflow body receives. Each `context.run` is one step: on the delivery that
 * reaches it for the first time it runs, its result goes to the queue and the delivery ends;
 * on every later delivery the stored result is returned without running it again.
 */
import { StepSubmitted, WorkflowError } from './errors.js'
import type { Environment } from './env.js'
import type { StepExecutor } from './executor.js'
import { callStep, invokeStep, runStep, sleepStep, waitStep, type CallResponse, type InvokeResult, type WaitEventResult } from './lazy-steps.js'
import { newRunId, type NotifyResult } from './client.js'
import type { Workflow } from './serve-many.js'

/** What the context needs from the delivery handling it. */
export interface ContextRuntime {
  /** Replays the history and runs the next step. */
  readonly executor: StepExecutor
  /** Ends the run as cancelled. */
  cancel(): Promise<void>
  /** Set once the run was cancelled. */
  cancelled: boolean
  /** Notifies the waiters of an event through the queue. */
  notify(eventId: string, eventData: unknown, workflowRunId?: string): Promise<NotifyResult[]>
  /** How deep in a chain of invocations this run is (0: started directly). */
  readonly invokeCount: number
}

/** Fields of a {@link WorkflowContext}. */
export interface WorkflowContextInit<TPayload> {
  readonly workflowRunId: string
  readonly url: string
  readonly requestPayload: TPayload
  readonly headers: Headers
  readonly env: Environment
  readonly retried: number
  readonly workflowRunCreatedAt?: number
}

/** Options of {@link WorkflowContext.call}. @public */
export interface CallOptions {
  /** The third party's URL (http or https). */
  readonly url: string
  /** Default `GET`. */
  readonly method?: string
  /** The request body: a string as is, anything else as JSON. */
  readonly body?: unknown
  /** Request headers the third party receives. */
  readonly headers?: Readonly<Record<string, string>>
  /** Retries of the call by the queue when it fails (no answer, or a status of 300 or more). Default 0. */
  readonly retries?: number
  /** Bound of one attempt: seconds, or a duration such as `"10s"`, `"500ms"`. Default: the queue's delivery timeout. */
  readonly timeout?: number | string
}

/** Options of {@link WorkflowContext.waitForEvent}. @public */
export interface WaitForEventOptions {
  /** How long to wait: seconds, or a duration such as `"30s"`, `"2h"`, `"7d"`. Default `"7d"`. */
  readonly timeout?: number | string
}

/** What {@link WorkflowContext.notify} returns. @public */
export interface NotifyStepResult<TData = unknown> {
  readonly eventId: string
  readonly eventData: TData
  /** One entry per run that was waiting and is now resumed. */
  readonly notifyResponse: NotifyResult[]
}

/** Options of {@link WorkflowContext.invoke}. @public */
export interface InvokeOptions<TBody = unknown> {
  /**
   * The workflow to run: one served by {@link serveMany} (its URL is this endpoint's URL with
   * the last path segment replaced by the workflow's name), or the URL of any workflow endpoint.
   */
  readonly workflow: Workflow<TBody> | string
  /** The child run's payload: a string as is, anything else as JSON. */
  readonly body?: TBody
  /** Headers the child's steps see in `context.headers`. */
  readonly headers?: Readonly<Record<string, string>>
  /** The child's run id; default a new `wfr_…` (a given id without the prefix gets it). */
  readonly workflowRunId?: string
  /** Retries per step of the child. Default 3. */
  readonly retries?: number
}

const DURATION = /^\d+(ms|s|m|h|d)$/

function duration(value: number | string, what: string): string {
  if (typeof value === 'number') {
    if (!Number.isFinite(value) || value < 0) throw new TypeError(`${what} must be a number of seconds >= 0 or a duration like "30s", got ${value}`)
    return `${Math.round(value)}s`
  }
  if (!DURATION.test(value)) throw new TypeError(`${what} must be a number of seconds or a duration like "500ms", "30s", "2h", "7d", got ${JSON.stringify(value)}`)
  return value
}

function bodyText(body: unknown): string {
  return body === undefined ? '' : typeof body === 'string' ? body : JSON.stringify(body)
}

function stepNameOf(stepName: unknown): string {
  if (typeof stepName !== 'string' || stepName === '') throw new TypeError('a step name must be a non-empty string')
  return stepName
}

/**
 * The step context passed to a workflow body.
 * @public
 */
export class WorkflowContext<TPayload = unknown> {
  /** The run id, `wfr_…`. */
  readonly workflowRunId: string
  /** The workflow endpoint's public URL. */
  readonly url: string
  /** The parsed body of the request that started the run (validated when `schema` is set). */
  readonly requestPayload: TPayload
  /** The user headers of the request that started the run. */
  readonly headers: Headers
  /** Environment variables (the `env` option, else `process.env`). */
  readonly env: Environment
  /** How many times the queue already retried this delivery: 0 on the first attempt. */
  readonly retried: number
  /** When the run was created (milliseconds since the epoch), when the queue says. */
  readonly workflowRunCreatedAt: number | undefined
  readonly #runtime: ContextRuntime

  /** `serve()` makes one per delivery. @internal */
  constructor(init: WorkflowContextInit<TPayload>, runtime: ContextRuntime) {
    this.workflowRunId = init.workflowRunId
    this.url = init.url
    this.requestPayload = init.requestPayload
    this.headers = init.headers
    this.env = init.env
    this.retried = init.retried
    this.workflowRunCreatedAt = init.workflowRunCreatedAt
    this.#runtime = runtime
  }

  /**
   * Runs one step. `fn` may be sync or async; its return value must be JSON-serializable and
   * is what this call returns on every later delivery (after a JSON round trip). Await each
   * step, or start steps together to run them in parallel:
   * `await Promise.all([context.run('a', a), context.run('b', b)])`. Steps cannot be nested.
   */
  async run<T>(stepName: string, fn: () => T | Promise<T>): Promise<Awaited<T>> {
    return (await this.#add(() => runStep(stepNameOf(stepName), fn))) as Awaited<T>
  }

  /** A step that waits `seconds` (the queue delays the next delivery). */
  async sleep(stepName: string, seconds: number): Promise<void> {
    await this.#add(() => {
      if (!Number.isFinite(seconds) || seconds < 0) throw new TypeError(`sleep duration must be a number of seconds >= 0, got ${seconds}`)
      return sleepStep(stepNameOf(stepName), { sleepFor: Math.round(seconds) })
    })
  }

  /**
   * A step that waits until `when` (a `Date`, or unix seconds): the queue holds the next
   * delivery until then (`Upstash-Not-Before`); a time in the past continues at once.
   */
  async sleepUntil(stepName: string, when: Date | number): Promise<void> {
    await this.#add(() => {
      const seconds = when instanceof Date ? when.getTime() / 1000 : when
      if (!Number.isFinite(seconds) || seconds < 0) throw new TypeError(`sleepUntil needs a Date or unix seconds >= 0, got ${String(when)}`)
      return sleepStep(stepNameOf(stepName), { sleepUntil: Math.round(seconds) })
    })
  }

  /**
   * A step that calls a third party over HTTP through the queue (which retries it and bounds
   * each attempt), so a slow call holds no function open. Returns its status, headers and body
   * whatever the status; a call that got no answer returns 504 (timeout) or 502.
   */
  async call<TBody = unknown>(stepName: string, options: CallOptions): Promise<CallResponse<TBody>> {
    return (await this.#add(() => {
      const name = stepNameOf(stepName)
      if (typeof options?.url !== 'string' || !/^https?:\/\//.test(options.url)) throw new TypeError(`context.call('${name}') needs an http(s) url, got ${JSON.stringify(options?.url)}`)
      const retries = options.retries ?? 0
      if (!Number.isInteger(retries) || retries < 0) throw new TypeError(`context.call('${name}'): retries must be an integer >= 0, got ${options.retries}`)
      return callStep(name, {
        url: options.url,
        method: (options.method ?? 'GET').toUpperCase(),
        body: options.body === undefined ? undefined : bodyText(options.body),
        headers: { ...options.headers },
        retries,
        timeout: options.timeout === undefined ? undefined : duration(options.timeout, `context.call('${name}') timeout`),
      })
    })) as CallResponse<TBody>
  }

  /**
   * A step that waits until `eventId` is notified ({@link WorkflowContext.notify}, or the
   * client's `notify`) or the timeout passes: `{eventData, timeout}`.
   */
  async waitForEvent<TData = unknown>(stepName: string, eventId: string, options: WaitForEventOptions = {}): Promise<WaitEventResult<TData>> {
    return (await this.#add(() => {
      const name = stepNameOf(stepName)
      if (typeof eventId !== 'string' || eventId === '') throw new TypeError(`context.waitForEvent('${name}') needs a non-empty event id`)
      return waitStep(name, eventId, duration(options.timeout ?? '7d', `context.waitForEvent('${name}') timeout`))
    })) as WaitEventResult<TData>
  }

  /**
   * A step that notifies the runs waiting for `eventId` (only run `workflowRunId`'s when given)
   * with `eventData`; returns the runs it resumed.
   */
  async notify<TData = unknown>(stepName: string, eventId: string, eventData: TData, workflowRunId?: string): Promise<NotifyStepResult<TData>> {
    const runtime = this.#runtime
    return (await this.#add(() => {
      const name = stepNameOf(stepName)
      if (typeof eventId !== 'string' || eventId === '') throw new TypeError(`context.notify('${name}') needs a non-empty event id`)
      return runStep(name, async () => ({ eventId, eventData, notifyResponse: await runtime.notify(eventId, eventData, workflowRunId) }), 'Notify')
    })) as NotifyStepResult<TData>
  }

  /**
   * A step that runs another workflow and waits for its end: `{body, isFailed, isCanceled}`,
   * `body` being the child's result (or its error when it failed).
   */
  async invoke<TBody = unknown, TResult = unknown>(stepName: string, options: InvokeOptions<TBody>): Promise<InvokeResult<TResult>> {
    return (await this.#add(() => {
      const name = stepNameOf(stepName)
      const url = invokedUrl(this.url, options?.workflow, name)
      const retries = options.retries
      if (retries !== undefined && (!Number.isInteger(retries) || retries < 0)) throw new TypeError(`context.invoke('${name}'): retries must be an integer >= 0, got ${retries}`)
      const given = options.workflowRunId
      return invokeStep(name, {
        url,
        body: bodyText(options.body),
        headers: { ...options.headers },
        workflowRunId: given === undefined ? newRunId() : given.startsWith('wfr_') ? given : `wfr_${given}`,
        retries,
      })
    })) as InvokeResult<TResult>
  }

  /** Ends the run now, as cancelled; the rest of the body does not run. */
  async cancel(): Promise<never> {
    const runtime = this.#runtime
    await runtime.cancel()
    runtime.cancelled = true
    throw new StepSubmitted('cancel')
  }

  /** Builds the step (argument errors surface here, at the call) and hands it to the executor. */
  #add(build: () => ReturnType<typeof runStep>): Promise<unknown> {
    const runtime = this.#runtime
    if (runtime.cancelled) return Promise.reject(new StepSubmitted('cancel'))
    let step
    try {
      step = build()
    } catch (error) {
      return Promise.reject(error)
    }
    return runtime.executor.add(step)
  }
}

/** The endpoint an invocation starts: a served workflow's URL beside this one, or the URL given. */
function invokedUrl(url: string, workflow: { readonly workflowId: string | undefined } | string | undefined, stepName: string): string {
  if (typeof workflow === 'string') {
    if (!/^https?:\/\//.test(workflow)) throw new TypeError(`context.invoke('${stepName}'): workflow must be an http(s) URL or a workflow from createWorkflow, got ${JSON.stringify(workflow)}`)
    return workflow
  }
  const name = workflow?.workflowId
  if (name === undefined) {
    throw new WorkflowError(`context.invoke('${stepName}'): the workflow has no name; serve it with serveMany({ name: workflow }) or pass its URL`)
  }
  const target = new URL(url)
  target.pathname = target.pathname.replace(/[^/]*$/, encodeURIComponent(name))
  target.search = ''
  return target.href
}

/** The context a failure function receives: the run's identity and payload, no steps. @public */
export interface FailureContext<TPayload = unknown> {
  readonly workflowRunId: string
  readonly url: string
  readonly requestPayload: TPayload
  readonly headers: Headers
  readonly env: Environment
  readonly retried: number
  readonly workflowRunCreatedAt: number | undefined
}
