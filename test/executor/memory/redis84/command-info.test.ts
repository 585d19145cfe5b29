/**
 * The 8.4 string commands in the command table (rows from the command JSON files of Redis 8.4.2
 * and the redis.io pages, through scripts/command-overlay.json): COMMAND INFO / DOCS / COUNT
 * answer for them, and ACL categories decide who may run them.
 */
import { describe, expect, test } from 'vitest'
import { errorOf, setup } from './setup.js'

const text = (value: unknown): unknown =>
  Array.isArray(value) ? value.map(text) : value !== null && typeof value === 'object' && 'text' in value ? String((value as { text: unknown }).text) : value

describe('DIGEST, DELEX, MSETEX in the command table', () => {
  test('COMMAND INFO: arity, flags, first/last/step and ACL categories', () => {
    const { call } = setup()
    const [delex, digest, msetex] = text(call('COMMAND', 'INFO', 'delex', 'digest', 'msetex')) as unknown[][]
    expect(delex.slice(0, 7)).toEqual(['delex', -2, ['write', 'fast'], 1, 1, 1, ['@write', '@string', '@fast']])
    expect(digest.slice(0, 7)).toEqual(['digest', 2, ['readonly', 'fast'], 1, 1, 1, ['@read', '@string', '@fast']])
    expect(msetex.slice(0, 7)).toEqual(['msetex', -4, ['write', 'denyoom', 'movablekeys'], 0, 0, 0, ['@write', '@string', '@slow']])
  })

  test('COMMAND DOCS: since 8.4.0, group string', () => {
    const { call } = setup()
    const docs = text(call('COMMAND', 'DOCS', 'digest')) as unknown[]
    expect(docs[0]).toBe('digest')
    const fields = docs[1] as unknown[]
    expect(fields[fields.indexOf('since') + 1]).toBe('8.4.0')
    expect(fields[fields.indexOf('group') + 1]).toBe('string')
  })

  test('ACL: a user with +@read may DIGEST but not DELEX or MSETEX', () => {
    const { call } = setup()
    call('ACL', 'SETUSER', 'reader', 'on', 'nopass', '~*', '+@read')
    expect(String(call('ACL', 'DRYRUN', 'reader', 'DIGEST', 'k'))).toBe('OK')
    expect(errorOf(call('ACL', 'DRYRUN', 'reader', 'DELEX', 'k'))).toMatch(/no permissions to run the 'delex' command/)
    expect(errorOf(call('ACL', 'DRYRUN', 'reader', 'MSETEX', '1', 'k', 'v'))).toMatch(/no permissions to run the 'msetex' command/)
  })

  test('ACL key patterns see every MSETEX key', () => {
    const { call } = setup()
    call('ACL', 'SETUSER', 'writer', 'on', 'nopass', '~a*', '+@all')
    expect(String(call('ACL', 'DRYRUN', 'writer', 'MSETEX', '2', 'a1', 'v', 'a2', 'v'))).toBe('OK')
    expect(errorOf(call('ACL', 'DRYRUN', 'writer', 'MSETEX', '2', 'a1', 'v', 'b2', 'v'))).toMatch(/no permissions to access the 'b2' key/)
  })
})
