/**
 * The gateway as a Node `http` request listener that is also Express/Connect middleware.
 * @packageDocumentation
 */
export { createNodeHandler } from '../adapters/node.js'
export type { NodeHandler, NodeListenerOptions, StreamingNodeHandler } from '../adapters/node.js'
export * from './gateway-surface.js'
