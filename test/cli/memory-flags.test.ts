import { once } from 'node:events'
import { describe, expect, test } from 'vitest'
import { readMemoryBound, memoryBoundBanner, memoryBoundWarning } from '../../src/cli-memory.js'
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

  test('a bound not above what the empty engine uses is warned of; one above it, or none, is not', () => {
    const startup = 12_000_000
    expect(memoryBoundWarning({ maxmemory: 10 * 1024 * 1024 }, startup)).toBe(
      "warning: --maxmemory 10485760 is not above the 12000000 bytes the empty engine already uses (INFO memory's used_memory_startup: " +
        "the process's heap at start); every write that may add data will be refused with OOM\n",
    )
    expect(memoryBoundWarning({ maxmemory: startup }, startup)).not.toBe('')
    expect(memoryBoundWarning({ maxmemory: startup + 1 }, startup)).toBe('')
    expect(memoryBoundWarning({}, startup)).toBe('')
    expect(memoryBoundWarning({ maxmemory: 0 }, startup)).toBe('')
  })

  test('the CLI warns of a bound under its startup memory, and such a bound refuses writes with OOM as the warning says', async () => {
    const cli = startCli(['--maxmemory', '1mb', '--maxmemory-policy', 'allkeys-lru', '--no-persistence'])
    const { url, token } = await cli.ready
    await cli.waitForError(/warning: --maxmemory 1048576 is not above the \d+ bytes the empty engine already uses/)
    const response = await fetch(`${url}/set/a/1`, { headers: { authorization: `Bearer ${token}` } })
    expect(await response.json()).toEqual({ error: "OOM command not allowed when used memory > 'maxmemory'." })
    const info = await fetch(`${url}/info/memory`, { headers: { authorization: `Bearer ${token}` } })
    const startup = /used_memory_startup:(\d+)/.exec(((await info.json()) as { result: string }).result)?.[1]
    expect(cli.errors()).toContain(`the ${startup} bytes the empty engine already uses`)
    cli.child.kill('SIGTERM')
    await once(cli.child, 'exit')
  })

  test('the server takes them: the banner shows the bound and CONFIG GET reports it', async () => {
    const cli = startCli(['--maxmemory', '100mb', '--maxmemory-policy', 'allkeys-lru'])
    const { url, token } = await cli.ready
    expect(cli.output()).toContain('maxmemory: 104857600 bytes, policy allkeys-lru')
    expect(cli.errors()).not.toContain('warning: --maxmemory')
    const response = await fetch(`${url}/config/get/maxmemory*`, { headers: { authorization: `Bearer ${token}` } })
    const { result } = (await response.json()) as { result: string[] }
    expect(result).toContain('104857600')
    expect(result).toContain('allkeys-lru')
    cli.child.kill('SIGTERM')
    await once(cli.child, 'exit')
  })
})
