import type { Gateway, GatewayOptions } from '../rest/gateway.js'
import { gatewayService } from './gateway-service.js'
import { nodeListener, type NodeListenerOptions, type StreamingNodeHandler } from './node-listener.js'

export type { NodeHandler, NodeListenerOptions, StreamingNodeHandler } from './node-listener.js'

/**
 * Serves the REST protocol on Node's `http` (or Express, Connect, Fastify's raw handlers); with
 * `next`, errors the gateway cannot answer itself go to `next(error)`. Mounted under a path
 * (`app.use('/redis', handler)`), it sees the path below the mount point. Pass gateway options,
 * or a gateway shared with another adapter.
 * @public
 */
export function createNodeHandler(gateway: Gateway | GatewayOptions, options: NodeListenerOptions = {}): StreamingNodeHandler {
  return nodeListener(gatewayService(gateway), options)
}
