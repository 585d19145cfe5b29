import { describe, expect, test } from 'vitest'
import { findCommand, type CommandInfo } from '../../../src/commands/lookup.js'
import type { Session } from '../../../src/executor/memory/command.js'
import { Engine } from '../../../src/executor/memory/engine.js'
import { MemoryExecutor } from '../../../src/executor/memory/memory-executor.js'
import {
  formatMonitorLine,
  monitorMicros,
  monitorTiming,
  quoteRepr,
  redactForMonitor,
} from '../../../src/executor/memory/monitor.js'

const session: Session = { db: 0, user: 'default', address: '127.0.0.1:57390', name: '', id: 1 }

/** The command (or `parent|sub`) entry of the table. */
function info(name: string): CommandInfo {
  const [parent, sub] = name.split('|')
  const entry = findCommand(parent)
  const found = sub === undefined ? entry : entry?.subcommands?.get(sub)
  if (found === undefined) throw new Error(`no command ${name}`)
  return found
}

/** A line without its timestamp: `[db address] "arg" …`. */
function afterTimestamp(line: string): string {
  return line.slice(line.indexOf(' ') + 1)
}

/** Runs `commands` on a fresh engine with one monitor attached; the lines without timestamps. */
function monitored(run: (engine: Engine, session: Session) => void): string[] {
  const engine = new Engine({ activeExpiryInterval: 0 })
  const lines: string[] = []
  engine.addMonitor((line) => lines.push(line))
  run(engine, engine.createSession('127.0.0.1:5000'))
  engine.close()
  return lines.map(afterTimestamp)
}

describe('MONITOR line format (checked against redis-server 7.0.15 MONITOR output)', () => {
  test('sdscatrepr quoting: escapes by name, \\xHH for the rest, lowercase hex', () => {
    // redis-server showed: "a\"b\\\\c\n\r\t\a\b\x00\x7f\x80\xff \xe9" for these bytes
    const value = 'a"b\\\\c\n\r\t\x07\x08\x00\x7f\x80\xff \xe9'
    expect(quoteRepr(value)).toBe(String.raw`"a\"b\\\\c\n\r\t\a\b\x00\x7f\x80\xff \xe9"`)
    expect(quoteRepr('')).toBe('""')
    expect(quoteRepr('x y ~!')).toBe('"x y ~!"')
    // UTF-8 é arrives as two bytes: "\xc3\xa9"
    expect(quoteRepr('\xc3\xa9')).toBe(String.raw`"\xc3\xa9"`)
  })

  test('seconds, six digits of microseconds, [db address], then the arguments as sent', () => {
    expect(formatMonitorLine(session, ['SET', 'k', 'x y'], 1_795_258_965_000_042)).toBe(
      '1795258965.000042 [0 127.0.0.1:57390] "SET" "k" "x y"',
    )
    expect(formatMonitorLine({ ...session, db: 5 }, ['PING'], 1_000_000)).toBe('1.000000 [5 127.0.0.1:57390] "PING"')
  })

  test('commands a script runs show `lua` as the address', () => {
    expect(formatMonitorLine({ ...session, script: { readOnly: false } }, ['set', 'x', '1'], 1_500_000)).toBe(
      '1.500000 [0 lua] "set" "x" "1"',
    )
  })

  test('the timestamp is wall-clock time with sub-millisecond resolution', () => {
    const before = Date.now()
    const micros = monitorMicros()
    const after = Date.now()
    expect(Number.isInteger(micros)).toBe(true)
    expect(micros).toBeGreaterThanOrEqual(before * 1000 - 1000)
    expect(micros).toBeLessThan((after + 2) * 1000)
    const line = formatMonitorLine(session, ['PING'])
    expect(line).toMatch(/^\d{10}\.\d{6} \[0 127\.0\.0\.1:57390\] "PING"$/)
  })
})

