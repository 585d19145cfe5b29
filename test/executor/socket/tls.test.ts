/**
 * TLS: the socket executor against a local TLS endpoint (a self-signed certificate made with
 * `openssl` for this test) that forwards to the RESP listener over the memory executor.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import net from 'node:net'
import tls from 'node:tls'
import { OK, PONG } from '../../../src/reply.js'
import { BackendUnavailableError } from '../../../src/executor/executor.js'
import { MemoryExecutor } from '../../../src/executor/memory/memory-executor.js'
import { SocketExecutor } from '../../../src/executor/socket/socket-executor.js'
import { serveResp, type RespServer } from '../../../src/adapters/resp-server.js'

function opensslMissing(): string | undefined {
  const probe = spawnSync('openssl', ['version'], { stdio: 'ignore' })
  return probe.error || probe.status !== 0 ? 'openssl not found on PATH' : undefined
}

const skipReason = opensslMissing()

describe.skipIf(skipReason !== undefined)(`socket executor over TLS${skipReason ? ` (skipped: ${skipReason})` : ''}`, () => {
  let dir: string
  let cert: Buffer
  let memory: MemoryExecutor
  let resp: RespServer
  let terminator: tls.Server
  let port: number

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'restis-tls-'))
    const made = spawnSync(
      'openssl',
      ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=localhost',
        '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1',
        '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')],
      { stdio: 'pipe' },
    )
    if (made.status !== 0) throw new Error(`openssl failed: ${made.stderr}`)
    cert = readFileSync(join(dir, 'cert.pem'))
    memory = new MemoryExecutor()
    resp = await serveResp(memory, { port: 0 })
    terminator = tls.createServer({ key: readFileSync(join(dir, 'key.pem')), cert }, (secure) => {
      const plain = net.connect(resp.address.port, '127.0.0.1')
      secure.pipe(plain).pipe(secure)
      secure.on('error', () => plain.destroy())
      plain.on('error', () => secure.destroy())
    })
    await new Promise<void>((resolve) => terminator.listen(0, '127.0.0.1', resolve))
    port = (terminator.address() as net.AddressInfo).port
  })
  afterAll(async () => {
    await new Promise<void>((resolve) => (terminator ? terminator.close(() => resolve()) : resolve()))
    await resp?.close()
    await memory?.close()
    if (dir) rmSync(dir, { recursive: true, force: true })
  })

  test('rediss:// with the CA: commands, pipelines and transactions work', async () => {
    const executor = new SocketExecutor({ url: `rediss://127.0.0.1:${port}`, tls: { ca: cert } })
    try {
      expect(await executor.exec(['PING'])).toBe(PONG)
      expect(await executor.exec(['SET', 'over-tls', 'yes'])).toBe(OK)
      expect(await executor.pipeline([['GET', 'over-tls'], ['ECHO', 'x']])).toEqual([Buffer.from('yes'), Buffer.from('x')])
      expect(await executor.transaction([['INCR', 'n'], ['INCR', 'n']])).toEqual([1, 2])
    } finally {
      await executor.close()
    }
  })

  test('TLS options pass through: the host name is checked against the certificate', async () => {
    const executor = new SocketExecutor({ host: 'localhost', port, tls: { ca: cert } })
    try {
      expect(await executor.exec(['PING'])).toBe(PONG)
    } finally {
      await executor.close()
    }
  })

  test('an untrusted certificate fails the connection with BackendUnavailableError', async () => {
    const executor = new SocketExecutor({ url: `rediss://127.0.0.1:${port}` })
    try {
      const failure = await executor.exec(['PING']).catch((error: Error) => error)
      expect(failure).toBeInstanceOf(BackendUnavailableError)
      expect((failure as Error).message).toMatch(/self[- ]signed certificate/)
    } finally {
      await executor.close()
    }
  })

  test('rejectUnauthorized=false in the URL accepts it', async () => {
    const executor = new SocketExecutor({ url: `rediss://127.0.0.1:${port}?rejectUnauthorized=false` })
    try {
      expect(await executor.exec(['PING'])).toBe(PONG)
    } finally {
      await executor.close()
    }
  })
})
