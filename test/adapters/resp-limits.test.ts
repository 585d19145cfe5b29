/**
 * The RESP listener's limits, over real sockets on loopback: the connection cap, the
 * authentication deadline and idle timeout, Redis 7's limits on unauthenticated input, the query
 * buffer limit, the output-buffer limits and send timeout, and the graceful close.
 */

import { afterEach, describe, expect, test } from 'vitest'
import net from 'node:net'
import type { Command, Reply } from '../../src/reply.js'
import type { CallContext } from '../../src/executor/executor.js'
import { MemoryExecutor } from '../../src/executor/memory/memory-executor.js'
import { serveResp, type RespServer, type RespServerOptions } from '../../src/adapters/resp-server.js'
import { multibulk, RawClient, show, waitFor } from '../executor/socket/support.js'

const PASSWORD = 'secret'

let executor: MemoryExecutor
let server: RespServer | undefined
const sockets: (RawClient | net.Socket)[] = []

afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy()
  await server?.close()
  server = undefined
  await executor?.close()
})

async function start(options: RespServerOptions, backend: MemoryExecutor = new MemoryExecutor()): Promise<RespServer> {
  executor = backend
  server = await serveResp(executor, { port: 0, password: PASSWORD, ...options })
  return server
}

async function connect(): Promise<RawClient> {
  const client = await RawClient.connect(server!.address.port)
  sockets.push(client)
  return client
}

async function login(): Promise<RawClient> {
  const client = await connect()
  expect(show(await client.call('AUTH', PASSWORD))).toBe('+OK')
  return client
}

/** A socket that never reads what it is sent (its receive window fills, then the server's). */
function stalledSocket(port: number): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => resolve(socket))
    socket.pause()
    socket.once('error', reject)
    sockets.push(socket)
  })
}

/** Everything a socket receives until the server closes it. */
function readToClose(socket: net.Socket): Promise<string> {
  return new Promise((resolve) => {
    let text = ''
    socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')))
    socket.on('error', () => {})
    socket.once('close', () => resolve(text))
  })
}

describe('connection cap (maxClients)', () => {
  test('one over the cap gets Redis\'s error and is closed; the clients in are still served', async () => {
    await start({ maxClients: 3 })
    const inside = [await login(), await login(), await connect()]
    expect(server!.maxClients).toBe(3)
    const over = net.connect(server!.address.port, '127.0.0.1')
    expect(await readToClose(over)).toBe('-ERR max number of clients reached\r\n')
    expect(show(await inside[0].call('SET', 'k', 'v'))).toBe('+OK')
    expect(show(await inside[1].call('GET', 'k'))).toBe('v')
    expect(show(await inside[2].call('AUTH', PASSWORD))).toBe('+OK')
    // A place freed is a place taken again.
    inside[2].destroy()
    await waitFor(() => server!.clients === 2, 'the freed place')
    const again = await login()
    expect(show(await again.call('GET', 'k'))).toBe('v')
  })
})

describe('authentication deadline and idle timeout', () => {
  test('a connection that does not authenticate in time is closed; authenticated ones stay (timeout 0)', async () => {
    await start({ authTimeout: 300 })
    const authenticated = await login()
    const idle = await connect()
    const talking = await connect()
    const started = Date.now()
    // Commands that are not AUTH do not extend the deadline.
    expect(show(await talking.call('GET', 'k'))).toBe('-NOAUTH Authentication required.')
    await Promise.all([idle.closed, talking.closed])
    expect(Date.now() - started).toBeGreaterThanOrEqual(250)
    expect(authenticated.isClosed).toBe(false)
    expect(show(await authenticated.call('PING'))).toBe('+PONG')
  })

  test('RESET logs out and starts the deadline again', async () => {
    await start({ authTimeout: 300 })
    const client = await login()
    expect(show(await client.call('RESET'))).toBe('+RESET')
    await client.closed
  })

  test('idleTimeout closes idle authenticated clients, not subscribers nor clients with a command running', async () => {
    let release: () => void = () => {}
    class Gated extends MemoryExecutor {
      override exec(command: Command, context?: CallContext): Promise<Reply> {
        if (String(command[0]).toLowerCase() !== 'get') return super.exec(command, context)
        return new Promise<void>((resolve) => (release = resolve)).then(() => super.exec(command, context))
      }
    }
    await start({ idleTimeout: 300, authTimeout: 60_000 }, new Gated())
    const idle = await login()
    const subscriber = await login()
    subscriber.write(multibulk(['SUBSCRIBE', 'ch']))
    expect(show(await subscriber.one())).toEqual(['subscribe', 'ch', 1])
    const waiting = await login()
    waiting.write(multibulk(['GET', 'k']))
    await idle.closed
    expect(subscriber.isClosed).toBe(false)
    expect(waiting.isClosed).toBe(false)
    release()
    expect(show(await waiting.one())).toBe(null)
    await waiting.closed // idle again, then closed
  })
})

