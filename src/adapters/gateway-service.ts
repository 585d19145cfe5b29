import { createGateway, type Gateway, type GatewayOptions } from '../rest/gateway.js'
import { MAX_REQUEST_SIZE } from '../rest/errors.js'
import { errorEnvelope } from '../rest/render.js'
import type { HttpResponse, HttpService } from './http.js'

/**
 * A body over the gateway's limit: 400 with `ERR max request size exceeded`, the status and text
 * the REST protocol specifies (docs/protocol.md, "Errors"), where other services answer 413.
 */
const BODY_TOO_LARGE: HttpResponse = {
  status: MAX_REQUEST_SIZE.status,
  headers: { 'content-type': 'application/json' },
  body: errorEnvelope(MAX_REQUEST_SIZE.message),
}

/** The gateway (given, or built from options) as the service the adapters drive. */
export function gatewayService(gateway: Gateway | GatewayOptions): HttpService {
  const core = 'handle' in gateway ? gateway : createGateway(gateway)
  return {
    handle: (request) => core.handle(request),
    beforeBody: (request) => core.checkHead(request),
    bodyLimit: (url) => core.bodyLimit(url),
    bodyTooLarge: () => BODY_TOO_LARGE,
  }
}
