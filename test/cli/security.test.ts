/**
 * The CLI's locks and hygiene, on real processes: the RESP port asks for AUTH (the token, the
 * read-only token as user `readonly`, ACL users), TLS on both ports, REDIS_URL, --version, and a
 * port that cannot be taken.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { spawn, spawnSync } from 'node:child_process'
import { once } from 'node:events'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { request as httpsRequest } from 'node:https'
import net from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startRedisServer, redisServerSkipReason, liveSuiteName, type RedisServer } from '../support/redis-server.js'
import { makeCertificate, opensslSkipReason, type TestCertificate } from '../support/tls-cert.js'
import { RawClient, show } from '../executor/socket/support.js'
import { CLEAN_ENV, ROOT, startCli, stop, type Cli } from './cli-process.js'

const NOAUTH = 'NOAUTH Authentication required.'
const WRONGPASS = 'WRONGPASS invalid username-password pair or user is disabled.'

function toolMissing(tool: string, args: string[]): string | undefined {
  const probe = spawnSync(tool, args, { stdio: 'ignore' })
  if (!probe.error && probe.status === 0) return undefined
  return process.env.CI === 'true' ? undefined : `${tool} not found on PATH`
}
const cliMissing = toolMissing('redis-cli', ['--version'])
const skipped = (reason: string | undefined) => (reason === undefined ? '' : ` (skipped: ${reason})`)

/** Runs a tool to its end without blocking the event loop; stdout and stderr together. */
function run(tool: string, args: readonly string[], env: Record<string, string> = {}): Promise<{ code: number | null; output: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(tool, args, { cwd: ROOT, env: { ...process.env, ...CLEAN_ENV, ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
    let output = ''
    let stderr = ''
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString()
      stderr += chunk.toString()
    })
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000)
    child.once('error', reject)
    child.once('close', (code) => {
      clearTimeout(timer)
      resolve({ code, output, stderr })
    })
  })
}

/** `restis …args` from source, to its exit. */
const restis = (args: string[], env: Record<string, string> = {}) =>
  run(process.execPath, ['--import', 'tsx', '--import', './scripts/text-import.mjs', 'src/cli.ts', ...args], { XDG_DATA_HOME: cliDataHome, ...env })
/** The in-memory engine is durable by default: these runs keep their data home out of $HOME. */
const cliDataHome = mkdtempSync(join(tmpdir(), 'restis-security-data-'))
afterAll(() => rmSync(cliDataHome, { recursive: true, force: true }))
const redisCli = (port: number, ...args: string[]) => run('redis-cli', ['-p', String(port), '--no-auth-warning', ...args])

async function connect(port: number): Promise<RawClient> {
  return RawClient.connect(port)
}

/** A port something else holds for the duration of `body`. */
async function withTakenPort<T>(body: (port: number) => Promise<T>): Promise<T> {
  const holder = net.createServer()
  await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve))
  try {
    return await body((holder.address() as net.AddressInfo).port)
  } finally {
    await new Promise((resolve) => holder.close(resolve))
  }
}

describe('restis --version and a taken port', () => {
  test('--version prints restis <version of package.json> and exits 0', async () => {
    const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
    const result = await restis(['--version'])
    expect(result.code).toBe(0)
    expect(result.output).toBe(`restis ${version}\n`)
  })

  test('a taken HTTP port, a taken RESP port and a taken queue port: one line each, status 1', async () => {
    await withTakenPort(async (port) => {
      const http = await restis(['--port', String(port)])
      expect(http.code).toBe(1)
      expect(http.stderr).toBe(`restis: cannot listen on 127.0.0.1:${port}: address already in use\n`)
      const resp = await restis(['--port', '0', '--resp-port', String(port)])
      expect(resp.code).toBe(1)
      expect(resp.stderr).toBe(`restis: cannot listen on 127.0.0.1:${port}: address already in use\n`)
      const queue = await restis(['queue', '--port', String(port)])
      expect(queue.code).toBe(1)
      expect(queue.stderr).toBe(`restis queue: cannot listen on 127.0.0.1:${port}: address already in use\n`)
    })
  })

  test('TLS with a certificate and no key: status 2, says why', async () => {
    const result = await restis(['--tls-cert', '/nonexistent/cert.pem'])
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('restis: TLS needs both a certificate and its key: --tls-cert and --tls-key (or SERVICE_TLS_CERT and SERVICE_TLS_KEY)')
    const unreadable = await restis(['--tls-cert', '/nonexistent/cert.pem', '--tls-key', '/nonexistent/key.pem'])
    expect(unreadable.code).toBe(2)
    expect(unreadable.stderr).toContain('restis: cannot read the TLS certificate /nonexistent/cert.pem: ENOENT')
  })
})

