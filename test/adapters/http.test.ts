import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { request as httpRequest } from 'node:http'
import { connect, type Socket } from 'node:net'
import { createNodeHandler } from '../../src/adapters/node.js'
import { createFetchHandler } from '../../src/adapters/fetch.js'
import { createGateway } from '../../src/rest/gateway.js'
import { TokenStore } from '../../src/auth/tokens.js'
import { MemoryExecutor } from '../../src/executor/memory/memory-executor.js'
import { listen } from '../support/http.js'

const TOKEN = 'tok'
const auth = { authorization: `Bearer ${TOKEN}` }

/** One keep-alive connection on which raw requests are written and whole responses read in order. */
class RawConnection {
  private buffered = Buffer.alloc(0)
  private waiting: (() => void) | undefined

  private constructor(private readonly socket: Socket) {
    socket.on('data', (chunk: Buffer) => {
      this.buffered = Buffer.concat([this.buffered, chunk])
      this.waiting?.()
    })
  }

  static async open(url: string): Promise<RawConnection> {
    const { hostname, port } = new URL(url)
    const socket = connect(Number(port), hostname)
    await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject))
    return new RawConnection(socket)
  }

  /** `GET path`, or with a body `POST path`, as HTTP/1.1 text. */
  static request(path: string, token: string, body?: string): string {
    const head = `${body === undefined ? 'GET' : 'POST'} ${path} HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${token}\r\n`
    return body === undefined ? `${head}\r\n` : `${head}content-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`
  }

  /** Writes requests in one write (HTTP pipelining). */
  send(...requests: string[]): void {
    this.socket.write(requests.join(''))
  }

  /** The next `count` responses, in the order they arrive: status and body. */
  async responses(count: number): Promise<{ status: number; body: string }[]> {
    const out: { status: number; body: string }[] = []
    while (out.length < count) {
      const response = this.take()
      if (response !== undefined) {
        out.push(response)
        continue
      }
      await new Promise<void>((resolve, reject) => {
        this.waiting = resolve
        this.socket.once('close', () => reject(new Error('connection closed')))
      })
    }
    return out
  }

  /** A whole response from the front of the buffer (content-length or chunked), if there is one. */
  private take(): { status: number; body: string } | undefined {
    const end = this.buffered.indexOf('\r\n\r\n')
    if (end === -1) return undefined
    const head = this.buffered.subarray(0, end).toString('latin1')
    const status = Number(head.split(' ')[1])
    let at = end + 4
    const length = /\r\ncontent-length: (\d+)/i.exec(head)?.[1]
    if (length !== undefined) {
      if (this.buffered.length < at + Number(length)) return undefined
      const body = this.buffered.subarray(at, at + Number(length)).toString('utf8')
      this.buffered = this.buffered.subarray(at + Number(length))
      return { status, body }
    }
    // Chunked: size line, data, CRLF … up to the zero-size chunk.
    const parts: Buffer[] = []
    for (;;) {
      const line = this.buffered.indexOf('\r\n', at)
      if (line === -1) return undefined
      const size = parseInt(this.buffered.subarray(at, line).toString('latin1'), 16)
      if (this.buffered.length < line + 2 + size + 2) return undefined
      if (size === 0) {
        this.buffered = this.buffered.subarray(line + 4)
        return { status, body: Buffer.concat(parts).toString('utf8') }
      }
      parts.push(this.buffered.subarray(line + 2, line + 2 + size))
      at = line + 2 + size + 2
    }
  }

  close(): void {
    this.socket.destroy()
  }
}

