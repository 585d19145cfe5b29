import { BackendUnavailableError, OutcomeUnknownError, backendFailureMessage } from '../executor/executor.js'

/**
 * The gateway's own error replies: status code plus Redis-style text (`<CODE> <message>`),
 * as docs/protocol.md (Errors) lists them.
 * @public
 */
export class RestError {
  constructor(
    readonly status: number,
    readonly message: string,
    /** Extra response headers, e.g. `Retry-After`. */
    readonly headers?: Readonly<Record<string, string>>,
  ) {}
}

/** @public */
export const UNAUTHORIZED = new RestError(401, 'WRONGPASS invalid or missing auth token')
/** @public */
export const METHOD_NOT_ALLOWED = new RestError(405, 'ERR method not allowed')
/** @public */
export const MAX_REQUEST_SIZE = new RestError(400, 'ERR max request size exceeded')
/** @public */
export const MAX_DAILY_REQUESTS = new RestError(400, 'ERR max daily request limit exceeded')

/** 400 with `ERR <what>`. @public */
export function badRequest(what: string): RestError {
  return new RestError(400, `ERR ${what}`)
}

/** `ERR Command is not available: '<cmd>'` (blocking, WATCH, SUBSCRIBE over plain commands …). @public */
export function commandNotAvailable(name: string): RestError {
  return new RestError(400, `ERR Command is not available: '${name}'`)
}

/**
 * 503 `ERR backend unavailable: <reason> (not executed; safe to retry)`, with `Retry-After: 1`:
 * the request never reached the backend.
 * @public
 */
export function backendUnavailable(reason: string): RestError {
  return backendFailure(new BackendUnavailableError(reason))
}

/**
 * 504 `ERR backend outcome unknown: <reason> (sent; it may have run)`: the request reached the
 * backend and no reply came back; a write retried blindly may apply twice.
 * @public
 */
export function backendOutcomeUnknown(reason: string): RestError {
  return backendFailure(new OutcomeUnknownError(reason))
}

const RETRY_AFTER = Object.freeze({ 'retry-after': '1' })

/** The answer to a rejection of the executor: 504 when the call may have run, else 503. @public */
export function backendFailure(error: BackendUnavailableError): RestError {
  if (error instanceof OutcomeUnknownError) return new RestError(504, backendFailureMessage(error))
  return new RestError(503, backendFailureMessage(error), RETRY_AFTER)
}
