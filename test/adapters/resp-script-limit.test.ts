/**
 * Scripts past `busy-reply-threshold` through the RESP listener, as Redis 7.0 serves them: other
 * clients get BUSY, SCRIPT KILL / FUNCTION KILL stop a script that has not written, UNKILLABLE
 * one that has, MULTI blocks are doomed by a BUSY reply (src/adapters/resp/busy-script.ts).
 *
 * The listener runs in a child process: the script holds its thread, and the test's clients must
 * go on sending meanwhile. Without a listener, the engine stops a script itself at the threshold
 * (the last test).
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { Reply } from '../../src/reply.js'
import { MemoryExecutor } from '../../src/executor/memory/memory-executor.js'
import { multibulk, RawClient, show } from '../executor/socket/support.js'

const BUSY_EVAL = '-BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.'
const BUSY_FUNCTION = '-BUSY Redis is busy running a script. You can only call FUNCTION KILL or SHUTDOWN NOSAVE.'

let child: ChildProcess
let port: number

beforeAll(async () => {
  child = spawn(process.execPath, ['--import', 'tsx', '--import', './scripts/text-import.mjs', 'scripts/redis-tcl-suite-listener.ts'], { stdio: ['pipe', 'pipe', 'inherit'] })
  port = await new Promise<number>((resolve, reject) => {
    let output = ''
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString()
      const match = /^port (\d+)$/m.exec(output)
      if (match !== null) resolve(Number(match[1]))
    })
    child.once('exit', (code) => reject(new Error(`listener exited with ${code}`)))
  })
  const admin = await RawClient.connect(port)
  expect(show(await admin.call('CONFIG', 'SET', 'busy-reply-threshold', '10'))).toBe('+OK')
  admin.destroy()
}, 60_000)

afterAll(async () => {
  if (child === undefined || child.exitCode !== null) return
  const exited = new Promise((resolve) => child.once('exit', resolve))
  child.kill('SIGTERM')
  await exited
})

/** Sends PING until the reply is an error (the script is busy); returns that reply. */
async function untilBusy(client: RawClient): Promise<string> {
  for (;;) {
    const reply = String(show(await client.call('PING')))
    if (reply !== '+PONG') return reply
  }
}

/**
 * Two connections, each past its first command: a connection is the listener's client from its
 * first bytes on (before, it could still be an HTTP request), and only clients are served while busy.
 */
async function clients(): Promise<[RawClient, RawClient]> {
  const pair: [RawClient, RawClient] = [await RawClient.connect(port), await RawClient.connect(port)]
  for (const client of pair) expect(show(await client.call('PING'))).toBe('+PONG')
  return pair
}

