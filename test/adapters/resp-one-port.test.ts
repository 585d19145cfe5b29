/**
 * One port for RESP and HTTP: the RESP listener hands HTTP requests to the gateway's Node server.
 * redis-cli and HTTP clients on the same port, with and without TLS, each with its own auth.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { spawn, spawnSync } from 'node:child_process'
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http'
import { request as httpsRequest } from 'node:https'
import net from 'node:net'
import { createGateway } from '../../src/rest/gateway.js'
import { createNodeHandler } from '../../src/adapters/node.js'
import { MemoryExecutor } from '../../src/executor/memory/memory-executor.js'
import { serveResp, type RespServer } from '../../src/adapters/resp-server.js'
import { RawClient, show } from '../executor/socket/support.js'
import { makeCertificate, opensslSkipReason, type TestCertificate } from '../support/tls-cert.js'

const TOKEN = 'standard-token'
const READONLY = 'readonly-token'
const missing = (tool: string): string | undefined =>
  spawnSync(tool, ['--version'], { stdio: 'ignore' }).status === 0 || process.env.CI === 'true' ? undefined : `${tool} not found`
const cliMissing = missing('redis-cli')
const curlMissing = missing('curl')

function redisCli(args: string[]): Promise<{ code: number | null; output: string }> {
  return tool('redis-cli', args)
}

function tool(name: string, args: string[]): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(name, args, { stdio: ['ignore', 'pipe', 'pipe'] })
    let output = ''
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()))
    child.on('error', reject)
    child.on('close', (code) => resolve({ code, output }))
  })
}

/** Everything a raw socket receives until the server closes it (HTTP/1.1 with `Connection: close`). */
function rawExchange(port: number, pieces: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1')
    let received = ''
    socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')))
    socket.on('error', reject)
    socket.on('close', () => resolve(received))
    // Each piece in its own write, the next one after the previous was flushed.
    const next = (i: number): void => {
      if (i < pieces.length) socket.write(pieces[i], () => setImmediate(() => next(i + 1)))
    }
    socket.on('connect', () => next(0))
  })
}

describe('RESP and HTTP on one port', () => {
  let executor: MemoryExecutor
  let http: HttpServer
  let resp: RespServer
  let port: number

  beforeAll(async () => {
    executor = new MemoryExecutor()
    const gateway = createGateway({ executor, token: TOKEN, readonlyToken: READONLY })
    http = createHttpServer(createNodeHandler(gateway))
    resp = await serveResp(executor, { port: 0, auth: gateway.tokens, http })
    port = resp.address.port
  })
  afterAll(async () => {
    await resp?.close()
    await executor?.close()
  })

  test('HTTP requests get the REST API, with the gateway tokens and its rules', async () => {
    const base = `http://127.0.0.1:${port}`
    const auth = { authorization: `Bearer ${TOKEN}` }
    const set = await fetch(`${base}/set/shared/from-http`, { headers: auth })
    expect([set.status, await set.json()]).toEqual([200, { result: 'OK' }])
    const refused = await fetch(`${base}/get/shared`)
    expect(refused.status).toBe(401)
    const readonly = await fetch(`${base}/set/shared/x`, { headers: { authorization: `Bearer ${READONLY}` } })
    // The protocol's answer to a command the token may not run (docs/protocol.md).
    expect([readonly.status, ((await readonly.json()) as { error: string }).error]).toEqual([400, expect.stringMatching(/^NOPERM /)])
    const pipeline = await fetch(`${base}/pipeline`, { method: 'POST', headers: auth, body: JSON.stringify([['GET', 'shared'], ['PING']]) })
    expect(await pipeline.json()).toEqual([{ result: 'from-http' }, { result: 'PONG' }])
    expect(resp.clients).toBe(0) // HTTP connections are not RESP clients
  })

  test('RESP clients on the same port AUTH with the same tokens and see the same data', async () => {
    const client = await RawClient.connect(port)
    try {
      expect(show(await client.call('GET', 'shared'))).toBe('-NOAUTH Authentication required.')
      expect(show(await client.call('AUTH', TOKEN))).toBe('+OK')
      expect(show(await client.call('SET', 'shared', 'from-resp'))).toBe('+OK')
      const read = await fetch(`http://127.0.0.1:${port}/get/shared`, { headers: { authorization: `Bearer ${TOKEN}` } })
      expect(await read.json()).toEqual({ result: 'from-resp' })
    } finally {
      client.destroy()
    }
  })

  test.skipIf(cliMissing !== undefined)(`redis-cli works on the port${cliMissing ? ` (skipped: ${cliMissing})` : ''}`, async () => {
    expect(await redisCli(['-p', String(port), '-a', TOKEN, '--no-auth-warning', 'SET', 'cli', 'v'])).toEqual({ code: 0, output: 'OK\n' })
    expect(await redisCli(['-p', String(port), '--user', 'readonly', '--pass', READONLY, '--no-auth-warning', 'GET', 'cli'])).toEqual({ code: 0, output: 'v\n' })
  })

  test.skipIf(curlMissing !== undefined)(`curl works on the port${curlMissing ? ` (skipped: ${curlMissing})` : ''}`, async () => {
    const url = `http://127.0.0.1:${port}/get/cli`
    expect(await tool('curl', ['-s', '-H', `Authorization: Bearer ${TOKEN}`, url])).toEqual({ code: 0, output: '{"result":"v"}' })
    expect(await tool('curl', ['-s', '-o', '/dev/null', '-w', '%{http_code}', url])).toEqual({ code: 0, output: '401' })
  })

  test('first bytes split across packets: an inline command and an HTTP request line are both told apart', async () => {
    const inline = await rawExchange(port, ['AU', `TH ${TOKEN}\r\nPI`, 'NG\r\nQUIT\r\n'])
    expect(inline).toBe('+OK\r\n+PONG\r\n+OK\r\n')
    const request = await rawExchange(port, ['GET /get/cli HT', `TP/1.1\r\nHost: x\r\nAuthorization: Bearer ${TOKEN}\r\nConnection: close\r\n\r\n`])
    expect(request).toMatch(/^HTTP\/1\.1 200 OK\r\n/)
    expect(request.endsWith('{"result":"v"}')).toBe(true)
  })

  test('without a server to hand it to, an HTTP request is closed unanswered, as Redis closes on POST and Host:', async () => {
    const alone = await serveResp(executor, { port: 0 })
    try {
      const answer = await rawExchange(alone.address.port, ['POST /set/a/b HTTP/1.1\r\nHost: x\r\n\r\n'])
      expect(answer).toBe('')
      expect(await rawExchange(alone.address.port, ['PING\r\nQUIT\r\n'])).toBe('+PONG\r\n+OK\r\n')
    } finally {
      await alone.close()
    }
  })
})

