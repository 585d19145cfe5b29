/**
 * The REST protocol's gateway, framework-agnostic (adapt it to any server with
 * {@link Gateway.handle}), and clients of its SSE endpoints (`subscribe`, `psubscribe`,
 * `monitor`). Request parsing and reply rendering are internal.
 * @packageDocumentation
 */
export { createGateway } from './gateway.js'
export { subscribe, psubscribe, monitor, openEventStream, StreamError } from './stream-client.js'
export type { StreamOptions, StreamMessage, SubscribeOptions, MonitorOptions } from './stream-client.js'
export * from '../entries/gateway-surface.js'
