import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { Command, Reply } from '../../src/reply.js'
import { ReplyMap } from '../../src/reply.js'
import type { CallContext, Executor } from '../../src/executor/executor.js'
import { MemoryExecutor } from '../../src/executor/memory/memory-executor.js'
import { TokenStore } from '../../src/auth/tokens.js'
import { provisionReadonlyUser } from '../../src/auth/permissions.js'
import { serveResp, READONLY_RESP_USER, type RespServer } from '../../src/adapters/resp-server.js'
import { RawClient, show } from '../executor/socket/support.js'
import { makeCertificate, opensslSkipReason, type TestCertificate } from '../support/tls-cert.js'

const NOAUTH = '-NOAUTH Authentication required.'
const WRONGPASS = '-WRONGPASS invalid username-password pair or user is disabled.'

/** The memory executor, remembering the user each call ran as. */
class RecordingExecutor extends MemoryExecutor {
  readonly users: (string | undefined)[] = []
  override exec(command: Command, context?: CallContext): Promise<Reply> {
    this.users.push(context?.user)
    return super.exec(command, context)
  }
}

describe('RESP listener with the gateway tokens (auth option)', () => {
  let executor: RecordingExecutor
  let tokens: TokenStore
  let server: RespServer
  const clients: RawClient[] = []

  beforeAll(async () => {
    executor = new RecordingExecutor()
    await executor.exec(['ACL', 'SETUSER', 'alice', 'on', '>alice-pw', '~*', '&*', '+@all'])
    await executor.exec(['ACL', 'SETUSER', 'nopassuser', 'on', 'nopass', '~*', '&*', '+@all'])
    await provisionReadonlyUser(executor, 'ro-acl', 'ro-acl-pw')
    tokens = new TokenStore({ token: 'standard-token', readonlyToken: 'readonly-token' })
    server = await serveResp(executor, { port: 0, auth: tokens, readonlyUser: { user: 'ro-acl', password: 'ro-acl-pw' } })
  })
  afterAll(async () => {
    for (const client of clients) client.destroy()
    await server?.close()
    await executor?.close()
  })

  const connect = async (): Promise<RawClient> => {
    const client = await RawClient.connect(server.address.port)
    clients.push(client)
    return client
  }

  test('before AUTH: NOAUTH, except unknown commands and wrong arity, which Redis 7.0 reports first', async () => {
    const client = await connect()
    expect(show(await client.call('SET', 'x', '1'))).toBe(NOAUTH)
    expect(show(await client.call('CONFIG', 'GET', 'requirepass'))).toBe(NOAUTH)
    expect(show(await client.call('PING'))).toBe(NOAUTH)
    expect(show(await client.call('NOSUCH', 'a'))).toBe("-ERR unknown command 'NOSUCH', with args beginning with: 'a' ")
    expect(show(await client.call('GET'))).toBe("-ERR wrong number of arguments for 'get' command")
    expect(show(await client.call('HELLO', '2'))).toBe(
      '-NOAUTH HELLO must be called with the client already authenticated, otherwise the HELLO AUTH <user> <pass> option can be used to authenticate the client and select the RESP protocol version at the same time',
    )
    expect(show(await client.call('AUTH'))).toBe("-ERR wrong number of arguments for 'auth' command")
    expect(show(await client.call('AUTH', 'a', 'b', 'c'))).toBe('-ERR syntax error')
    expect(show(await client.call('QUIT'))).toBe('+OK')
    await client.closed
  })

  test('the standard token is the default user password: AUTH <token> and AUTH default <token>', async () => {
    const client = await connect()
    expect(show(await client.call('AUTH', 'wrong'))).toBe(WRONGPASS)
    expect(show(await client.call('AUTH', 'default', 'wrong'))).toBe(WRONGPASS)
    // The read-only token is not the default user's password.
    expect(show(await client.call('AUTH', 'readonly-token'))).toBe(WRONGPASS)
    expect(show(await client.call('SET', 'x', '1'))).toBe(NOAUTH)
    expect(show(await client.call('AUTH', 'standard-token'))).toBe('+OK')
    expect(show(await client.call('SET', 'x', '1'))).toBe('+OK')
    const other = await connect()
    expect(show(await other.call('AUTH', 'default', 'standard-token'))).toBe('+OK')
    expect(show(await other.call('GET', 'x'))).toBe('1')
    executor.users.length = 0
    expect(show(await other.call('INCR', 'x'))).toBe(2)
    expect(executor.users).toEqual([undefined]) // the executor's own user, as the standard token over HTTP
  })

  test('the read-only token opens the user readonly, with the read-only token rights and Redis NOPERM texts', async () => {
    const client = await connect()
    expect(show(await client.call('AUTH', READONLY_RESP_USER, 'standard-token'))).toBe(WRONGPASS)
    expect(show(await client.call('AUTH', READONLY_RESP_USER, 'readonly-token'))).toBe('+OK')
    expect(show(await client.call('SET', 'x', 'changed'))).toBe("-NOPERM this user has no permissions to run the 'set' command")
    expect(show(await client.call('KEYS', '*'))).toBe("-NOPERM this user has no permissions to run the 'keys' command")
    expect(show(await client.call('CONFIG', 'GET', 'requirepass'))).toBe("-NOPERM this user has no permissions to run the 'config|get' command")
    expect(show(await client.call('CLIENT', 'LIST'))).toBe("-NOPERM this user has no permissions to run the 'client|list' command")
    expect(show(await client.call('MONITOR'))).toBe("-NOPERM this user has no permissions to run the 'monitor' command")
    expect(show(await client.call('FLUSHALL'))).toBe("-NOPERM this user has no permissions to run the 'flushall' command")
    expect(show(await client.call('EVAL', 'return 1', '0'))).toBe("-NOPERM this user has no permissions to run the 'eval' command")
    executor.users.length = 0
    expect(show(await client.call('EXISTS', 'x'))).toBe(1)
    expect(executor.users).toEqual(['ro-acl']) // the readonlyUser option, as the gateway's
    // Connection commands that touch no data.
    expect(show(await client.call('PING'))).toBe('+PONG')
    expect(show(await client.call('CLIENT', 'SETNAME', 'reader'))).toBe('+OK')
    expect(show(await client.call('SELECT', '1'))).toBe('+OK')
    expect(show(await client.call('SELECT', '0'))).toBe('+OK')
    // Refused at queue time: the transaction is discarded, as Redis does after a NOPERM in MULTI.
    expect(show(await client.call('MULTI'))).toBe('+OK')
    expect(show(await client.call('GET', 'x'))).toBe('+QUEUED')
    expect(show(await client.call('DEL', 'x'))).toBe("-NOPERM this user has no permissions to run the 'del' command")
    expect(show(await client.call('EXEC'))).toBe('-EXECABORT Transaction discarded because of previous errors.')
    const check = await connect()
    expect(show(await check.call('AUTH', 'standard-token'))).toBe('+OK')
    expect(show(await check.call('EXISTS', 'x'))).toBe(1)
  })

  test('the read-only user may subscribe, as the read-only token may over HTTP', async () => {
    const client = await connect()
    expect(show(await client.call('AUTH', READONLY_RESP_USER, 'readonly-token'))).toBe('+OK')
    expect(show(await client.call('SUBSCRIBE', 'news'))).toEqual(['subscribe', 'news', 1])
    expect(show(await client.call('UNSUBSCRIBE'))).toEqual(['unsubscribe', 'news', 0])
  })

  test('HELLO 2 AUTH logs in as default or readonly; HELLO 3 keeps the read-only rights', async () => {
    const client = await connect()
    expect(show(await client.call('HELLO', '2', 'AUTH', 'default', 'wrong'))).toBe(WRONGPASS)
    const hello = show(await client.call('HELLO', '2', 'AUTH', 'default', 'standard-token')) as unknown[]
    expect(hello.slice(0, 2)).toEqual(['server', 'redis'])
    expect(show(await client.call('SET', 'h', '1'))).toBe('+OK')
    const reader = await connect()
    expect((show(await reader.call('HELLO', '2', 'AUTH', READONLY_RESP_USER, 'readonly-token')) as unknown[])[0]).toBe('server')
    expect(show(await reader.call('SET', 'h', '2'))).toBe("-NOPERM this user has no permissions to run the 'set' command")
    expect(show(await reader.call('HELLO', '4'))).toBe('-NOPROTO unsupported protocol version')
    expect(await reader.call('HELLO', '3')).toBeInstanceOf(ReplyMap)
    expect(show(await reader.call('SET', 'h', '3'))).toBe("-NOPERM this user has no permissions to run the 'set' command")
  })

  test('ACL users log in with their own passwords and run as themselves; users without a password are refused', async () => {
    const client = await connect()
    expect(show(await client.call('AUTH', 'alice', 'wrong'))).toBe(WRONGPASS)
    expect(show(await client.call('AUTH', 'alice', 'alice-pw'))).toBe('+OK')
    expect(show(await client.call('ACL', 'WHOAMI'))).toBe('alice')
    // A nopass user opens with any password: with credentials configured it would open the port to anyone.
    expect(show(await client.call('AUTH', 'nopassuser', 'anything'))).toBe(WRONGPASS)
    expect(show(await client.call('ACL', 'WHOAMI'))).toBe('alice')
  })

  test('RESET logs out; a rotated token store refuses the old token at once', async () => {
    const client = await connect()
    expect(show(await client.call('AUTH', 'standard-token'))).toBe('+OK')
    expect(show(await client.call('RESET'))).toBe('+RESET')
    expect(show(await client.call('GET', 'x'))).toBe(NOAUTH)
    const rotated = new TokenStore({ token: 'before' })
    const other = await serveResp(executor, { port: 0, auth: rotated })
    try {
      const next = rotated.rotate({ token: 'after' })
      const late = await RawClient.connect(other.address.port)
      clients.push(late)
      expect(show(await late.call('AUTH', 'before'))).toBe(WRONGPASS)
      expect(show(await late.call('AUTH', next.token))).toBe('+OK')
    } finally {
      await other.close()
    }
  })
})

