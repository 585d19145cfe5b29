/**
 * `restis --resp-port` on SIGTERM: the RESP port stops accepting, commands under way reply, idle
 * clients are closed, and the process exits 0. A real process over a real redis-server, where a
 * `BLPOP … 1` stays under way for a second.
 */

import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { spawnSync } from 'node:child_process'
import { NULL_ARRAY } from '../../src/reply.js'
import { liveSuiteName, redisServerSkipReason, startRedisServer, type RedisServer } from '../support/redis-server.js'
import { multibulk, RawClient, show, waitFor } from '../executor/socket/support.js'
import { startCli, stop, type Cli } from './cli-process.js'

describe.skipIf(redisServerSkipReason !== undefined)(liveSuiteName('restis --resp-port on SIGTERM'), () => {
  let redis: RedisServer
  let cli: Cli | undefined
  beforeAll(async () => {
    redis = await startRedisServer()
  })
  afterAll(async () => {
    if (cli !== undefined) await stop(cli.child, 'SIGKILL')
    await redis?.stop()
  })

  test('a command under way replies, idle clients are closed at once, new ones refused, exit 0', async () => {
    cli = startCli(['--resp-port', '0', '--token', 'tok', '--redis', redis.url])
    const { respPort } = await cli.ready
    const login = async (): Promise<RawClient> => {
      const client = await RawClient.connect(respPort!)
      expect(show(await client.call('AUTH', 'tok'))).toBe('+OK')
      return client
    }
    const busy = await login()
    const idle = await login()
    busy.write(multibulk(['BLPOP', 'restis-shutdown-queue', '1']))
    // Under way once redis-server has the BLPOP blocked.
    await waitFor(() => {
      const list = spawnSync('redis-cli', ['-p', String(redis.port), 'CLIENT', 'LIST'], { encoding: 'utf8' }).stdout ?? ''
      return list.includes('cmd=blpop')
    }, 'the BLPOP blocked upstream')
    const exited = stop(cli.child, 'SIGTERM')
    await idle.closed
    expect(busy.isClosed).toBe(false)
    await expect(RawClient.connect(respPort!)).rejects.toMatchObject({ code: 'ECONNREFUSED' })
    expect(await busy.one()).toBe(NULL_ARRAY) // the BLPOP's own answer (`*-1`) when its second is up
    await busy.closed
    expect(await exited).toBe(0)
  }, 60_000)
})
