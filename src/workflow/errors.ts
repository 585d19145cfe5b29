/**
 * Errors of the workflow runtime. A step function throws {@link WorkflowNonRetryableError} to
 * fail the run at once, or {@link WorkflowRetryAfterError} to ask the queue to come back later;
 * any other error is retried by the queue with its backoff.
 */

/** Base class of every error raised by the workflow runtime. @public */
export class WorkflowError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'WorkflowError'
  }
}

/**
 * Thrown by a step (or the workflow body) to end the run without retries: the endpoint answers
 * 489 with `Upstash-NonRetryable-Error: true`, the queue marks the run failed and calls the
 * failure function.
 * @public
 */
export class WorkflowNonRetryableError extends WorkflowError {
  constructor(message = 'Workflow failed with non-retryable error.') {
    super(message)
    this.name = 'WorkflowNonRetryableError'
  }
}

/**
 * Thrown by a step to have the queue retry the delivery after `retryAfter` seconds instead of
 * its backoff: the endpoint answers 429 with `Retry-After`. The attempt counts as a retry.
 * @public
 */
export class WorkflowRetryAfterError extends WorkflowError {
  readonly retryAfter: number
  constructor(message: string, retryAfter: number) {
    super(message)
    this.name = 'WorkflowRetryAfterError'
    if (!Number.isFinite(retryAfter) || retryAfter < 0) throw new TypeError(`retryAfter must be a number of seconds >= 0, got ${retryAfter}`)
    this.retryAfter = retryAfter
  }
}

/**
 * The run's history does not match the code replaying it: a step name or type differs at the
 * same position, step ids are not consecutive, or steps run in parallel. Not retryable: the
 * same history would fail the same way.
 * @public
 */
export class WorkflowReplayError extends WorkflowNonRetryableError {
  constructor(message: string) {
    super(message)
    this.name = 'WorkflowReplayError'
  }
}

/** A request to the workflow endpoint that is not a valid start, step or failure delivery. @public */
export class MalformedDeliveryError extends WorkflowError {
  constructor(message: string) {
    super(`malformed workflow delivery: ${message}`)
    this.name = 'MalformedDeliveryError'
  }
}

/** The queue answered a request of the endpoint with an error status. @public */
export class QueueRequestError extends WorkflowError {
  constructor(
    message: string,
    readonly status: number,
    readonly body: string,
  ) {
    super(message)
    this.name = 'QueueRequestError'
  }
}

/**
 * Unwinds the workflow body after a step ran and its result went to the queue. Never seen by
 * callers unless they catch it inside the workflow body (which they must not).
 */
export class StepSubmitted extends Error {
  constructor(readonly stepName: string) {
    super(
      `Step '${stepName}' ran and its result went to the queue; this error ends the current delivery. ` +
        'Do not catch it: await every context.run and keep it out of try/catch.',
    )
    this.name = 'StepSubmitted'
  }
}

/**
 * True when `error` is an instance of a class named `name`, here or in another copy of the
 * runtime (the `@upstash/workflow` SDK uses the same class names), walking the prototype chain.
 */
export function isErrorNamed(error: unknown, name: string): boolean {
  if (typeof error !== 'object' || error === null) return false
  let proto: unknown = Object.getPrototypeOf(error)
  while (proto !== null && proto !== Object.prototype) {
    const ctor = (proto as { constructor?: { name?: string } }).constructor
    if (ctor?.name === name) return true
    proto = Object.getPrototypeOf(proto)
  }
  return false
}
