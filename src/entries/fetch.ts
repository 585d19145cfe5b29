/**
 * The gateway as a Fetch API handler (`(request: Request) => Promise<Response>`), for Deno, Bun,
 * Cloudflare Workers, Next.js route handlers and any server that speaks Fetch.
 * @packageDocumentation
 */
export { createFetchHandler } from '../adapters/fetch.js'
export type { FetchHandler } from '../adapters/fetch.js'
export * from './gateway-surface.js'
