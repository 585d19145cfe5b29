/**
 * The REST protocol, framework-agnostic: request parsing, rendering, the gateway core and the
 * SSE emitter.
 * @packageDocumentation
 */
export { createGateway, formatPubSubEvent } from './gateway.js'
export type { Gateway, GatewayOptions, RestResponse } from './gateway.js'
export { restAvailability } from './availability.js'
export type { RestAvailability } from './availability.js'
export { parseCall, splitUrl, requestToken } from './request.js'
export type { RestRequest, Call, RequestTarget } from './request.js'
export { envelope, envelopes, errorEnvelope, replyToJson } from './render.js'
export type { StringEncoding } from './render.js'
export { eventStream, formatEvent } from './sse.js'
export type { EventSink, EventStream, SseOptions } from './sse.js'
export type { CorsOptions } from './cors.js'
export { subscribe, psubscribe, monitor, openEventStream, StreamError } from './stream-client.js'
export type { StreamOptions, StreamMessage, SubscribeOptions, MonitorOptions } from './stream-client.js'
export {
  RestError,
  UNAUTHORIZED,
  METHOD_NOT_ALLOWED,
  MAX_REQUEST_SIZE,
  MAX_DAILY_REQUESTS,
  badRequest,
  commandNotAvailable,
  backendUnavailable,
  backendOutcomeUnknown,
  backendFailure,
} from './errors.js'