describe.skipIf(opensslSkipReason !== undefined)(`RESP and HTTPS on one TLS port${opensslSkipReason ? ` (skipped: ${opensslSkipReason})` : ''}`, () => {
  let certificate: TestCertificate
  let executor: MemoryExecutor
  let resp: RespServer
  let port: number

  beforeAll(async () => {
    certificate = makeCertificate()
    executor = new MemoryExecutor()
    const gateway = createGateway({ executor, token: TOKEN })
    const http = createHttpServer(createNodeHandler(gateway))
    resp = await serveResp(executor, { port: 0, auth: gateway.tokens, http, tls: { cert: certificate.cert, key: certificate.key } })
    port = resp.address.port
  })
  afterAll(async () => {
    await resp?.close()
    await executor?.close()
    certificate?.remove()
  })

  const get = (path: string, token?: string): Promise<{ status: number; body: string }> =>
    new Promise((resolve, reject) => {
      const headers = token === undefined ? {} : { authorization: `Bearer ${token}` }
      const req = httpsRequest(`https://localhost:${port}${path}`, { ca: certificate.cert, agent: false, headers }, (response) => {
        let body = ''
        response.setEncoding('utf8')
        response.on('data', (chunk: string) => (body += chunk))
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body }))
      })
      req.on('error', reject)
      req.end()
    })

  test('HTTPS and RESP over TLS share the port and the tokens', async () => {
    expect(await get('/set/tls/yes', TOKEN)).toEqual({ status: 200, body: '{"result":"OK"}' })
    expect((await get('/get/tls')).status).toBe(401)
    const client = await RawClient.connectTls(port, certificate.cert)
    try {
      expect(show(await client.call('GET', 'tls'))).toBe('-NOAUTH Authentication required.')
      expect(show(await client.call('AUTH', TOKEN))).toBe('+OK')
      expect(show(await client.call('GET', 'tls'))).toBe('yes')
    } finally {
      client.destroy()
    }
  })

  test.skipIf(cliMissing !== undefined)(`redis-cli --tls works on the port${cliMissing ? ` (skipped: ${cliMissing})` : ''}`, async () => {
    const args = ['--tls', '--cacert', certificate.certPath, '-h', 'localhost', '-p', String(port), '-a', TOKEN, '--no-auth-warning']
    expect(await redisCli([...args, 'GET', 'tls'])).toEqual({ code: 0, output: 'yes\n' })
  })

  test.skipIf(curlMissing !== undefined)(`curl over HTTPS works on the port${curlMissing ? ` (skipped: ${curlMissing})` : ''}`, async () => {
    const url = `https://localhost:${port}/get/tls`
    expect(await tool('curl', ['-s', '--cacert', certificate.certPath, '-H', `Authorization: Bearer ${TOKEN}`, url])).toEqual({ code: 0, output: '{"result":"yes"}' })
  })
})
