/**
 * The context a workflow body receives. Each `context.run` is one step: on the delivery that
 * reaches it for the first time it runs, its result goes to the queue and the delivery ends;
 * on every later delivery the stored result is returned without running it again.
 */
import { StepSubmitted, WorkflowNonRetryableError, WorkflowReplayError } from './errors.js'
import type { Environment } from './env.js'
import { parseOut, type StepRecord } from './steps.js'

/** What the context needs from the delivery handling it. */
export interface StepRunner {
  /** The run's history (result steps, in order). */
  readonly steps: readonly StepRecord[]
  /** Sends a new step's record to the queue; `delaySeconds` for a sleep, `notBefore` (unix s) for a sleep until. */
  submit(step: StepRecord, delaySeconds?: number, notBefore?: number): Promise<void>
  /** Ends the run as cancelled. */
  cancel(): Promise<void>
  /** Next position in the history. */
  index: number
  /** The step currently running or replaying. */
  busy?: string
  /** Set once a new step's result went to the queue: this delivery is done. */
  submitted?: string
  /** Set once the run was cancelled. */
  cancelled?: boolean
  /** The step whose function threw, for the error answer. */
  failedStep?: string
  /** Set when steps were started in parallel or nested: the delivery fails with it. */
  violation?: Error
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
  readonly #runner: StepRunner

  /** `serve()` makes one per delivery. @internal */
  constructor(init: WorkflowContextInit<TPayload>, runner: StepRunner) {
    this.workflowRunId = init.workflowRunId
    this.url = init.url
    this.requestPayload = init.requestPayload
    this.headers = init.headers
    this.env = init.env
    this.retried = init.retried
    this.workflowRunCreatedAt = init.workflowRunCreatedAt
    this.#runner = runner
  }

  /**
   * Runs one step. `fn` may be sync or async; its return value must be JSON-serializable and
   * is what this call returns on every later delivery (after a JSON round trip). Await each
   * step before starting the next: parallel and nested steps are refused.
   */
  async run<T>(stepName: string, fn: () => T | Promise<T>): Promise<Awaited<T>> {
    return (await this.#step(stepName, 'Run', async (stepId) => {
      const result = await fn()
      let out: string | undefined
      try {
        out = result === undefined ? undefined : JSON.stringify(result)
      } catch (error) {
        throw new WorkflowNonRetryableError(`step '${stepName}' returned a value that is not JSON-serializable: ${(error as Error).message}`)
      }
      return { record: { stepId, stepName, stepType: 'Run', out, concurrent: 1 } }
    })) as Awaited<T>
  }

  /** A step that waits `seconds` (the queue delays the next delivery). */
  async sleep(stepName: string, seconds: number): Promise<void> {
    if (!Number.isFinite(seconds) || seconds < 0) throw new TypeError(`sleep duration must be a number of seconds >= 0, got ${seconds}`)
    const duration = Math.round(seconds)
    await this.#step(stepName, 'SleepFor', (stepId) =>
      Promise.resolve({ record: { stepId, stepName, stepType: 'SleepFor', sleepFor: duration, concurrent: 1 }, delay: duration }),
    )
  }

  /**
   * A step that waits until `when` (a `Date`, or unix seconds): the queue holds the next
   * delivery until then (`Upstash-Not-Before`); a time in the past continues at once.
   */
  async sleepUntil(stepName: string, when: Date | number): Promise<void> {
    const seconds = when instanceof Date ? when.getTime() / 1000 : when
    if (!Number.isFinite(seconds) || seconds < 0) throw new TypeError(`sleepUntil needs a Date or unix seconds >= 0, got ${String(when)}`)
    const until = Math.round(seconds)
    await this.#step(stepName, 'SleepUntil', (stepId) =>
      Promise.resolve({ record: { stepId, stepName, stepType: 'SleepUntil', sleepUntil: until, concurrent: 1 }, notBefore: until }),
    )
  }

  /** Ends the run now, as cancelled; the rest of the body does not run. */
  async cancel(): Promise<never> {
    const runner = this.#runner
    await runner.cancel()
    runner.cancelled = true
    throw new StepSubmitted('cancel')
  }

  async #step(
    stepName: string,
    stepType: string,
    execute: (stepId: number) => Promise<{ record: StepRecord; delay?: number; notBefore?: number }>,
  ): Promise<unknown> {
    const runner = this.#runner
    if (typeof stepName !== 'string' || stepName === '') throw new TypeError('a step name must be a non-empty string')
    if (runner.submitted !== undefined || runner.cancelled) throw new StepSubmitted(runner.submitted ?? 'cancel')
    if (runner.violation) throw runner.violation
    if (runner.busy !== undefined) {
      runner.violation = new WorkflowReplayError(
        `step '${stepName}' was started while step '${runner.busy}' is still running: ` +
          'await each context.run before starting the next (parallel and nested steps are not supported)',
      )
      throw runner.violation
    }
    runner.busy = stepName
    try {
      const position = runner.index++
      const recorded = runner.steps[position]
      if (recorded !== undefined) {
        if (recorded.stepName !== stepName || recorded.stepType !== stepType) {
          throw new WorkflowReplayError(
            `step ${position + 1} does not match the run's history: the workflow called ${stepType === 'Run' ? 'context.run' : stepType === 'SleepUntil' ? 'context.sleepUntil' : 'context.sleep'}('${stepName}') ` +
              `but the history has '${recorded.stepName}' (${recorded.stepType}); the workflow code changed or the step list was altered`,
          )
        }
        await Promise.resolve()
        return parseOut(recorded.out)
      }
      let outcome: { record: StepRecord; delay?: number; notBefore?: number }
      try {
        outcome = await execute(position + 1)
      } catch (error) {
        runner.failedStep = stepName
        throw error
      }
      // a step started in parallel with this one fails the delivery: nothing is recorded
      if (runner.violation) throw runner.violation
      await runner.submit(outcome.record, outcome.delay, outcome.notBefore)
      runner.submitted = stepName
      throw new StepSubmitted(stepName)
    } finally {
      runner.busy = undefined
    }
  }
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