describe('restis --resp-port asks for AUTH (memory executor)', () => {
  let cli: Cli
  let port: number

  beforeAll(async () => {
    cli = startCli(['--resp-port', '0', '--token', 'std-token', '--readonly-token', 'ro-token'])
    port = (await cli.ready).respPort!
  })
  afterAll(async () => {
    if (cli) await stop(cli.child, 'SIGTERM')
  })

  test.skipIf(cliMissing !== undefined)(`redis-cli: NOAUTH without a password, OK with the token, WRONGPASS with a wrong one${skipped(cliMissing)}`, async () => {
    expect((await redisCli(port, 'set', 'x', '1')).output).toBe(`${NOAUTH}\n\n`)
    expect((await redisCli(port, '-a', 'std-token', 'set', 'x', '1')).output).toBe('OK\n')
    expect((await redisCli(port, '--user', 'default', '--pass', 'std-token', 'get', 'x')).output).toBe('1\n')
    expect((await redisCli(port, '-a', 'wrong', 'get', 'x')).output).toBe(`AUTH failed: ${WRONGPASS}\n${NOAUTH}\n\n`)
  })

  test.skipIf(cliMissing !== undefined)(`redis-cli: the read-only token as user readonly reads and is refused a write${skipped(cliMissing)}`, async () => {
    expect((await redisCli(port, '--user', 'readonly', '--pass', 'ro-token', 'get', 'x')).output).toBe('1\n')
    expect((await redisCli(port, '--user', 'readonly', '--pass', 'ro-token', 'set', 'x', '2')).output).toBe(
      "NOPERM this user has no permissions to run the 'set' command\n\n",
    )
  })

  test('an ACL user logs in with its own password; HELLO 2 AUTH works', async () => {
    const admin = await connect(port)
    const alice = await connect(port)
    try {
      expect(show(await admin.call('HELLO', '2', 'AUTH', 'default', 'std-token'))).toEqual(expect.arrayContaining(['server', 'redis', 'proto', 2]))
      expect(show(await admin.call('ACL', 'SETUSER', 'alice', 'on', '>alice-pw', '~alice:*', '+@all'))).toBe('+OK')
      expect(show(await alice.call('AUTH', 'alice', 'alice-pw'))).toBe('+OK')
      expect(show(await alice.call('SET', 'alice:k', 'v'))).toBe('+OK')
      expect(show(await alice.call('SET', 'other', 'v'))).toBe('-NOPERM this user has no permissions to access one of the keys used as arguments')
    } finally {
      admin.destroy()
      alice.destroy()
    }
  })
})

describe('restis --host 0.0.0.0 --resp-port', () => {
  test('binds every interface only because a token is always configured: unauthenticated clients get NOAUTH', async () => {
    const cli = startCli(['--host', '0.0.0.0', '--resp-port', '0'])
    try {
      const { respPort } = await cli.ready
      const client = await connect(respPort!)
      try {
        expect(show(await client.call('SET', 'x', '1'))).toBe(`-${NOAUTH}`)
      } finally {
        client.destroy()
      }
    } finally {
      await stop(cli.child, 'SIGTERM')
    }
  })
})

