/**
 * The step executor of one delivery: it replays the run's history and decides what this
 * delivery does, in the queue's protocol.
 *
 * Steps started in the same tick (`Promise.all([context.run(a), context.run(b)])`) form a
 * parallel group of `k` steps at positions `n … n+k-1`. A group goes through the queue in
 * three kinds of delivery:
 * - the first reaches the group with nothing recorded: it submits `k` plan steps
 *   (`stepId: 0`, `targetStep`, `concurrent: k`), and the queue delivers each plan separately;
 * - a plan's delivery runs that one step and submits its result (`stepId`, `concurrent: k`);
 * - a result's delivery, while other results are missing, does nothing (discarded); once all
 *   `k` results are recorded the group returns them in order and the body goes on.
 * A single step runs when its position has no result, and returns the recorded one otherwise.
 * Every recorded step must match the code (name, type, group size): a mismatch is a
 * {@link WorkflowReplayError}, not retried.
 */
import { StepSubmitted, WorkflowReplayError } from './errors.js'
import type { StepRecord, StepType } from './steps.js'

/** A third-party HTTP call the queue makes for a `Call` step. */
export interface CallRequest {
  readonly url: string
  readonly method: string
  readonly body?: string
  readonly headers: Readonly<Record<string, string>>
  readonly retries: number
  /** Bound of one attempt, as the queue reads it (`"10s"`, `"500ms"`). */
  readonly timeout?: string
}

/** The start of an invoked workflow run. */
export interface InvokeRequest {
  /** The invoked workflow's endpoint. */
  readonly url: string
  /** The child's payload, as text. */
  readonly body: string
  readonly headers: Readonly<Record<string, string>>
  readonly workflowRunId: string
  readonly retries?: number
}

/** What a new step asks of the queue once it ran. */
export type StepSubmission =
  | { readonly kind: 'record'; readonly record: StepRecord; readonly delaySeconds?: number; readonly notBefore?: number }
  | { readonly kind: 'call'; readonly record: StepRecord; readonly call: CallRequest }
  | { readonly kind: 'wait'; readonly record: StepRecord; readonly eventId: string; readonly timeout: string }
  | { readonly kind: 'invoke'; readonly record: StepRecord; readonly invoke: InvokeRequest }

/** One step as the workflow body declared it, not yet run. */
export interface LazyStep {
  readonly stepName: string
  readonly stepType: StepType
  /** Fields of its plan step beyond the common ones (a sleep's duration, a wait's event). */
  readonly planFields?: Partial<StepRecord>
  /** Runs the step (a `Run` or `Notify` executes its function) and says what to submit. */
  execute(stepId: number, concurrent: number): Promise<StepSubmission>
  /** The step's value from its recorded result. */
  parse(record: StepRecord): unknown
}

/** Where the executor sends what a delivery produced. */
export interface StepSink {
  submit(submission: StepSubmission): Promise<void>
  /** Submits the plan steps of a parallel group, in one batch. */
  submitPlans(plans: readonly StepRecord[]): Promise<void>
}

/** Why a delivery ended before the body returned. */
export type DeliveryEnd = 'step-finished' | 'parallel-planned' | 'discarded'

interface Group {
  readonly steps: LazyStep[]
  promise?: Promise<unknown[]>
}

const STEP_CALLS: Record<string, string> = {
  Run: 'context.run',
  SleepFor: 'context.sleep',
  SleepUntil: 'context.sleepUntil',
  Call: 'context.call',
  Wait: 'context.waitForEvent',
  Notify: 'context.notify',
  Invoke: 'context.invoke',
}

/** Lets the other steps of the same tick join a group before it runs (two microtask turns). */
async function nextTicks(): Promise<void> {
  await Promise.resolve()
  await Promise.resolve()
}

/** Replays a history and runs at most one new step (or plans one parallel group) per delivery. */
export class StepExecutor {
  readonly #results = new Map<number, StepRecord>()
  readonly #plans = new Map<number, StepRecord>()
  /** The record this delivery is for: the last one of the history. */
  readonly #last: StepRecord | undefined
  readonly #sink: StepSink
  #next = 1
  #open: Group | undefined
  #running: Group | undefined
  #executing: string | undefined
  /** Set once the delivery's work is done: later steps unwind the body. */
  ended: DeliveryEnd | undefined
  /** The step whose function threw, for the error answer. */
  failedStep: string | undefined
  /** Misuse (nested or overlapping steps) or a history mismatch: the delivery fails with it. */
  violation: Error | undefined

  constructor(history: readonly StepRecord[], sink: StepSink) {
    for (const step of history) {
      if (step.stepId === 0) this.#plans.set(step.targetStep ?? 0, step)
      else this.#results.set(step.stepId, step)
    }
    this.#last = history.at(-1)
    this.#sink = sink
  }