describe('Node http handler on a real server', () => {
  const executor = new MemoryExecutor()
  let server: Awaited<ReturnType<typeof listen>>
  beforeAll(async () => {
    server = await listen(createNodeHandler({ executor, token: TOKEN, maxRequestSize: 1024 }))
  })
  afterAll(async () => {
    await server.close()
    await executor.close()
  })

  test('fetch runs a command through node:http', async () => {
    const set = await fetch(`${server.url}/set/a/1`, { headers: auth })
    expect(set.status).toBe(200)
    expect(await set.json()).toEqual({ result: 'OK' })
    expect(await (await fetch(`${server.url}/get/a`, { headers: auth })).json()).toEqual({ result: '1' })
  })

  test('a body over the maximum request size is refused while streaming, and the server keeps serving', async () => {
    const status = await new Promise<number>((resolve, reject) => {
      const req = httpRequest(`${server.url}/set/big`, { method: 'POST', headers: { ...auth, 'transfer-encoding': 'chunked' } }, (res) => {
        res.resume()
        resolve(res.statusCode ?? 0)
      })
      req.on('error', () => {})
      // Keep writing past the limit: the server answers 400 without waiting for the end.
      const chunk = Buffer.alloc(512, 120)
      let sent = 0
      const pump = () => {
        while (sent < 64 && req.write(chunk)) sent++
        if (sent < 64) req.once('drain', pump)
      }
      pump()
      setTimeout(() => reject(new Error('no answer')), 10_000).unref()
    })
    expect(status).toBe(400)
    expect(await (await fetch(`${server.url}/ping`, { headers: auth })).json()).toEqual({ result: 'PONG' })
  })

  test('works as Express-style middleware mounted under a path', async () => {
    const handler = createNodeHandler({ executor, token: TOKEN })
    const mounted = await listen((req, res) => {
      if (!req.url?.startsWith('/redis/')) {
        res.writeHead(404).end('not here')
        return
      }
      req.url = req.url.slice('/redis'.length)
      handler(req, res, (error) => {
        res.writeHead(500).end(String(error))
      })
    })
    try {
      expect(await (await fetch(`${mounted.url}/redis/echo/hi`, { headers: auth })).json()).toEqual({ result: 'hi' })
      expect((await fetch(`${mounted.url}/other`)).status).toBe(404)
    } finally {
      await mounted.close()
    }
  })

  test('a body parsed by earlier middleware is used', async () => {
    const handler = createNodeHandler({ executor, token: TOKEN })
    const withParser = await listen((req, res) => {
      const chunks: Buffer[] = []
      req.on('data', (c: Buffer) => chunks.push(c))
      req.on('end', () => {
        ;(req as typeof req & { body: unknown }).body = JSON.parse(Buffer.concat(chunks).toString())
        handler(req, res)
      })
    })
    try {
      const response = await fetch(withParser.url, { method: 'POST', headers: auth, body: '["ECHO","parsed"]' })
      expect(await response.json()).toEqual({ result: 'parsed' })
    } finally {
      await withParser.close()
    }
  })
})

