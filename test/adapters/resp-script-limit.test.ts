/**
 * A script past the time limit, seen through the RESP listener. The in-memory engine runs Lua
 * synchronously in the one JavaScript thread, so no other client can be answered (with BUSY or
 * anything else) while a script runs, and SCRIPT KILL can never find one running: the engine
 * aborts the script itself at the limit (docs/compatibility.md, "Scripting").
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { MemoryExecutor } from '../../src/executor/memory/memory-executor.js'
import { serveResp, type RespServer } from '../../src/adapters/resp-server.js'
import { multibulk, RawClient, show } from '../executor/socket/support.js'

describe('scripts over the time limit, through the RESP listener', () => {
  let memory: MemoryExecutor
  let server: RespServer
  beforeAll(async () => {
    memory = new MemoryExecutor({ scriptTimeLimit: 100 })
    server = await serveResp(memory, { port: 0 })
  })
  afterAll(async () => {
    await server?.close()
    await memory?.close()
  })

  test('the script gets the abort error, its writes so far stay, and the other client is answered after it, never BUSY', async () => {
    const runner = await RawClient.connect(server.address.port)
    const other = await RawClient.connect(server.address.port)
    try {
      runner.write(multibulk(['EVAL', "redis.call('SET', KEYS[1], 'written') while true do end", '1', 'limit:w']))
      other.write(Buffer.concat([multibulk(['SCRIPT', 'KILL']), multibulk(['FUNCTION', 'KILL']), multibulk(['GET', 'limit:w'])]))
      expect(show(await runner.one())).toMatch(
        /^-ERR Script killed by the engine after running longer than the script time limit \(100 ms\)\.\.\. script: [0-9a-f]{40}, on @user_script:1\.$/,
      )
      const replies = (await other.read(3)).map(show)
      expect(replies.slice(0, 2)).toEqual(['-NOTBUSY No scripts in execution right now.', '-NOTBUSY No scripts in execution right now.'])
      expect(replies[2]).toBe('written')
      expect(show(await runner.call('PING'))).toBe('+PONG')
    } finally {
      runner.destroy()
      other.destroy()
    }
  })
})
