/**
 * The queue API's routing: a table of method, path pattern and handler, matched against the
 * path below `/v2/`. Segments are matched percent-decoded; `:name` takes one non-empty segment,
 * a final `*` one or more.
 */
import type { HttpRequest, HttpResponse } from '../adapters/http.js'

/** What a route's handler gets. */
export interface ApiCall {
  readonly request: HttpRequest
  /** The path as sent (still percent-encoded). */
  readonly rawPath: string
  /** The query string, without `?`. */
  readonly search: string
  readonly query: URLSearchParams
  /** The `:name` segments of the pattern, decoded. */
  readonly params: Readonly<Record<string, string>>
}

export interface Route {
  readonly method: string
  /** `workflows/runs/:id`, `publish/*`. */
  readonly path: string
  readonly run: (call: ApiCall) => Promise<HttpResponse> | HttpResponse
}

/** The route for the request, the methods the path allows (405), or none (404). */
export type RouteMatch =
  | { readonly kind: 'found'; readonly route: Route; readonly params: Record<string, string> }
  | { readonly kind: 'method'; readonly allow: readonly string[] }
  | { readonly kind: 'none' }

const compiled = new WeakMap<Route, readonly string[]>()

function patternOf(route: Route): readonly string[] {
  let pattern = compiled.get(route)
  if (pattern === undefined) {
    pattern = route.path.split('/')
    compiled.set(route, pattern)
  }
  return pattern
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment)
  } catch {
    return segment
  }
}

/** The parameters of `segments` under `pattern`, or undefined when the path does not fit. */
function matchPattern(pattern: readonly string[], segments: readonly string[]): Record<string, string> | undefined {
  const rest = pattern[pattern.length - 1] === '*'
  if (rest ? segments.length < pattern.length : segments.length !== pattern.length) return undefined
  const params: Record<string, string> = {}
  for (let i = 0; i < pattern.length; i++) {
    const part = pattern[i]
    if (part === '*') break
    if (part.startsWith(':')) {
      if (segments[i] === '') return undefined
      params[part.slice(1)] = segments[i]
    } else if (part !== segments[i]) return undefined
  }
  return params
}

/** Finds the route of `method` and `path` (below `/v2/`, no query). */
export function matchRoute(routes: readonly Route[], method: string, path: string): RouteMatch {
  const segments = path.split('/').map(decodeSegment)
  const allow: string[] = []
  for (const route of routes) {
    const params = matchPattern(patternOf(route), segments)
    if (params === undefined) continue
    if (route.method === method) return { kind: 'found', route, params }
    if (!allow.includes(route.method)) allow.push(route.method)
  }
  return allow.length > 0 ? { kind: 'method', allow } : { kind: 'none' }
}
