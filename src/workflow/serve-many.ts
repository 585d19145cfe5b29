/**
 * Several workflows behind one route, so one can invoke another by name: `serveMany` picks the
 * workflow by the last path segment of the request URL (`…/workflows/:name`), and
 * `context.invoke(step, { workflow })` starts a served workflow at this endpoint's URL with the
 * last segment replaced by that workflow's name.
 */
import { PROTOCOL_VERSION, PROTOCOL_VERSION_HEADER } from './constants.js'
import { serve, type RouteFunction, type ServeOptions, type WorkflowFetchHandler } from './serve.js'

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

/**
 * Serves workflows on one route as a Web Fetch handler: the last path segment of the request
 * URL names the workflow (`/api/workflows/:name`); an unknown name gets 404. `options` apply to
 * each workflow, under its own.
 * @public
 */
export function serveMany(workflows: Readonly<Record<string, Workflow<never, unknown>>>, options: ServeOptions = {}): WorkflowFetchHandler {
  const handlers = new Map<string, WorkflowFetchHandler>()
  for (const [name, workflow] of Object.entries(workflows)) {
    if (!NAME.test(name)) throw new TypeError(`invalid workflow name ${JSON.stringify(name)}: letters, digits, '.', '_', '~' and '-' only (it becomes a path segment)`)
    const named = workflow as unknown as NamedWorkflow
    if (named.workflowId !== undefined && named.workflowId !== name) {
      throw new TypeError(`the workflow named '${name}' is already served as '${named.workflowId}': create one workflow per name`)
    }
    named.workflowId = name
    handlers.set(name, serve(workflow.routeFunction as RouteFunction<unknown>, { ...options, ...(workflow.options as ServeOptions) }))
  }
  return async (request) => {
    const segment = new URL(request.url).pathname.split('/').at(-1) ?? ''
    const handler = handlers.get(decodeURIComponent(segment))
    if (handler) return handler(request)
    const known = [...handlers.keys()].join(', ')
    return new Response(JSON.stringify({ error: `no workflow named ${JSON.stringify(segment)} here; this route serves: ${known}` }), {
      status: 404,
      headers: { 'content-type': 'application/json', [PROTOCOL_VERSION_HEADER]: PROTOCOL_VERSION },
    })
  }
}
