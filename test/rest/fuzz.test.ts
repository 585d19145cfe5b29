/**
 * Property-based fuzzing of the gateway: random methods, paths, headers and bodies must always
 * produce a well-formed response with a status from the protocol and a JSON error body, never an
 * exception, a stack trace, or a hang; the gateway keeps serving afterwards.
 */
import { afterAll, describe, expect, test } from 'vitest'
import fc from 'fast-check'
import { createGateway } from '../../src/rest/gateway.js'
import { MemoryExecutor } from '../../src/executor/memory/memory-executor.js'

const TOKEN = 'fuzz-token'
export const FUZZ_RUNS = 3000

const executor = new MemoryExecutor()
const gateway = createGateway({ executor, token: TOKEN, readonlyToken: 'ro' })
afterAll(() => executor.close())

const segment = fc.oneof(
  fc.constantFrom('get', 'set', 'SET', 'incr', 'pipeline', 'multi-exec', 'monitor', 'subscribe', 'blpop', 'del', 'mget', 'ping', 'echo', 'info', 'keys', '*'),
  fc.string({ maxLength: 12 }).map(encodeURIComponent),
  fc.stringMatching(/^(%[0-9A-Fa-f]{2}|%|[a-z0-9])*$/, { maxLength: 12 }),
)
const path = fc.array(segment, { maxLength: 6 }).map((parts) => '/' + parts.join('/'))
const query = fc.oneof(fc.constant(''), fc.array(fc.tuple(fc.constantFrom('EX', 'NX', '_token', 'x', ''), fc.string({ maxLength: 6 })), { maxLength: 3 }).map((pairs) => '?' + pairs.map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('&')))
const jsonArg = fc.oneof(fc.string({ maxLength: 8 }), fc.integer(), fc.double(), fc.boolean(), fc.constant(null), fc.constant([]))
const body = fc.oneof(
  fc.constant(undefined),
  fc.uint8Array({ maxLength: 64 }),
  fc.array(jsonArg, { maxLength: 5 }).map((a) => Buffer.from(JSON.stringify(a))),
  fc.array(fc.array(jsonArg, { maxLength: 4 }), { maxLength: 4 }).map((a) => Buffer.from(JSON.stringify(a))),
  fc.string({ maxLength: 40 }).map((s) => Buffer.from(s)),
)
const headerValue = fc.oneof(fc.constantFrom('base64', 'BASE64', 'json', 'resp2', 'RESP2', '', 'xml'), fc.string({ maxLength: 8 }))
const request = fc.record({
  method: fc.constantFrom('GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'get', 'BREW'),
  path,
  query,
  body,
  encoding: fc.option(headerValue, { nil: undefined }),
  format: fc.option(headerValue, { nil: undefined }),
  token: fc.constantFrom(TOKEN, 'ro', 'wrong', undefined),
})

describe('gateway fuzz', () => {
  test(`${FUZZ_RUNS} random requests all get a protocol status and a well-formed body`, async () => {
    await fc.assert(
      fc.asyncProperty(request, async (r) => {
        const headers: Record<string, string> = {}
        if (r.token !== undefined) headers.authorization = `Bearer ${r.token}`
        if (r.encoding !== undefined) headers['service-encoding'] = r.encoding
        if (r.format !== undefined) headers['service-response-format'] = r.format
        const response = await gateway.handle({
          method: r.method,
          url: r.path + r.query,
          headers: { get: (name) => headers[name.toLowerCase()] ?? null },
          body: r.body,
        })
        expect([200, 400, 401, 405]).toContain(response.status)
        if (typeof response.body === 'string' && response.body.length > 0) {
          const parsed = JSON.parse(response.body) as unknown
          if (response.status !== 200) {
            expect(parsed).toHaveProperty('error')
            expect(JSON.stringify(parsed)).not.toMatch(/\bat .*\.ts:\d+|Error:/)
          }
        }
        if (typeof response.body === 'object' && !(response.body instanceof Uint8Array)) {
          // An event stream: close it right away; it must end by itself.
          const controller = new AbortController()
          controller.abort()
          await response.body.run({ write: () => true, pending: 0, close: () => {} }, controller.signal)
        }
      }),
      { numRuns: FUZZ_RUNS, seed: 20261121 },
    )
    const after = await gateway.handle({ method: 'GET', url: '/ping', headers: { get: (n) => (n === 'authorization' ? `Bearer ${TOKEN}` : null) } })
    expect(after.body).toBe('{"result":"PONG"}')
  })
})