describe('input limits', () => {
  test('before AUTH: more than 10 arguments, or an argument over 16384 bytes, is Redis\'s protocol error and a close', async () => {
    await start({})
    const many = await connect()
    many.write('*11\r\n')
    await expect(many.one()).resolves.toMatchObject({ message: 'ERR Protocol error: unauthenticated multibulk length' })
    await many.closed
    const long = await connect()
    long.write('*1\r\n$16385\r\n')
    await expect(long.one()).resolves.toMatchObject({ message: 'ERR Protocol error: unauthenticated bulk length' })
    await long.closed
    // At the limits, and after AUTH in the same write, nothing is refused.
    const client = await connect()
    client.write(Buffer.concat([multibulk(['AUTH', PASSWORD]), multibulk(['SET', 'big', Buffer.alloc(100_000, 97)]), multibulk(['STRLEN', 'big'])]))
    expect((await client.read(3)).map(show)).toEqual(['+OK', '+OK', 100_000])
    const atLimit = await connect()
    expect(show(await atLimit.call('AUTH', Buffer.alloc(16384, 97)))).toMatch(/^-WRONGPASS/)
  })

  test('a client whose unparsed input passes maxQueryBuffer is closed', async () => {
    await start({ maxQueryBuffer: 1024 * 1024 })
    const bystander = await login()
    const flooding = await login()
    flooding.write(`*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$${4 * 1024 * 1024}\r\n`)
    flooding.write(Buffer.alloc(2 * 1024 * 1024, 120))
    await flooding.closed
    expect(show(await bystander.call('GET', 'k'))).toBe(null)
  })
})