describe.skipIf(redisServerSkipReason !== undefined)(liveSuiteName('restis --redis --resp-port: the upstream user is not handed out'), () => {
  let redis: RedisServer
  let cli: Cli
  let port: number

  beforeAll(async () => {
    redis = await startRedisServer({ args: ['--dir', tmpdir()] })
    // Set after the start: the helper waits for an unauthenticated PONG.
    const setup = await RawClient.connect(redis.port)
    expect(show(await setup.call('CONFIG', 'SET', 'requirepass', 'upstream-secret'))).toBe('+OK')
    setup.destroy()
    const url = `redis://:upstream-secret@127.0.0.1:${redis.port}`
    // From REDIS_URL, not argv: the password is not in `ps`.
    cli = startCli(['--resp-port', '0', '--token', 'std-token', '--readonly-token', 'ro-token'], { REDIS_URL: url })
    port = (await cli.ready).respPort!
  })
  afterAll(async () => {
    if (cli) await stop(cli.child, 'SIGTERM')
    await redis?.stop()
  })

  test('REDIS_URL picks the server, the banner says so and redacts the password', () => {
    expect(cli.output()).toContain(`(socket executor to redis://:***@127.0.0.1:${redis.port} (from REDIS_URL))`)
    expect(cli.output()).not.toContain('upstream-secret')
  })

  test('CONFIG GET requirepass: NOAUTH unauthenticated, NOPERM for the read-only token, the standard token has full rights', async () => {
    const client = await connect(port)
    try {
      expect(show(await client.call('CONFIG', 'GET', 'requirepass'))).toBe(`-${NOAUTH}`)
      expect(show(await client.call('AUTH', 'upstream-secret'))).toBe(`-${WRONGPASS}`)
      expect(show(await client.call('AUTH', 'readonly', 'ro-token'))).toBe('+OK')
      expect(show(await client.call('CONFIG', 'GET', 'requirepass'))).toBe("-NOPERM this user has no permissions to run the 'config|get' command")
      expect(show(await client.call('AUTH', 'std-token'))).toBe('+OK')
      expect(show(await client.call('CONFIG', 'GET', 'requirepass'))).toEqual(['requirepass', 'upstream-secret'])
    } finally {
      client.destroy()
    }
  })

  test("an ACL user runs on the server as itself (its own pool), with its own rights", async () => {
    const admin = await connect(port)
    const bob = await connect(port)
    try {
      expect(show(await admin.call('AUTH', 'std-token'))).toBe('+OK')
      expect(show(await admin.call('ACL', 'SETUSER', 'bob', 'on', '>bob-pw', '~bob:*', '+get', '+set', '+acl|whoami'))).toBe('+OK')
      expect(show(await bob.call('AUTH', 'bob', 'wrong'))).toBe(`-${WRONGPASS}`)
      expect(show(await bob.call('AUTH', 'bob', 'bob-pw'))).toBe('+OK')
      expect(show(await bob.call('ACL', 'WHOAMI'))).toBe('bob')
      expect(show(await bob.call('CONFIG', 'GET', 'requirepass'))).toBe("-NOPERM this user has no permissions to run the 'config|get' command")
    } finally {
      admin.destroy()
      bob.destroy()
    }
  })

  test('the --redis flag wins over REDIS_URL', async () => {
    const url = `redis://:upstream-secret@127.0.0.1:${redis.port}`
    const other = startCli(['--redis', url], { REDIS_URL: 'redis://127.0.0.1:1' })
    try {
      const { url: http, token } = await other.ready
      expect(other.output()).toContain(`(socket executor to redis://:***@127.0.0.1:${redis.port})`)
      const response = await fetch(`${http}/set/from-flag/1`, { headers: { authorization: `Bearer ${token}` } })
      expect(await response.json()).toEqual({ result: 'OK' })
    } finally {
      await stop(other.child, 'SIGTERM')
    }
  })
})

/** A GET over HTTPS trusting `ca`. */
function httpsGet(url: string, token: string, ca: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(url, { ca, headers: { authorization: `Bearer ${token}` }, agent: false }, (response) => {
      let body = ''
      response.setEncoding('utf8')
      response.on('data', (chunk: string) => (body += chunk))
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }))
    })
    req.on('error', reject)
    req.end()
  })
}

