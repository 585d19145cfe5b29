import { describe, expect, test } from 'vitest'
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { parseSize, readRespLimits } from '../../src/cli-resp-limits.js'

describe('the --resp-… limit flags', () => {
  test('times in seconds become milliseconds; sizes take Redis\'s units', () => {
    expect(
      readRespLimits({
        'resp-max-clients': '500',
        'resp-auth-timeout': '2.5',
        'resp-timeout': '300',
        'resp-send-timeout': '0',
        'resp-query-buffer-limit': '64mb',
        'resp-proto-max-bulk-len': '1gb',
        'resp-output-buffer-limit': ['normal 128mb 32mb 30', 'pubsub 0 0 0'],
      }),
    ).toEqual({
      maxClients: 500,
      authTimeout: 2500,
      idleTimeout: 300_000,
      sendTimeout: 0,
      maxQueryBuffer: 64 * 1024 ** 2,
      maxBulkLength: 1024 ** 3,
      outputBufferLimits: {
        normal: { hard: 128 * 1024 ** 2, soft: 32 * 1024 ** 2, softMs: 30_000 },
        pubsub: { hard: 0, soft: 0, softMs: 0 },
      },
    })
    expect(readRespLimits({})).toEqual({})
    expect([parseSize('x', '100'), parseSize('x', '16kb'), parseSize('x', '1k'), parseSize('x', '2G')]).toEqual([100, 16384, 1000, 2e9])
  })

  test('values that are not valid are refused with the flag\'s name', () => {
    expect(() => readRespLimits({ 'resp-max-clients': '0' })).toThrow('invalid --resp-max-clients: 0')
    expect(() => readRespLimits({ 'resp-auth-timeout': '0' })).toThrow('invalid --resp-auth-timeout: 0 (a positive number of seconds)')
    expect(() => readRespLimits({ 'resp-timeout': '-1' })).toThrow('invalid --resp-timeout')
    expect(() => readRespLimits({ 'resp-query-buffer-limit': '1tb' })).toThrow('invalid --resp-query-buffer-limit: 1tb')
    expect(() => readRespLimits({ 'resp-output-buffer-limit': ['replica 1 2 3'] })).toThrow('invalid --resp-output-buffer-limit')
    expect(() => readRespLimits({ 'resp-output-buffer-limit': ['normal 1mb 1mb'] })).toThrow('invalid --resp-output-buffer-limit')
  })
})

describe('restis with a --resp-… limit', () => {
  const run = async (args: string[]): Promise<{ code: number; stderr: string }> => {
    const child = spawn(process.execPath, ['--import', 'tsx', '--import', './scripts/text-import.mjs', 'src/cli.ts', '--port', '0', '--no-persistence', ...args], {
      cwd: new URL('../..', import.meta.url).pathname,
      stdio: ['ignore', 'ignore', 'pipe'],
    })
    let stderr = ''
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
    const [code] = (await once(child, 'exit')) as [number]
    return { code, stderr }
  }

  test('without --resp-port, or with a bad value, exits with status 2 and says why', async () => {
    const alone = await run(['--resp-timeout', '30'])
    expect(alone.code).toBe(2)
    expect(alone.stderr).toContain('restis: the --resp-… limits need --resp-port')
    const bad = await run(['--resp-port', '0', '--resp-max-clients', 'many'])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain('restis: invalid --resp-max-clients: many')
  })
})