describe('output limits', () => {
  const big = Buffer.alloc(50 * 1024 * 1024, 120)

  test('a client that stops reading a 50 MiB reply is closed by the send timeout; others are served meanwhile', async () => {
    await start({ sendTimeout: 500 })
    const writer = await login()
    expect(show(await writer.call('SET', 'big', big))).toBe('+OK')
    const stalled = await stalledSocket(server!.address.port)
    const closed = new Promise<void>((resolve) => stalled.once('close', () => resolve()))
    stalled.write(Buffer.concat([multibulk(['AUTH', PASSWORD]), multibulk(['GET', 'big'])]))
    await waitFor(() => server!.clients === 1, 'the stalled reader closed', 10_000)
    expect(show(await writer.call('STRLEN', 'big'))).toBe(big.length)
    stalled.resume() // its buffered bytes drain, then the close the server sent
    await closed
  })

  test('a reader that keeps reading slowly is not cut by the send timeout', async () => {
    await start({ sendTimeout: 1000 })
    const writer = await login()
    const value = Buffer.alloc(8 * 1024 * 1024, 121)
    expect(show(await writer.call('SET', 'v', value))).toBe('+OK')
    const slow = await stalledSocket(server!.address.port)
    slow.write(Buffer.concat([multibulk(['AUTH', PASSWORD]), multibulk(['GET', 'v'])]))
    const expected = '+OK\r\n'.length + `$${value.length}\r\n`.length + value.length + 2
    let received = 0
    const started = Date.now()
    await new Promise<void>((resolve, reject) => {
      // A slow link: a pause of 20 ms after each chunk read (about 3 MB/s here), so the whole
      // reply takes longer than the timeout, but some of it leaves well within it.
      slow.on('data', (chunk: Buffer) => {
        received += chunk.length
        if (received >= expected) return resolve()
        slow.pause()
        setTimeout(() => slow.resume(), 20)
      })
      slow.once('close', () => reject(new Error(`closed after ${received} of ${expected} bytes`)))
      slow.resume()
    })
    expect(received).toBe(expected)
    expect(Date.now() - started).toBeGreaterThan(1000)
  })

  test('a reply over the hard limit closes the connection at once, as Redis does', async () => {
    await start({ outputBufferLimits: { normal: { hard: 1024 * 1024, soft: 0, softMs: 0 } } })
    const writer = await login()
    expect(show(await writer.call('SET', 'v', Buffer.alloc(2 * 1024 * 1024)))).toBe('+OK')
    expect(show(await writer.call('SET', 'small', 'x'))).toBe('+OK')
    const reader = await login()
    reader.write(multibulk(['GET', 'v']))
    await reader.closed
    expect(show(await writer.call('GET', 'small'))).toBe('x')
  })

  test('output above the soft limit for longer than its time closes the connection', async () => {
    await start({ sendTimeout: 0, outputBufferLimits: { normal: { hard: 0, soft: 1024 * 1024, softMs: 200 } } })
    const writer = await login()
    expect(show(await writer.call('SET', 'big', big))).toBe('+OK')
    const stalled = await stalledSocket(server!.address.port)
    stalled.write(Buffer.concat([multibulk(['AUTH', PASSWORD]), multibulk(['GET', 'big'])]))
    const started = Date.now()
    await waitFor(() => server!.clients === 1, 'the stalled reader closed', 10_000)
    expect(Date.now() - started).toBeGreaterThanOrEqual(150)
  })
})

describe('graceful close', () => {
  test('close({ deadline }) lets started commands reply, closes idle clients and subscribers at once, accepts nothing new', async () => {
    let release: () => void = () => {}
    let entered: () => void = () => {}
    const underWay = new Promise<void>((resolve) => (entered = resolve))
    class Gated extends MemoryExecutor {
      override exec(command: Command, context?: CallContext): Promise<Reply> {
        if (String(command[0]).toLowerCase() !== 'incr') return super.exec(command, context)
        entered()
        return new Promise<void>((resolve) => (release = resolve)).then(() => super.exec(command, context))
      }
    }
    const { address } = await start({}, new Gated())
    const busy = await login()
    const idle = await login()
    const subscriber = await login()
    subscriber.write(multibulk(['SUBSCRIBE', 'ch']))
    await subscriber.one()
    busy.write(Buffer.concat([multibulk(['SET', 'n', '1']), multibulk(['INCR', 'n'])]))
    expect(show(await busy.one())).toBe('+OK')
    await underWay
    const closing = server!.close({ deadline: 10_000 })
    await Promise.all([idle.closed, subscriber.closed])
    expect(busy.isClosed).toBe(false)
    await expect(RawClient.connect(address.port)).rejects.toMatchObject({ code: 'ECONNREFUSED' })
    release()
    expect(show(await busy.one())).toBe(2)
    await busy.closed
    await closing
    expect(server!.clients).toBe(0)
  })

  test('past the deadline the connections still open are cut', async () => {
    let entered: () => void = () => {}
    const underWay = new Promise<void>((resolve) => (entered = resolve))
    class Never extends MemoryExecutor {
      override exec(command: Command, context?: CallContext): Promise<Reply> {
        if (String(command[0]).toLowerCase() !== 'incr') return super.exec(command, context)
        entered()
        return new Promise<Reply>(() => {})
      }
    }
    await start({}, new Never())
    const stuck = await login()
    stuck.write(multibulk(['INCR', 'n']))
    await underWay
    const started = Date.now()
    await server!.close({ deadline: 300 })
    await stuck.closed
    expect(Date.now() - started).toBeGreaterThanOrEqual(250)
  })
})
