import { once } from 'node:events'
import { describe, expect, test } from 'vitest'
import { readMemoryBound, memoryBoundBanner } from '../../src/cli-memory.js'
import { startCli } from './cli-process.js'

describe('--maxmemory and --maxmemory-policy', () => {
  test("read sizes with Redis's units and check the policy", () => {
    expect(readMemoryBound('100mb', 'allkeys-lru', false)).toEqual({ maxmemory: 100 * 1024 * 1024, maxmemoryPolicy: 'allkeys-lru' })
    expect(readMemoryBound('2gb', undefined, false).maxmemory).toBe(2 * 1024 ** 3)
    expect(readMemoryBound('64kb', undefined, false).maxmemory).toBe(65536)
    expect(readMemoryBound('1m', undefined, false).maxmemory).toBe(1_000_000)
    expect(readMemoryBound('12345', undefined, false).maxmemory).toBe(12345)
    expect(readMemoryBound(undefined, undefined, false)).toEqual({})
    expect(() => readMemoryBound('lots', undefined, false)).toThrow('invalid --maxmemory: lots')
    expect(() => readMemoryBound('10mb', 'lru', false)).toThrow('invalid --maxmemory-policy: lru')
    expect(() => readMemoryBound('10mb', undefined, true)).toThrow(/with --redis/)
    expect(memoryBoundBanner({ maxmemory: 1024, maxmemoryPolicy: 'allkeys-lfu' })).toBe('maxmemory: 1024 bytes, policy allkeys-lfu\n')
  })

  test('the server takes them: the banner shows the bound and CONFIG GET reports it', async () => {
    const cli = startCli(['--maxmemory', '100mb', '--maxmemory-policy', 'allkeys-lru'])
    const { url, token } = await cli.ready
    expect(cli.output()).toContain('maxmemory: 104857600 bytes, policy allkeys-lru')
    const response = await fetch(`${url}/config/get/maxmemory*`, { headers: { authorization: `Bearer ${token}` } })
    const { result } = (await response.json()) as { result: string[] }
    expect(result).toContain('104857600')
    expect(result).toContain('allkeys-lru')
    cli.child.kill('SIGTERM')
    await once(cli.child, 'exit')
  })
})
