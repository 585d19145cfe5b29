import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createServer, request, type Server } from 'node:https'
import type { AddressInfo } from 'node:net'
import { createNodeHandler } from '../../src/adapters/node.js'
import { MemoryExecutor } from '../../src/executor/memory/memory-executor.js'
import { makeCertificate, opensslSkipReason, type TestCertificate } from '../support/tls-cert.js'

/** A request over HTTPS trusting `ca`; resolves with the status and body. */
function send(url: string, ca: string, token: string, body?: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: body === undefined ? 'GET' : 'POST', ca, agent: false, headers: { authorization: `Bearer ${token}` } }, (response) => {
      let text = ''
      response.setEncoding('utf8')
      response.on('data', (chunk: string) => (text += chunk))
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: text }))
    })
    req.on('error', reject)
    req.end(body)
  })
}

describe.skipIf(opensslSkipReason !== undefined)(`the Node handler behind node:https${opensslSkipReason ? ` (skipped: ${opensslSkipReason})` : ''}`, () => {
  let certificate: TestCertificate
  let executor: MemoryExecutor
  let server: Server
  let base: string

  beforeAll(async () => {
    certificate = makeCertificate()
    executor = new MemoryExecutor()
    // The README's snippet: the handler is an ordinary request listener, so any https server takes it.
    server = createServer({ cert: certificate.cert, key: certificate.key }, createNodeHandler({ executor, token: 'secret' }))
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    base = `https://localhost:${(server.address() as AddressInfo).port}`
  })
  afterAll(async () => {
    await new Promise((resolve) => server?.close(resolve))
    await executor?.close()
    certificate?.remove()
  })

  test('commands in the path and in the body, and a pipeline, over TLS', async () => {
    expect(await send(`${base}/set/k/over-https`, certificate.cert, 'secret')).toEqual({ status: 200, body: '{"result":"OK"}' })
    expect(await send(base, certificate.cert, 'secret', '["GET","k"]')).toEqual({ status: 200, body: '{"result":"over-https"}' })
    expect(await send(`${base}/pipeline`, certificate.cert, 'secret', '[["INCR","n"],["INCR","n"]]')).toEqual({ status: 200, body: '[{"result":1},{"result":2}]' })
    expect((await send(`${base}/get/k`, certificate.cert, 'wrong')).status).toBe(401)
  })

  test('a client that does not trust the certificate is refused by TLS, before any token is sent', async () => {
    await expect(send(`${base}/get/k`, '', 'secret')).rejects.toThrow(/self[- ]signed|unable to verify|certificate/i)
  })
})