describe.skipIf(opensslSkipReason !== undefined)(`restis with TLS${skipped(opensslSkipReason)}`, () => {
  let certificate: TestCertificate
  let cli: Cli

  beforeAll(async () => {
    certificate = makeCertificate()
    cli = startCli(['--resp-port', '0', '--token', 'tls-token'], { SERVICE_TLS_CERT: certificate.certPath, SERVICE_TLS_KEY: certificate.keyPath })
    await cli.ready
  })
  afterAll(async () => {
    if (cli) await stop(cli.child, 'SIGTERM')
    certificate?.remove()
  })

  test('the banner shows https:// and rediss://; HTTPS answers with the certificate', async () => {
    const { url, respPort } = await cli.ready
    expect(url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/)
    expect(cli.output()).toContain(`RESP listening on rediss://127.0.0.1:${respPort}\n`)
    expect(await httpsGet(`${url}/set/secure/1`, 'tls-token', certificate.cert)).toEqual({ status: 200, body: '{"result":"OK"}' })
    // Plain HTTP on the TLS port gets no answer from the gateway.
    await expect(fetch(url.replace('https:', 'http:') + '/get/secure', { headers: { authorization: 'Bearer tls-token' } })).rejects.toThrow()
  })

  test('restis queue serves HTTPS with the same flags', async () => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', '--import', './scripts/text-import.mjs', 'src/cli.ts', 'queue', '--port', '0', '--no-persistence', '--token', 'q-token', '--tls-cert', certificate.certPath, '--tls-key', certificate.keyPath],
      { cwd: ROOT, env: { ...process.env, ...CLEAN_ENV }, stdio: ['ignore', 'pipe', 'pipe'] },
    )
    try {
      let output = ''
      child.stdout.setEncoding('utf8')
      const url = await new Promise<string>((resolve, reject) => {
        child.stdout.on('data', (chunk: string) => {
          output += chunk
          const found = /listening on (\S+)/.exec(output)?.[1]
          if (found !== undefined && output.includes('QUEUE_NEXT_SIGNING_KEY=')) resolve(found)
        })
        child.once('exit', (code) => reject(new Error(`restis queue exited with ${code}: ${output}`)))
      })
      expect(url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/)
      expect(output).toContain(`QUEUE_URL=${url}\n`)
      const runs = await httpsGet(`${url}/v2/dashboard/runs`, 'q-token', certificate.cert)
      expect(runs.status).toBe(200)
      expect(JSON.parse(runs.body)).toHaveProperty('runs')
      expect((await httpsGet(`${url}/v2/dashboard/runs`, 'wrong', certificate.cert)).status).toBe(401)
    } finally {
      await stop(child, 'SIGTERM')
    }
  })

  test.skipIf(cliMissing !== undefined)(`redis-cli --tls reaches the RESP port, AUTH still required${skipped(cliMissing)}`, async () => {
    const { respPort } = await cli.ready
    const tlsArgs = ['--tls', '--cacert', certificate.certPath]
    expect((await redisCli(respPort!, ...tlsArgs, 'get', 'secure')).output).toBe(`${NOAUTH}\n\n`)
    expect((await redisCli(respPort!, ...tlsArgs, '-a', 'tls-token', 'get', 'secure')).output).toBe('1\n')
    expect((await redisCli(respPort!, '--tls', '--insecure', '-a', 'tls-token', 'get', 'secure')).output).toBe('1\n')
  })
})

describe.skipIf(redisServerSkipReason !== undefined || opensslSkipReason !== undefined)(
  liveSuiteName(`restis --workers 2: the same TLS, AUTH and REDIS_URL${skipped(opensslSkipReason)}`),
  () => {
    let redis: RedisServer
    let certificate: TestCertificate

    beforeAll(async () => {
      redis = await startRedisServer({ args: ['--dir', tmpdir()] })
      certificate = makeCertificate()
    })
    afterAll(async () => {
      await redis?.stop()
      certificate?.remove()
    })

    test('HTTPS and RESP over TLS with AUTH on every worker', async () => {
      const cli = startCli(['--workers', '2', '--resp-port', '0', '--token', 'w-token', '--tls-cert', certificate.certPath, '--tls-key', certificate.keyPath], {
        REDIS_URL: redis.url,
      })
      try {
        const { url, respPort } = await cli.ready
        expect(cli.output()).toContain(`(socket executor to ${redis.url} (from REDIS_URL), 2 workers)`)
        for (let i = 0; i < 4; i++) {
          expect(await httpsGet(`${url}/set/w${i}/${i}`, 'w-token', certificate.cert)).toEqual({ status: 200, body: '{"result":"OK"}' })
          const client = await RawClient.connectTls(respPort!, certificate.cert)
          try {
            expect(show(await client.call('GET', `w${i}`))).toBe(`-${NOAUTH}`)
            expect(show(await client.call('AUTH', 'w-token'))).toBe('+OK')
            expect(show(await client.call('GET', `w${i}`))).toBe(String(i))
          } finally {
            client.destroy()
          }
        }
      } finally {
        await stop(cli.child, 'SIGINT')
      }
    })

    test('a taken port: one line from the primary, status 1', async () => {
      await withTakenPort(async (port) => {
        const child = spawn(process.execPath, ['--import', 'tsx', '--import', './scripts/text-import.mjs', 'src/cli.ts', '--workers', '2', '--redis', redis.url, '--port', String(port)], {
          cwd: ROOT,
          env: { ...process.env, ...CLEAN_ENV },
          stdio: ['ignore', 'pipe', 'pipe'],
        })
        let stderr = ''
        child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
        const [code] = (await once(child, 'exit')) as [number | null]
        expect(code).toBe(1)
        expect(stderr).toBe(`restis: cannot listen on 127.0.0.1:${port}: address already in use\n`)
      })
    })
  },
)