describe('Node http handler: one connection, several requests', () => {
  const executor = new MemoryExecutor()
  const tokens = new TokenStore({ token: TOKEN })
  let server: Awaited<ReturnType<typeof listen>>
  beforeAll(async () => {
    server = await listen(createNodeHandler(createGateway({ executor, auth: tokens })))
  })
  afterAll(async () => {
    await server.close()
    await executor.close()
  })

  test('pipelined requests are answered in order and run in order, those with a body too', async () => {
    const connection = await RawConnection.open(server.url)
    try {
      const { request } = RawConnection
      connection.send(
        request('/set/order', TOKEN, 'one'), // a body: read before it runs
        request('/get/order', TOKEN), // no body: must still run after the SET
        request('/set/order/two', TOKEN),
        request('/pipeline', TOKEN, '[["GET","order"],["SET","order","three"]]'),
        request('/get/order', TOKEN),
        request('/incr/order', TOKEN),
        request('/get/order', TOKEN),
      )
      expect(await connection.responses(7)).toEqual([
        { status: 200, body: '{"result":"OK"}' },
        { status: 200, body: '{"result":"one"}' },
        { status: 200, body: '{"result":"OK"}' },
        { status: 200, body: '[{"result":"two"},{"result":"OK"}]' },
        { status: 200, body: '{"result":"three"}' },
        { status: 400, body: '{"error":"ERR value is not an integer or out of range"}' },
        { status: 200, body: '{"result":"three"}' },
      ])
    } finally {
      connection.close()
    }
  })

  test('many pipelined requests on several connections: each connection gets its answers in its order', async () => {
    const connections = await Promise.all([0, 1, 2].map(() => RawConnection.open(server.url)))
    try {
      connections.forEach((connection, c) =>
        connection.send(...Array.from({ length: 50 }, (_, i) => RawConnection.request(`/echo/c${c}-${i}`, TOKEN))),
      )
      const answers = await Promise.all(connections.map((connection) => connection.responses(50)))
      answers.forEach((responses, c) => expect(responses.map((r) => r.body)).toEqual(Array.from({ length: 50 }, (_, i) => `{"result":"c${c}-${i}"}`)))
    } finally {
      for (const connection of connections) connection.close()
    }
  })

  test('a rotated token is refused on the very next request of the same keep-alive connection', async () => {
    const connection = await RawConnection.open(server.url)
    try {
      connection.send(RawConnection.request('/ping', TOKEN))
      expect(await connection.responses(1)).toEqual([{ status: 200, body: '{"result":"PONG"}' }])
      const { token: next } = tokens.rotate()
      connection.send(RawConnection.request('/ping', TOKEN), RawConnection.request('/ping', next))
      expect(await connection.responses(2)).toEqual([
        { status: 401, body: '{"error":"WRONGPASS invalid or missing auth token"}' },
        { status: 200, body: '{"result":"PONG"}' },
      ])
      tokens.rotate({ token: TOKEN })
      connection.send(RawConnection.request('/ping', next), RawConnection.request('/ping', TOKEN))
      expect((await connection.responses(2)).map((r) => r.status)).toEqual([401, 200])
    } finally {
      connection.close()
    }
  })

  test('a response that cannot be written goes to next(error), or becomes a 500; the connection keeps serving', async () => {
    const real = createGateway({ executor, token: TOKEN })
    const broken = {
      ...real,
      handle: async (request: Parameters<typeof real.handle>[0]) => {
        const response = await real.handle(request)
        return request.url.startsWith('/broken') ? { ...response, headers: { ...response.headers, 'x-bad': 'line\nbreak' } } : response
      },
    }
    const errors: unknown[] = []
    const withNext = createNodeHandler(broken)
    const mounted = await listen((req, res) => {
      if (req.url?.startsWith('/next/')) {
        req.url = req.url.slice('/next'.length)
        withNext(req, res, (error) => {
          errors.push(error)
          res.writeHead(502).end('from next')
        })
      } else withNext(req, res)
    })
    const connection = await RawConnection.open(mounted.url)
    try {
      const { request } = RawConnection
      connection.send(request('/broken/ping', TOKEN), request('/ping', TOKEN), request('/next/broken/ping', TOKEN), request('/next/ping', TOKEN))
      expect(await connection.responses(4)).toEqual([
        { status: 500, body: '{"error":"ERR internal error"}' },
        { status: 200, body: '{"result":"PONG"}' },
        { status: 502, body: 'from next' },
        { status: 200, body: '{"result":"PONG"}' },
      ])
      expect(errors).toHaveLength(1)
    } finally {
      connection.close()
      await mounted.close()
    }
  })

  test('an event stream streams: its events arrive while the response is still open', async () => {
    const controller = new AbortController()
    const response = await fetch(`${server.url}/subscribe/news`, { method: 'POST', headers: auth, signal: controller.signal })
    try {
      expect(response.headers.get('content-type')).toBe('text/event-stream')
      const reader = response.body!.getReader()
      const decoder = new TextDecoder()
      let received = ''
      const until = async (text: string) => {
        while (!received.includes(text)) {
          const { value, done } = await reader.read()
          if (done) throw new Error(`stream ended before ${text}`)
          received += decoder.decode(value)
        }
      }
      await until('data: subscribe,news,1')
      expect(await (await fetch(`${server.url}/publish/news/hello`, { headers: auth })).json()).toEqual({ result: 1 })
      await until('data: message,news,hello')
    } finally {
      controller.abort()
    }
  })
})

describe('Fetch handler', () => {
  const executor = new MemoryExecutor()
  const handler = createFetchHandler({ executor, token: TOKEN, maxRequestSize: 64 })
  afterAll(() => executor.close())

  test('answers a Request with a Response', async () => {
    const response = await handler(new Request('http://x/set/k/v', { headers: auth }))
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toBe('application/json')
    expect(response.headers.get('service-sync-token')).toBeTruthy()
    expect(await response.json()).toEqual({ result: 'OK' })
  })

  test('reads POST bodies', async () => {
    const response = await handler(new Request('http://x/pipeline', { method: 'POST', headers: auth, body: '[["INCR","c"],["INCR","c"]]' }))
    expect(await response.json()).toEqual([{ result: 1 }, { result: 2 }])
  })

  test('refuses a body over the limit', async () => {
    const response = await handler(new Request('http://x/set/k', { method: 'POST', headers: auth, body: 'x'.repeat(100) }))
    expect(response.status).toBe(400)
    expect(await response.json()).toEqual({ error: 'ERR max request size exceeded' })
  })

  test('a 405 for DELETE', async () => {
    const response = await handler(new Request('http://x/get/k', { method: 'DELETE', headers: auth }))
    expect(response.status).toBe(405)
  })
})
