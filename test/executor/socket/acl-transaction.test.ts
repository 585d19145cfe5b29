import { afterAll, beforeAll, expect, test, describe } from 'vitest'
import { ReplyError } from '../../../src/reply.js'
import { SocketExecutor } from '../../../src/executor/socket/socket-executor.js'
import { liveSuiteName, redisServerSkipReason, startRedisServer, type RedisServer } from '../../support/redis-server.js'

describe.skipIf(redisServerSkipReason !== undefined)(liveSuiteName('socket executor transactions for ACL users'), () => {
  let server: RedisServer
  let executor: SocketExecutor
  beforeAll(async () => {
    server = await startRedisServer()
    executor = new SocketExecutor({ url: server.url })
    await executor.exec(['ACL', 'SETUSER', 'nomulti', 'on', '>pw', '~*', '+@all', '-multi'])
  })
  afterAll(async () => {
    await executor?.close()
    await server?.stop()
  })

  test('a user who may not run MULTI gets NOPERM and none of the queued commands runs', async () => {
    const user = { user: 'nomulti', password: 'pw' }
    const result = await executor.transaction([['SET', 'k', 'written'], ['INCR', 'n']], user)
    expect(result).toBeInstanceOf(ReplyError)
    expect((result as ReplyError).message).toMatch(/^NOPERM/)
    expect(await executor.exec(['EXISTS', 'k', 'n'])).toBe(0)
  })
})
