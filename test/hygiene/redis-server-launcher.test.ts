/**
 * The shared redis-server launcher keeps every server's files out of the checkout: its own
 * temporary --dir (and working directory), no persistence unless asked, the directory removed
 * on stop.
 */
import { existsSync, statSync } from 'node:fs'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { liveSuiteName, redisServerSkipReason, startRedisServer, type RedisServer } from '../support/redis-server.js'
import { multibulk, RawClient, RestartableRedis, show } from '../executor/socket/support.js'

async function command(server: { port: number }, ...args: string[]): Promise<unknown> {
  const client = await RawClient.connect(server.port)
  try {
    client.write(multibulk(args))
    return show(await client.one())
  } finally {
    client.end()
  }
}

describe.skipIf(redisServerSkipReason !== undefined)(liveSuiteName('redis-server launcher'), () => {
  // Stopped after each test, also when an assertion failed first (stop is idempotent).
  const started: { stop(): Promise<void> }[] = []
  afterEach(async () => {
    await Promise.all(started.splice(0).map((server) => server.stop()))
  })

  it('runs the server in its own temporary directory with persistence off', async () => {
    const server: RedisServer = await startRedisServer()
    started.push(server)
    expect(statSync(server.dir).isDirectory()).toBe(true)
    expect(path.resolve(server.dir).startsWith(path.resolve(process.cwd()))).toBe(false)
    expect(await command(server, 'CONFIG', 'GET', 'dir')).toEqual(['dir', server.dir])
    expect(await command(server, 'CONFIG', 'GET', 'save')).toEqual(['save', ''])
    expect(await command(server, 'CONFIG', 'GET', 'appendonly')).toEqual(['appendonly', 'no'])
  })

  it('writes a SAVE and an AOF into that directory, never into the working directory, and removes it on stop', async () => {
    const checkoutHadDump = existsSync('dump.rdb')
    const server = await startRedisServer()
    started.push(server)
    await command(server, 'SET', 'k', 'v')
    expect(await command(server, 'SAVE')).toBe('+OK')
    expect(await command(server, 'CONFIG', 'SET', 'appendonly', 'yes')).toBe('+OK')
    expect(existsSync(path.join(server.dir, 'dump.rdb'))).toBe(true)
    expect(existsSync('dump.rdb')).toBe(checkoutHadDump)
    await server.stop()
    expect(existsSync(server.dir)).toBe(false)
    expect(existsSync('appendonlydir')).toBe(false)
  })

  it('lets the caller turn persistence on through args', async () => {
    const server = await startRedisServer({ args: ['--appendonly', 'yes'] })
    started.push(server)
    expect(await command(server, 'CONFIG', 'GET', 'appendonly')).toEqual(['appendonly', 'yes'])
  })

  it('restarts a killed server on the same port and directory, and removes the directory on stop', async () => {
    const redis = await RestartableRedis.start(['--save', '60 1'])
    started.push(redis)
    await command(redis, 'SET', 'k', 'v')
    expect(await command(redis, 'SAVE')).toBe('+OK')
    await redis.kill()
    await redis.startAgain(['--save', '60 1'])
    expect(await command(redis, 'GET', 'k')).toBe('v')
    await redis.stop()
    expect(existsSync(redis.dir)).toBe(false)
  })
})