describe('MONITOR redaction (Redis 7.0 redactClientCommandArgument)', () => {
  test('AUTH: every argument, unless the form is wrong (syntax error before redaction)', () => {
    expect(redactForMonitor(['AUTH', 'secretpw'])).toEqual(['AUTH', '(redacted)'])
    expect(redactForMonitor(['auth', 'user', 'pw'])).toEqual(['auth', '(redacted)', '(redacted)'])
    expect(redactForMonitor(['AUTH', 'a', 'b', 'c'])).toEqual(['AUTH', 'a', 'b', 'c'])
  })

  test('HELLO: AUTH user pass once the version parsed; not when the version or AUTH is incomplete', () => {
    expect(redactForMonitor(['HELLO', '2', 'AUTH', 'default', 'pw'])).toEqual(['HELLO', '2', 'AUTH', '(redacted)', '(redacted)'])
    expect(redactForMonitor(['HELLO', '3', 'SETNAME', 'n', 'auth', 'u', 'p'])).toEqual(['HELLO', '3', 'SETNAME', 'n', 'auth', '(redacted)', '(redacted)'])
    expect(redactForMonitor(['HELLO', '3', 'AUTH', 'u'])).toEqual(['HELLO', '3', 'AUTH', 'u'])
    expect(redactForMonitor(['HELLO', '9', 'AUTH', 'u', 'p'])).toEqual(['HELLO', '9', 'AUTH', 'u', 'p'])
    expect(redactForMonitor(['HELLO', 'x', 'AUTH', 'u', 'p'])).toEqual(['HELLO', 'x', 'AUTH', 'u', 'p'])
    expect(redactForMonitor(['HELLO', '3', 'BAD', 'AUTH', 'u', 'p'])).toEqual(['HELLO', '3', 'BAD', 'AUTH', 'u', 'p'])
    expect(redactForMonitor(['HELLO'])).toEqual(['HELLO'])
  })

  test('MIGRATE: AUTH password and AUTH2 username password, until KEYS or a bad option', () => {
    const head = ['MIGRATE', '127.0.0.1', '1', 'k', '0', '10']
    expect(redactForMonitor([...head, 'AUTH', 'pw'])).toEqual([...head, 'AUTH', '(redacted)'])
    expect(redactForMonitor([...head, 'COPY', 'REPLACE', 'AUTH2', 'u', 'pw'])).toEqual([...head, 'COPY', 'REPLACE', 'AUTH2', '(redacted)', '(redacted)'])
    expect(redactForMonitor([...head, 'KEYS', 'AUTH', 'pw'])).toEqual([...head, 'KEYS', 'AUTH', 'pw'])
    expect(redactForMonitor([...head, 'BAD', 'AUTH', 'pw'])).toEqual([...head, 'BAD', 'AUTH', 'pw'])
    expect(redactForMonitor([...head, 'AUTH'])).toEqual([...head, 'AUTH'])
  })

  test('other commands come back untouched (the same array)', () => {
    const argv = ['SET', 'auth', 'pw']
    expect(redactForMonitor(argv)).toBe(argv)
  })
})

