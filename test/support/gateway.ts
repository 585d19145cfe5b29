/**
 * Calls a gateway's `handle` directly, the way an adapter would, and reads the answer: status,
 * headers, text and parsed JSON.
 */
import type { Gateway, RestResponse } from '../../src/rest/gateway.js'

export interface Sent {
  status: number
  headers: Record<string, string>
  text: string
  json: unknown
}

export interface SendOptions {
  body?: string | Uint8Array
  headers?: Record<string, string>
  /** Bearer token; `null` sends none; default the requester's token. */
  token?: string | null
}

export type Send = (method: string, url: string, options?: SendOptions) => Promise<Sent>

export function requester(gateway: Gateway, defaultToken: string): Send {
  return async (method, url, options = {}) => {
    const headers: Record<string, string> = { ...options.headers }
    const token = options.token === undefined ? defaultToken : options.token
    if (token !== null) headers.authorization = `Bearer ${token}`
    const lower = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]))
    const response: RestResponse = await gateway.handle({
      method,
      url,
      headers: { get: (name) => lower[name.toLowerCase()] ?? null },
      body: typeof options.body === 'string' ? Buffer.from(options.body) : options.body,
    })
    const body = response.body
    const text = typeof body === 'string' ? body : body instanceof Uint8Array ? Buffer.from(body).toString('latin1') : ''
    let json: unknown
    try {
      json = JSON.parse(text)
    } catch {
      json = undefined
    }
    return { status: response.status, headers: { ...response.headers }, text, json }
  }
}

/** The `result` of a JSON envelope, failing loudly on an error envelope. */
export function resultOf(sent: Sent): unknown {
  const body = sent.json as { result?: unknown; error?: string }
  if (body === undefined || 'error' in body) throw new Error(`expected a result, got ${sent.status} ${sent.text}`)
  return body.result
}
