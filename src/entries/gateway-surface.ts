/**
 * What the REST gateway's signature reaches ({@link Gateway}, {@link GatewayOptions}): its
 * request and response, the SSE stream a response may carry, CORS, tokens and limits, and the
 * executor's surface. Entry points that take a gateway re-export this module (`export * from`).
 * `TokenStore` and `Limits` are classes the gateway already loads, so they come as values (see
 * executor-surface.ts for why not type-only).
 */
export * from './executor-surface.js'
export type { Gateway, GatewayOptions, RestResponse } from '../rest/gateway.js'
export type { RestRequest } from '../rest/request.js'
export type { EventSink, EventStream, SseOptions } from '../rest/sse.js'
export type { CorsOptions } from '../rest/cors.js'
export { TokenStore } from '../auth/tokens.js'
export type { Authenticator, Principal, TokenStoreOptions, UserTokenEntry } from '../auth/tokens.js'
export { Limits } from '../auth/limits.js'
export type { Endpoint, LimitOptions, UsageEvent, UsageTotals } from '../auth/limits.js'