describe('which commands MONITOR shows, and when (Redis 7.0 call(): CMD_ADMIN, CMD_SKIP_MONITOR)', () => {
  test('admin commands never, EVAL/EVALSHA/FCALL before they run, the rest after', () => {
    for (const name of ['config|get', 'config|set', 'client|list', 'client|kill', 'client|no-evict', 'debug', 'monitor', 'acl|setuser', 'slowlog|get', 'latency|latest', 'shutdown']) {
      expect(monitorTiming(info(name)), name).toBe('never')
    }
    for (const name of ['eval', 'eval_ro', 'evalsha', 'evalsha_ro', 'fcall', 'fcall_ro']) {
      expect(monitorTiming(info(name)), name).toBe('before')
    }
    for (const name of ['get', 'set', 'exec', 'multi', 'select', 'client|setname', 'client|id', 'acl|whoami', 'publish', 'subscribe', 'keys', 'object|encoding', 'memory|usage', 'command|count']) {
      expect(monitorTiming(info(name)), name).toBe('after')
    }
  })

  test('the db is the one after the command ran: SELECT 5 shows [5 …]', () => {
    expect(monitored((engine, s) => {
      engine.call(s, ['SELECT', '5'])
      engine.call(s, ['PING'])
      engine.call(s, ['SELECT', '0'])
    })).toEqual(['[5 127.0.0.1:5000] "SELECT" "5"', '[5 127.0.0.1:5000] "PING"', '[0 127.0.0.1:5000] "SELECT" "0"'])
  })

  test('commands refused before running are not shown; runtime errors are', () => {
    expect(monitored((engine, s) => {
      engine.call(s, ['WRONGCMD'])
      engine.call(s, ['GET'])
      engine.call(s, ['SET', 'a', 'x'])
      engine.call(s, ['LPUSH', 'a', 'x'])
      engine.call(s, ['SELECT', '99'])
    })).toEqual(['[0 127.0.0.1:5000] "SET" "a" "x"', '[0 127.0.0.1:5000] "LPUSH" "a" "x"', '[0 127.0.0.1:5000] "SELECT" "99"'])
  })

  test('admin commands are hidden, their non-admin siblings shown', () => {
    expect(monitored((engine, s) => {
      engine.call(s, ['CONFIG', 'GET', 'maxmemory'])
      engine.call(s, ['CLIENT', 'SETNAME', 'x'])
      engine.call(s, ['CLIENT', 'LIST'])
      engine.call(s, ['CLIENT', 'ID'])
    })).toEqual(['[0 127.0.0.1:5000] "CLIENT" "SETNAME" "x"', '[0 127.0.0.1:5000] "CLIENT" "ID"'])
  })

  test('MULTI when the block opens, each command as it runs, EXEC at the end', () => {
    expect(monitored((engine, s) => {
      engine.transaction(s, [['SET', 'a', '1'], ['INCR', 'a']])
    })).toEqual(['[0 127.0.0.1:5000] "MULTI"', '[0 127.0.0.1:5000] "SET" "a" "1"', '[0 127.0.0.1:5000] "INCR" "a"', '[0 127.0.0.1:5000] "EXEC"'])
  })

  test('a block refused with EXECABORT shows MULTI and EXEC only', () => {
    expect(monitored((engine, s) => {
      engine.transaction(s, [['SET', 'a', '1'], ['GETX']])
    })).toEqual(['[0 127.0.0.1:5000] "MULTI"', '[0 127.0.0.1:5000] "EXEC"'])
  })

  test('EXEC shows the db the block ended on', () => {
    expect(monitored((engine, s) => {
      engine.transaction(s, [['SELECT', '3'], ['PING']])
    })).toEqual(['[0 127.0.0.1:5000] "MULTI"', '[3 127.0.0.1:5000] "SELECT" "3"', '[3 127.0.0.1:5000] "PING"', '[3 127.0.0.1:5000] "EXEC"'])
  })

  test('timestamps never go backwards from one line to the next', () => {
    const engine = new Engine({ activeExpiryInterval: 0 })
    const stamps: number[] = []
    engine.addMonitor((line) => stamps.push(Number(line.slice(0, line.indexOf(' ')))))
    const s = engine.createSession()
    for (let i = 0; i < 200; i++) engine.call(s, ['PING'])
    engine.close()
    for (let i = 1; i < stamps.length; i++) expect(stamps[i]).toBeGreaterThanOrEqual(stamps[i - 1])
  })
})

describe('MemoryExecutor.monitor', () => {
  test('delivers lines until the abort, then detaches', async () => {
    const executor = new MemoryExecutor({ activeExpiryInterval: 0 })
    const controller = new AbortController()
    const lines: string[] = []
    const monitoring = executor.monitor((event) => lines.push(event.line), controller.signal)
    await executor.exec(['SET', 'k', 'v'], { client: '10.1.2.3:4567', db: 2 })
    expect(lines.map(afterTimestamp)).toEqual(['[2 10.1.2.3:4567] "SET" "k" "v"'])
    controller.abort()
    await monitoring
    expect(executor.engine.monitorCount).toBe(0)
    await executor.exec(['GET', 'k'])
    expect(lines).toHaveLength(1)
    await executor.close()
  })

  test('a callback that throws ends only that monitor; the command and other monitors are unaffected', async () => {
    const executor = new MemoryExecutor({ activeExpiryInterval: 0 })
    const controller = new AbortController()
    const boom = new Error('boom')
    const lines: string[] = []
    const broken = executor.monitor(() => {
      throw boom
    }, controller.signal)
    const fine = executor.monitor((event) => lines.push(event.line), controller.signal)
    expect(Buffer.from((await executor.exec(['ECHO', 'x'])) as Uint8Array).toString()).toBe('x')
    await expect(broken).rejects.toBe(boom)
    await executor.exec(['PING'])
    expect(lines.map(afterTimestamp)).toEqual(['[0 127.0.0.1:0] "ECHO" "x"', '[0 127.0.0.1:0] "PING"'])
    expect(executor.engine.monitorCount).toBe(1)
    controller.abort()
    await fine
    await executor.close()
  })

  test('an aborted signal resolves at once', async () => {
    const executor = new MemoryExecutor({ activeExpiryInterval: 0 })
    await executor.monitor(() => {}, AbortSignal.abort())
    expect(executor.engine.monitorCount).toBe(0)
    await executor.close()
  })
})
