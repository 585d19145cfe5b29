/**
 * `execNow`, the memory executor's call for a caller that can take a reply at once (the RESP
 * listener): replies come without a promise unless the AOF must first take the writes, a subclass
 * that overrides `exec` still sees every call, and a closed executor rejects as `exec` does.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, test } from 'vitest'
import { MemoryExecutor } from '../../../src/executor/memory/memory-executor.js'
import { BackendUnavailableError, type CallContext } from '../../../src/executor/executor.js'
import { OK, ReplyError, type Command, type Reply } from '../../../src/reply.js'

const open: MemoryExecutor[] = []
const dirs: string[] = []

afterEach(async () => {
  await Promise.all(open.splice(0).map((made) => made.close()))
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true })
})

function made(executor: MemoryExecutor): MemoryExecutor {
  open.push(executor)
  return executor
}

describe('execNow', () => {
  test('answers at once, with the replies exec gives, errors as values', async () => {
    const executor = made(new MemoryExecutor({ activeExpiryInterval: 0 }))
    expect(executor.execNow(['SET', 'k', 'v'])).toBe(OK)
    expect(executor.execNow(['GET', Buffer.from('k')])).toEqual(Buffer.from('v'))
    expect(executor.execNow(['GET', 'missing'])).toBeNull()
    const wrongType = executor.execNow(['LPUSH', 'k', 'x'])
    expect(wrongType).toBeInstanceOf(ReplyError)
    expect(await executor.exec(['LPUSH', 'k', 'x'])).toEqual(wrongType)
  })

  test('runs in the database and as the user of the context', () => {
    const executor = made(new MemoryExecutor({ activeExpiryInterval: 0 }))
    expect(executor.execNow(['SET', 'k', 'in 3'], { db: 3 })).toBe(OK)
    expect(executor.execNow(['GET', 'k'])).toBeNull()
    expect(executor.execNow(['GET', 'k'], { db: 3 })).toEqual(Buffer.from('in 3'))
  })

  test('with an AOF, a write waits for the file as exec does; with nothing pending a read answers at once', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'restis-exec-now-'))
    dirs.push(dir)
    const executor = made(new MemoryExecutor({ activeExpiryInterval: 0, persistence: { dir, appendonly: true, appendfsync: 'always' } }))
    const write = executor.execNow(['SET', 'k', 'v'])
    expect(write).toBeInstanceOf(Promise)
    expect(await write).toBe(OK)
    expect(fs.readFileSync(path.join(dir, 'appendonlydir', fs.readdirSync(path.join(dir, 'appendonlydir')).find((f) => f.endsWith('.incr.aof'))!), 'latin1')).toContain('SET')
    expect(executor.execNow(['GET', 'k'])).toEqual(Buffer.from('v'))
  })

  test('a subclass that overrides exec sees every call made through execNow', async () => {
    const seen: string[] = []
    class Logged extends MemoryExecutor {
      override exec(command: Command, context?: CallContext): Promise<Reply> {
        seen.push(String(command[0]))
        return super.exec(command, context)
      }
    }
    const executor = made(new Logged({ activeExpiryInterval: 0 }))
    const reply = executor.execNow(['SET', 'k', 'v'])
    expect(reply).toBeInstanceOf(Promise)
    expect(await reply).toBe(OK)
    expect(seen).toEqual(['SET'])
  })

  test('a closed executor rejects as exec does', async () => {
    const executor = new MemoryExecutor({ activeExpiryInterval: 0 })
    await executor.close()
    await expect(executor.execNow(['PING'])).rejects.toBeInstanceOf(BackendUnavailableError)
  })
})