describe('serveResp refuses an open listener beyond loopback', () => {
  const executor = new MemoryExecutor()
  afterAll(() => executor.close())

  test('no credentials and a non-loopback host: a clear error, nothing listens', async () => {
    await expect(serveResp(executor, { port: 0, host: '0.0.0.0' })).rejects.toThrow(
      /^serveResp: refusing to listen on 0\.0\.0\.0 without credentials: anyone who can reach the port could run every command/,
    )
    await expect(serveResp(executor, { port: 0, host: '::' })).rejects.toThrow(/refusing to listen on :: without credentials/)
  })

  test('password and auth together are refused; loopback without credentials and any host with them listen', async () => {
    await expect(serveResp(executor, { port: 0, password: 'a', auth: new TokenStore({ token: 'b' }) })).rejects.toThrow(/give password or auth, not both/)
    for (const options of [{ host: '127.0.0.1' }, { host: 'localhost' }, { host: '0.0.0.0', password: 'pw' }, { host: '0.0.0.0', auth: new TokenStore({ token: 't' }) }]) {
      const server = await serveResp(executor, { port: 0, ...options })
      expect(server.address.port).toBeGreaterThan(0)
      await server.close()
    }
  })
})

describe.skipIf(opensslSkipReason !== undefined)(`RESP listener over TLS${opensslSkipReason ? ` (skipped: ${opensslSkipReason})` : ''}`, () => {
  let certificate: TestCertificate
  let executor: MemoryExecutor
  let server: RespServer

  beforeAll(async () => {
    certificate = makeCertificate()
    executor = new MemoryExecutor()
    server = await serveResp(executor, { port: 0, auth: new TokenStore({ token: 'tls-token' }), tls: { cert: certificate.cert, key: certificate.key } })
  })
  afterAll(async () => {
    await server?.close()
    await executor?.close()
    certificate?.remove()
  })

  test('a TLS client that trusts the certificate authenticates and runs commands', async () => {
    const client = await RawClient.connectTls(server.address.port, certificate.cert)
    try {
      expect(show(await client.call('GET', 'k'))).toBe(NOAUTH)
      expect(show(await client.call('AUTH', 'tls-token'))).toBe('+OK')
      expect(show(await client.call('SET', 'k', 'over tls'))).toBe('+OK')
      expect(show(await client.call('GET', 'k'))).toBe('over tls')
    } finally {
      client.destroy()
    }
  })

  test('a plain-text client gets no RESP answer', async () => {
    const client = await RawClient.connect(server.address.port)
    client.write('PING\r\n')
    await client.closed
    await expect(client.read(1, 100)).rejects.toThrow(/connection closed after 0 of 1 replies/)
  })
})
