import type { Gateway, GatewayOptions } from '../rest/gateway.js'
import { gatewayService } from './gateway-service.js'
import { fetchListener, type FetchHandler } from './fetch-listener.js'

export type { FetchHandler } from './fetch-listener.js'

/**
 * Serves the REST protocol as a Fetch handler (Bun, Deno, Cloudflare Workers, Next.js route
 * handlers, Hono). Pass gateway options, or a gateway shared with another adapter.
 * @public
 */
export function createFetchHandler(gateway: Gateway | GatewayOptions): FetchHandler {
  return fetchListener(gatewayService(gateway))
}