describe('scripts past busy-reply-threshold, through the RESP listener', () => {
  test('other clients get BUSY; FUNCTION KILL refuses an EVAL; SCRIPT KILL stops it, uncatchable by pcall', async () => {
    const [runner, other] = await clients()
    try {
      runner.write(multibulk(['EVAL', "local f = function() while 1 do redis.call('ping') end end while 1 do pcall(f) end", '0']))
      expect(await untilBusy(other)).toBe(BUSY_EVAL)
      expect(show(await other.call('GET', 'x'))).toBe(BUSY_EVAL)
      expect(show(await other.call('FUNCTION', 'KILL'))).toBe(BUSY_EVAL)
      expect(show(await other.call('SCRIPT', 'KILL'))).toBe('+OK')
      expect(show(await runner.one())).toMatch(/^-ERR Script killed by user with SCRIPT KILL\.\.\./)
      expect(show(await other.call('PING'))).toBe('+PONG')
      expect(show(await other.call('SCRIPT', 'KILL'))).toBe('-NOTBUSY No scripts in execution right now.')
    } finally {
      runner.destroy()
      other.destroy()
    }
  })

  test("a pipelined command of the script's own connection runs after the script, not refused", async () => {
    const [runner, other] = await clients()
    try {
      runner.write(Buffer.concat([multibulk(['EVAL', 'while true do end', '0']), multibulk(['PING'])]))
      expect(await untilBusy(other)).toBe(BUSY_EVAL)
      expect(show(await other.call('SCRIPT', 'KILL'))).toBe('+OK')
      const replies = (await runner.read(2)).map(show)
      expect(replies[0]).toMatch(/killed by user/)
      expect(replies[1]).toBe('+PONG')
    } finally {
      runner.destroy()
      other.destroy()
    }
  })

  test('a function is stopped by FUNCTION KILL, not SCRIPT KILL', async () => {
    const [runner, other] = await clients()
    try {
      const library = "#!lua name=busylib\nredis.register_function('spin', function() while true do end end)"
      expect(show(await runner.call('FUNCTION', 'LOAD', 'REPLACE', library))).toBe('busylib')
      runner.write(multibulk(['FCALL', 'spin', '0']))
      expect(await untilBusy(other)).toBe(BUSY_FUNCTION)
      expect(show(await other.call('SCRIPT', 'KILL'))).toBe(BUSY_FUNCTION)
      expect(show(await other.call('FUNCTION', 'KILL'))).toBe('+OK')
      expect(show(await runner.one())).toMatch(/^-ERR Script killed by user with SCRIPT KILL\.\.\. script: spin, on @user_function:2\.$/)
    } finally {
      runner.destroy()
      other.destroy()
    }
  })

  test('a script that wrote is UNKILLABLE and runs to its end', async () => {
    const [runner, other] = await clients()
    try {
      runner.write(multibulk(['EVAL', "redis.call('SET', KEYS[1], 'w') for i = 1, 20000000 do end return 'done'", '1', 'busy:w']))
      expect(await untilBusy(other)).toBe(BUSY_EVAL)
      expect(show(await other.call('SCRIPT', 'KILL'))).toMatch(/^-UNKILLABLE Sorry the script already executed write commands/)
      expect(show(await runner.one())).toBe('done')
      expect(show(await other.call('GET', 'busy:w'))).toBe('w')
    } finally {
      runner.destroy()
      other.destroy()
    }
  })

  test('MULTI is answered while busy; a BUSY reply dooms the block; EXEC while busy is aborted', async () => {
    const [runner, other] = await clients()
    try {
      expect(show(await other.call('SET', 'busy:xx', '1'))).toBe('+OK')
      runner.write(multibulk(['EVAL', 'while true do end', '0']))
      expect(await untilBusy(other)).toBe(BUSY_EVAL)
      expect(show(await other.call('MULTI'))).toBe('+OK')
      expect(show(await other.call('INCR', 'busy:xx'))).toBe(BUSY_EVAL)
      expect(show(await other.call('EXEC'))).toBe(`-EXECABORT Transaction discarded because of: ${BUSY_EVAL.slice(1)}`)
      expect(show(await other.call('MULTI'))).toBe('+OK')
      expect(show(await other.call('INCR', 'busy:xx'))).toBe(BUSY_EVAL)
      // QUIT, WATCH, AUTH … (allowed while busy in Redis) wait for the script's end here.
      other.write(multibulk(['SCRIPT', 'KILL']))
      expect(show(await other.one())).toBe('+OK')
      expect(show(await runner.one())).toMatch(/killed by user/)
      expect(show(await other.call('INCR', 'busy:xx'))).toBe('+QUEUED')
      expect(show(await other.call('EXEC'))).toBe('-EXECABORT Transaction discarded because of previous errors.')
      expect(show(await other.call('GET', 'busy:xx'))).toBe('1')
    } finally {
      runner.destroy()
      other.destroy()
    }
  })
})

describe('without a RESP listener', () => {
  test('the engine stops a script at the threshold itself: no one could send SCRIPT KILL', async () => {
    const memory = new MemoryExecutor({ scriptTimeLimit: 50 })
    try {
      const reply: Reply = await memory.exec(['EVAL', "redis.call('SET', KEYS[1], 'written') while true do end", '1', 'limit:w'])
      expect(show(reply)).toMatch(/^-ERR Script killed by the engine after running longer than the script time limit \(50 ms\)\.\.\. script: [0-9a-f]{40}, on @user_script:1\.$/)
      expect(show(await memory.exec(['GET', 'limit:w']))).toBe('written')
    } finally {
      await memory.close()
    }
  })
})
