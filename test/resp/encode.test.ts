import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  encodeCommand,
  encodeCommands,
  encodeReplies,
  encodeReply,
  replyByteLength,
  writeReply,
} from '../../src/resp/index.js'
import { argBytes, NULL_ARRAY, OK, PONG, ReplyError, Status, type Command, type Reply } from '../../src/reply.js'
import { fixtures } from './helpers.js'

const text = (b: Buffer): string => b.toString('latin1')
const bin = (s: string): Buffer => Buffer.from(s, 'latin1')

/** The obvious encoder, to check the fast one against. */
function reference(command: Command): Buffer {
  const parts: Uint8Array[] = [bin(`*${command.length}\r\n`)]
  for (const arg of command) {
    const bytes = argBytes(arg)
    parts.push(bin(`$${bytes.length}\r\n`), bytes, bin('\r\n'))
  }
  return Buffer.concat(parts)
}

describe('encodeCommand', () => {
  it('writes an array of bulk strings', () => {
    expect(text(encodeCommand(['SET', 'key', 'value']))).toBe('*3\r\n$3\r\nSET\r\n$3\r\nkey\r\n$5\r\nvalue\r\n')
  })

  it('writes Buffer and Uint8Array arguments byte for byte', () => {
    const out = encodeCommand(['SET', Buffer.from([0, 13, 10, 255]), new Uint8Array([1, 2])])
    expect(out.equals(Buffer.concat([bin('*3\r\n$3\r\nSET\r\n$4\r\n\x00\r\n\xff\r\n$2\r\n\x01\x02\r\n')]))).toBe(true)
  })

  it('writes string arguments as UTF-8 with their byte length', () => {
    const out = encodeCommand(['SET', 'ключ', '😀', 'é'])
    expect(out.toString('utf8')).toBe('*4\r\n$3\r\nSET\r\n$8\r\nключ\r\n$4\r\n😀\r\n$2\r\né\r\n')
  })

  it('writes a lone surrogate as U+FFFD, like TextEncoder', () => {
    expect(encodeCommand(['\ud800']).equals(reference(['\ud800']))).toBe(true)
  })

  it('writes empty arguments and empty commands', () => {
    expect(text(encodeCommand(['SET', '', Buffer.alloc(0)]))).toBe('*3\r\n$3\r\nSET\r\n$0\r\n\r\n$0\r\n\r\n')
    expect(text(encodeCommand([]))).toBe('*0\r\n')
  })

  it('writes long arguments and multi-digit lengths', () => {
    for (const n of [9, 10, 16, 17, 99, 100, 999, 1000, 99999, 100000, 1234567]) {
      const s = 'a'.repeat(n)
      const b = Buffer.alloc(n, 7)
      expect(encodeCommand([s, b, `é${s}`]).equals(reference([s, b, `é${s}`]))).toBe(true)
    }
  })

  it('agrees with the obvious encoder on generated commands', () => {
    const arg = fc.oneof(fc.string({ unit: 'binary' }), fc.uint8Array({ maxLength: 40 }), fc.string({ maxLength: 100 }))
    fc.assert(
      fc.property(fc.array(arg, { maxLength: 12 }), (command) => {
        expect(encodeCommand(command).equals(reference(command))).toBe(true)
      }),
      { numRuns: 500 },
    )
  })
})

describe('encodeCommands', () => {
  it('writes a pipeline as the commands back to back', () => {
    const commands: Command[] = [['PING'], ['SET', 'k', Buffer.from('v')], [], ['GET', 'ключ']]
    expect(encodeCommands(commands).equals(Buffer.concat(commands.map(reference)))).toBe(true)
    expect(encodeCommands([]).length).toBe(0)
  })
})

describe('encodeReply', () => {
  const cases: [string, Reply, string][] = [
    ['OK', OK, '+OK\r\n'],
    ['a status', new Status('PONG'), '+PONG\r\n'],
    ['the shared PONG', PONG, '+PONG\r\n'],
    ['an error', new ReplyError('ERR unknown command'), '-ERR unknown command\r\n'],
    ['zero', 0, ':0\r\n'],
    ['an integer', 123, ':123\r\n'],
    ['a negative integer', -123, ':-123\r\n'],
    ['an unsafe integer number', 2 ** 53, ':9007199254740992\r\n'],
    ['a bigint', 2n ** 63n - 1n, ':9223372036854775807\r\n'],
    ['the smallest bigint', -(2n ** 63n), ':-9223372036854775808\r\n'],
    ['a small bigint', 5n, ':5\r\n'],
    ['null', null, '$-1\r\n'],
    ['the null array', NULL_ARRAY, '*-1\r\n'],
    ['a bulk string', bin('hello'), '$5\r\nhello\r\n'],
    ['an empty bulk string', Buffer.alloc(0), '$0\r\n\r\n'],
    ['a Uint8Array', new Uint8Array([104, 105]), '$2\r\nhi\r\n'],
    ['an empty array', [], '*0\r\n'],
    ['nested arrays', [1, [bin('a'), [], null], NULL_ARRAY], '*3\r\n:1\r\n*3\r\n$1\r\na\r\n*0\r\n$-1\r\n*-1\r\n'],
  ]

  it.each(cases)('writes %s as Redis does', (_name, reply, wire) => {
    expect(text(encodeReply(reply))).toBe(wire)
    expect(replyByteLength(reply)).toBe(wire.length)
  })

  it.each(fixtures)('writes $name back to its wire form', ({ bytes, value }) => {
    expect(encodeReply(value).equals(bytes)).toBe(true)
  })

  it('writes UTF-8 statuses and errors', () => {
    expect(encodeReply(new ReplyError('ERR clé')).toString('utf8')).toBe('-ERR clé\r\n')
    expect(replyByteLength(new Status('é'))).toBe(5)
  })

  it('turns CR and LF inside a status or error into spaces, keeping the stream in sync', () => {
    expect(text(encodeReply(new ReplyError('ERR a\r\nb')))).toBe('-ERR a  b\r\n')
    expect(text(encodeReply(new Status('x\ny')))).toBe('+x y\r\n')
  })

  it('refuses numbers RESP cannot carry', () => {
    for (const bad of [1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 64, 2n ** 63n, -(2n ** 63n) - 1n]) {
      expect(() => encodeReply(bad)).toThrow(RangeError)
    }
    expect(() => encodeReply(undefined as unknown as Reply)).toThrow(TypeError)
    expect(() => encodeReply({} as unknown as Reply)).toThrow(TypeError)
  })
})

describe('writeReply and encodeReplies', () => {
  it('writes into a caller buffer at an offset and returns the end', () => {
    const reply: Reply = [OK, 42, bin('x')]
    const out = new Uint8Array(2 + replyByteLength(reply))
    expect(writeReply(reply, out, 2)).toBe(out.length)
    expect(text(Buffer.from(out.subarray(2)))).toBe('*3\r\n+OK\r\n:42\r\n$1\r\nx\r\n')
  })

  it('writes several replies back to back', () => {
    expect(text(encodeReplies([OK, 1, null]))).toBe('+OK\r\n:1\r\n$-1\r\n')
    expect(encodeReplies([]).length).toBe(0)
  })
})
