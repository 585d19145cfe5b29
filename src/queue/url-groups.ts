/**
 * URL groups (`/v2/topics…`, the hosted queue's "topics"): a named set of endpoints. Publishing
 * to a group's name (`POST /v2/publish/<name>`) gives each endpoint a message of its own, with
 * its own retries and dead letter.
 *
 * Keys (below the store's prefix):
 * - `topics`        zset  group name → creation time
 * - `topic:<name>`  hash  name, createdAt, updatedAt, endpoints (JSON `[{url, name?}]`)
 */
import { jsonResponse, type HttpResponse } from '../adapters/http.js'
import type { ApiCall, Route } from './routes.js'
import { StoreError, type QueueStore } from './store.js'

/** One endpoint of a URL group. @public */
export interface UrlGroupEndpoint {
  readonly url: string
  readonly name?: string
}

/** A URL group in API answers. @public */
export interface UrlGroupView {
  readonly name: string
  readonly createdAt: number
  readonly updatedAt: number
  readonly endpoints: UrlGroupEndpoint[]
}

const GROUP_NAME = /^[A-Za-z0-9_.-]{1,256}$/
const decoder = new TextDecoder()

function bad(message: string): never {
  throw new StoreError(message, 400)
}

/** The `endpoints` of a request body, validated. */
function endpointsOf(call: ApiCall, needUrl: boolean): UrlGroupEndpoint[] {
  let parsed: unknown
  try {
    parsed = JSON.parse(decoder.decode(call.request.body ?? new Uint8Array(0)))
  } catch {
    bad('the body must be JSON {"endpoints": [{"url": "https://…", "name": "…"}]}')
  }
  const endpoints = (parsed as { endpoints?: unknown })?.endpoints
  if (!Array.isArray(endpoints) || endpoints.length === 0) bad('"endpoints" must be a non-empty array of {url, name?}')
  return endpoints.map((entry: unknown, index) => {
    const { url, name } = (entry ?? {}) as { url?: unknown; name?: unknown }
    if (url !== undefined && typeof url !== 'string') bad(`endpoint ${index}: "url" must be a string`)
    if (name !== undefined && typeof name !== 'string') bad(`endpoint ${index}: "name" must be a string`)
    if (needUrl || url !== undefined) {
      if (url === undefined) bad(`endpoint ${index}: "url" is required`)
      if (!/^https?:\/\/[^/]/i.test(url)) bad(`endpoint ${index}: invalid url ${JSON.stringify(url)}: an absolute http(s) URL is required`)
    } else if (name === undefined) bad(`endpoint ${index}: name the endpoint to remove by "url" or "name"`)
    return { url: url as string, ...(name ? { name } : {}) }
  })
}

/** URL groups: their API routes and the fan-out publishing uses. */
export class UrlGroups {
  constructor(
    private readonly store: QueueStore,
    private readonly now: () => number = Date.now,
  ) {}

  private key(name: string): string {
    return `${this.store.prefix}topic:${name}`
  }
  private get listKey(): string {
    return `${this.store.prefix}topics`
  }

  /** The group named `name`, or undefined. */
  async get(name: string): Promise<UrlGroupView | undefined> {
    const [createdAt, updatedAt, endpoints] = (await this.store.call(['HMGET', this.key(name), 'createdAt', 'updatedAt', 'endpoints'])) as (Uint8Array | null)[]
    if (createdAt === null) return undefined
    return {
      name,
      createdAt: Number(decoder.decode(createdAt)),
      updatedAt: Number(decoder.decode(updatedAt ?? createdAt)),
      endpoints: JSON.parse(decoder.decode(endpoints ?? new Uint8Array(0)) || '[]') as UrlGroupEndpoint[],
    }
  }

  private async required(name: string): Promise<UrlGroupView> {
    const group = await this.get(name)
    if (!group) throw new StoreError(`url group ${name} not found`, 404)
    return group
  }

  private async save(group: UrlGroupView): Promise<void> {
    await this.store.multi([
      ['HSET', this.key(group.name), 'createdAt', String(group.createdAt), 'updatedAt', String(group.updatedAt), 'endpoints', JSON.stringify(group.endpoints)],
      ['ZADD', this.listKey, String(group.createdAt), group.name],
    ])
  }

  /** Adds endpoints (an endpoint with a URL already in the group takes the new name), creating the group. */
  private async addEndpoints(call: ApiCall): Promise<HttpResponse> {
    const name = call.params.name
    if (!GROUP_NAME.test(name)) bad(`invalid url group name ${JSON.stringify(name)}: letters, digits, "-", "_" and "." only`)
    const added = endpointsOf(call, true)
    const now = this.now()
    const group = (await this.get(name)) ?? { name, createdAt: now, updatedAt: now, endpoints: [] }
    const endpoints = [...group.endpoints]
    for (const endpoint of added) {
      const index = endpoints.findIndex((existing) => existing.url === endpoint.url)
      if (index === -1) endpoints.push(endpoint)
      else endpoints[index] = endpoint
    }
    await this.save({ ...group, updatedAt: now, endpoints })
    return { status: 200, headers: {}, body: '' }
  }

  /** Removes endpoints named by URL or name; the group stays (empty) until deleted. */
  private async removeEndpoints(call: ApiCall): Promise<HttpResponse> {
    const group = await this.required(call.params.name)
    const removed = endpointsOf(call, false)
    const endpoints = group.endpoints.filter(
      (endpoint) => !removed.some((gone) => (gone.url !== undefined && gone.url === endpoint.url) || (gone.name !== undefined && gone.name === endpoint.name)),
    )
    if (endpoints.length === group.endpoints.length) throw new StoreError(`none of those endpoints is in url group ${group.name}`, 404)
    await this.save({ ...group, updatedAt: this.now(), endpoints })
    return { status: 200, headers: {}, body: '' }
  }

  private async list(): Promise<HttpResponse> {
    const names = ((await this.store.call(['ZRANGE', this.listKey, '0', '-1'])) as Uint8Array[]).map((name) => decoder.decode(name))
    const groups = await Promise.all(names.map((name) => this.get(name)))
    return jsonResponse(200, groups.filter((group) => group !== undefined))
  }

  private async remove({ params }: ApiCall): Promise<HttpResponse> {
    await this.required(params.name)
    await this.store.multi([
      ['DEL', this.key(params.name)],
      ['ZREM', this.listKey, params.name],
    ])
    return { status: 200, headers: {}, body: '' }
  }

  /** The routes below `/v2/`. */
  routes(): Route[] {
    return [
      { method: 'GET', path: 'topics', run: () => this.list() },
      { method: 'GET', path: 'topics/:name', run: async ({ params }) => jsonResponse(200, await this.required(params.name)) },
      { method: 'DELETE', path: 'topics/:name', run: (call) => this.remove(call) },
      { method: 'POST', path: 'topics/:name/endpoints', run: (call) => this.addEndpoints(call) },
      { method: 'DELETE', path: 'topics/:name/endpoints', run: (call) => this.removeEndpoints(call) },
    ]
  }
}