  /** The highest position the history holds: all of them must be replayed when the body returns. */
  get recordedSteps(): number {
    return Math.max(0, ...this.#results.keys(), ...this.#plans.keys())
  }

  /** Positions the body reached so far. */
  get reachedSteps(): number {
    return this.#next - 1
  }

  /** Adds a step; resolves with its value, or unwinds the body once the delivery's work is done. */
  async add(step: LazyStep): Promise<unknown> {
    if (this.ended !== undefined) throw new StepSubmitted(step.stepName)
    if (this.violation) throw this.violation
    if (this.#executing !== undefined) {
      return this.#fail(new WorkflowReplayError(`step '${step.stepName}' was started inside step '${this.#executing}': steps cannot be nested`))
    }
    if (this.#running) {
      const names = this.#running.steps.map((running) => `'${running.stepName}'`).join(', ')
      return this.#fail(
        new WorkflowReplayError(
          `step '${step.stepName}' was started while step ${names} is still running: await each step, ` +
            'or start parallel steps together (Promise.all of context calls made in one go)',
        ),
      )
    }
    let group = this.#open
    if (group === undefined) {
      group = { steps: [] }
      this.#open = group
    }
    const index = group.steps.push(step) - 1
    await nextTicks()
    if (this.#open === group) {
      this.#open = undefined
      this.#running = group
      group.promise = this.#runGroup(group.steps).finally(() => {
        this.#running = undefined
      })
    }
    const values = await group.promise!
    return values[index]
  }

  #fail(error: Error): never {
    this.violation ??= error
    throw this.violation
  }

  #runGroup(steps: readonly LazyStep[]): Promise<unknown[]> {
    const start = this.#next
    this.#next += steps.length
    return steps.length === 1 ? this.#runSingle(steps[0], start).then((value) => [value]) : this.#runParallel(steps, start)
  }

  #check(step: LazyStep, record: StepRecord, position: number, concurrent: number): void {
    if (record.stepName === step.stepName && record.stepType === step.stepType && record.concurrent === concurrent) return
    const called = `${STEP_CALLS[step.stepType] ?? step.stepType}('${step.stepName}')${concurrent > 1 ? ` in a parallel group of ${concurrent}` : ''}`
    const recorded = `'${record.stepName}' (${record.stepType}${record.concurrent > 1 ? `, in a parallel group of ${record.concurrent}` : ''})`
    this.#fail(
      new WorkflowReplayError(
        `step ${position} does not match the run's history: the workflow called ${called} but the history has ${recorded}; ` +
          'the workflow code changed or the step list was altered',
      ),
    )
  }

  async #runSingle(step: LazyStep, position: number): Promise<unknown> {
    const recorded = this.#results.get(position) ?? this.#plans.get(position)
    if (recorded !== undefined) {
      this.#check(step, recorded, position, 1)
      return step.parse(recorded)
    }
    await this.#execute(step, position, 1)
    this.ended = 'step-finished'
    throw new StepSubmitted(step.stepName)
  }

  async #runParallel(steps: readonly LazyStep[], start: number): Promise<unknown[]> {
    const size = steps.length
    const plans = steps.map((_, offset) => this.#plans.get(start + offset))
    const results = steps.map((_, offset) => this.#results.get(start + offset))
    steps.forEach((step, offset) => {
      for (const record of [plans[offset], results[offset]]) if (record) this.#check(step, record, start + offset, size)
    })
    if (results.every((record) => record !== undefined)) return results.map((record, offset) => steps[offset].parse(record!))
    if (plans.every((record) => record === undefined) && results.every((record) => record === undefined)) {
      await this.#sink.submitPlans(steps.map((step, offset) => ({ stepId: 0, stepName: step.stepName, stepType: step.stepType, concurrent: size, targetStep: start + offset, ...step.planFields })))
      this.ended = 'parallel-planned'
      throw new StepSubmitted(steps[0].stepName)
    }
    const last = this.#last
    const lastPosition = last === undefined ? 0 : last.stepId === 0 ? (last.targetStep ?? 0) : last.stepId
    if (last === undefined || lastPosition < start || lastPosition >= start + size) {
      return this.#fail(
        new WorkflowReplayError(`inconsistent history: the parallel group of steps ${start}-${start + size - 1} is unfinished, but this delivery is for none of its steps`),
      )
    }
    const offset = lastPosition - start
    if (last.stepId === 0 && results[offset] === undefined) await this.#execute(steps[offset], lastPosition, size)
    // a result of the group arrived while others still run (or a plan arrived again): nothing to do
    this.ended = last.stepId === 0 && results[offset] === undefined ? 'step-finished' : 'discarded'
    throw new StepSubmitted(steps[offset].stepName)
  }

  async #execute(step: LazyStep, position: number, concurrent: number): Promise<void> {
    let submission: StepSubmission
    this.#executing = step.stepName
    try {
      submission = await step.execute(position, concurrent)
    } catch (error) {
      this.failedStep = step.stepName
      throw error
    } finally {
      this.#executing = undefined
    }
    // a step started inside this one fails the delivery: nothing is recorded
    if (this.violation) throw this.violation
    await this.#sink.submit(submission)
  }
}
