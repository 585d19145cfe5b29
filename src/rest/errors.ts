/**
 * The gateway's own error replies: status code plus Redis-style text (`<CODE> <message>`),
 * as docs/protocol.md (Errors) lists them.
 * @public
 */
export class RestError {
  constructor(
    readonly status: number,
    readonly message: string,
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

/** 503 `ERR backend unavailable: <reason>`. @public */
export function backendUnavailable(reason: string): RestError {
  return new RestError(503, `ERR backend unavailable: ${reason}`)
}
