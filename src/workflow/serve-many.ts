/**
 * Several workflows behind one route, so one can invoke another by name: `serveMany` picks the
 * workflow by the last path segment of the request URL (`…/workflows/:name`), and
 * `context.invoke(step, { workflow })` starts a served workflow at this endpoint's URL with the
 * last segment replaced by that workflow's name.
 */
import { PROTOCOL_VERSION, PROTOCOL_VERSION_HEADER } from './constants.js'
import type { HttpResponse, HttpService } from '../adapters/http.js'
import { fetchListener } from '../adapters/fetch-listener.js'
import { nodeListener } from '../adapters/node-listener.js'
import { workflowService, type RouteFunction, type ServeOptions, type WorkflowFetchHandler, type WorkflowNodeHandler } from './serve.js'

/**
 * A workflow body and its options, not yet served: give it to {@link serveMany}, which names it.
 * @public
 */
export interface Workflow<TPayload = unknown, TResult = unknown> {
  readonly routeFunction: RouteFunction<TPayload, TResult>
  readonly options: ServeOptions<TPayload>
  /** The name {@link serveMany} served it under; `context.invoke` needs it. */
  readonly workflowId: string | undefined
}

interface NamedWorkflow {
  workflowId: string | undefined
}

/** A workflow for {@link serveMany} and `context.invoke`. @public */
export function createWorkflow<TPayload = unknown, TResult = unknown>(routeFunction: RouteFunction<TPayload, TResult>, options: ServeOptions<TPayload> = {}): Workflow<TPayload, TResult> {
  if (typeof routeFunction !== 'function') throw new TypeError('createWorkflow needs the workflow body (a function)')
  return { routeFunction, options, workflowId: undefined }
}

const NAME = /^[A-Za-z0-9._~-]+$/

/** The workflows' services by name, each named on its workflow object. */
function namedServices(workflows: Readonly<Record<string, Workflow<never, unknown>>>, options: ServeOptions): Map<string, HttpService> {
  const services = new Map<string, HttpService>()
  for (const [name, workflow] of Object.entries(workflows)) {
    if (!NAME.test(name)) throw new TypeError(`invalid workflow name ${JSON.stringify(name)}: letters, digits, '.', '_', '~' and '-' only (it becomes a path segment)`)
    const named = workflow as unknown as NamedWorkflow
    if (named.workflowId !== undefined && named.workflowId !== name) {
      throw new TypeError(`the workflow named '${name}' is already served as '${named.workflowId}': create one workflow per name`)
    }
    named.workflowId = name
    services.set(name, workflowService(workflow.routeFunction as RouteFunction<unknown>, { ...options, ...(workflow.options as ServeOptions) }))
  }
  return services
}

/** The last path segment of a URL (absolute, or path and query), decoded. */
function lastSegment(url: string): string {
  const path = new URL(url, 'http://workflow.invalid').pathname
  const segment = path.split('/').at(-1) ?? ''
  try {
    return decodeURIComponent(segment)
  } catch {
    return segment
  }
}

/** One service that hands each request to the workflow its last path segment names. */
function routingService(services: Map<string, HttpService>): HttpService {
  const unknown = (url: string): HttpResponse => ({
    status: 404,
    headers: { 'content-type': 'application/json', [PROTOCOL_VERSION_HEADER]: PROTOCOL_VERSION },
    body: JSON.stringify({ error: `no workflow named ${JSON.stringify(lastSegment(url))} here; this route serves: ${[...services.keys()].join(', ')}` }),
  })
  return {
    handle: (request) => services.get(lastSegment(request.href))?.handle(request) ?? Promise.resolve(unknown(request.href)),
    // an unknown name reads no body: its answer is the 404
    bodyLimit: (url) => services.get(lastSegment(url))?.bodyLimit(url) ?? 0,
    bodyTooLarge: (url) => services.get(lastSegment(url))?.bodyTooLarge(url) ?? unknown(url),
  }
}

/**
 * Serves workflows on one route as a Web Fetch handler: the last path segment of the request
 * URL names the workflow (`/api/workflows/:name`); an unknown name gets 404. `options` apply to
 * each workflow, under its own.
 * @public
 */
export function serveMany(workflows: Readonly<Record<string, Workflow<never, unknown>>>, options: ServeOptions = {}): WorkflowFetchHandler {
  return fetchListener(routingService(namedServices(workflows, options)))
}

/** {@link serveMany} as a Node `http` listener (also Express/Connect middleware). @public */
export function serveManyNode(workflows: Readonly<Record<string, Workflow<never, unknown>>>, options: ServeOptions = {}): WorkflowNodeHandler {
  return nodeListener(routingService(namedServices(workflows, options)))
}
