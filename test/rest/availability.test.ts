/**
 * The REST protocol's rules over the command table: which commands its plain command endpoints
 * run (rest/availability.ts) and which the read-only token may run (auth/permissions.ts).
 */
import { describe, expect, it } from 'vitest'
import { allCommands, findCommand, type CommandInfo } from '../../src/commands/lookup.js'
import { restAvailability } from '../../src/rest/availability.js'
import { readOnlyTokenMay } from '../../src/auth/permissions.js'

function info(name: string): CommandInfo {
  const found = findCommand(name)
  if (found === undefined) throw new Error(`no command ${name}`)
  return found
}

describe('named examples', () => {
  const cases: readonly (readonly [string, 'ok' | 'unavailable', boolean])[] = [
    // [command, REST availability, read-only token may run it]
    ['get', 'ok', true],
    ['mget', 'ok', true],
    ['set', 'ok', false],
    ['keys', 'ok', false],
    ['scan', 'ok', false],
    ['hscan', 'ok', false],
    ['randomkey', 'ok', false],
    ['blpop', 'unavailable', false],
    ['brpop', 'unavailable', false],
    ['brpoplpush', 'unavailable', false],
    ['bzpopmin', 'unavailable', false],
    ['bzpopmax', 'unavailable', false],
    ['bzmpop', 'unavailable', false],
    ['blmpop', 'unavailable', false],
    ['subscribe', 'unavailable', false],
    ['psubscribe', 'unavailable', false],
    ['ssubscribe', 'unavailable', false],
    ['unsubscribe', 'unavailable', false],
    ['monitor', 'unavailable', false],
    ['publish', 'ok', false],
    ['spublish', 'ok', false],
    ['pubsub|channels', 'ok', false],
    ['ping', 'ok', true],
    ['echo', 'ok', true],
    ['select', 'unavailable', false],
    ['auth', 'unavailable', false],
    ['hello', 'unavailable', false],
    ['client|list', 'unavailable', false],
    ['watch', 'unavailable', false],
    ['unwatch', 'unavailable', false],
    ['discard', 'unavailable', false],
    ['multi', 'unavailable', false],
    ['exec', 'unavailable', false],
    ['cluster|info', 'unavailable', false],
    ['readonly', 'unavailable', false],
    ['eval_ro', 'ok', true],
    ['evalsha_ro', 'ok', true],
    ['fcall_ro', 'ok', true],
    ['eval', 'ok', false],
    ['evalsha', 'ok', false],
    ['fcall', 'ok', false],
    ['flushall', 'ok', false],
    ['config|get', 'ok', false],
    ['object|encoding', 'ok', true],
    ['sort_ro', 'ok', false], // readonly but @dangerous
    ['hexpire', 'ok', false],
    ['httl', 'ok', true],
    ['json.get', 'ok', true],
    ['json.set', 'ok', false],
    ['acl|resttoken', 'ok', false],
  ]
  it.each(cases)('%s: %s over REST, read-only token %s', (name, availability, readOnly) => {
    const c = info(name)
    expect(restAvailability(c)).toBe(availability)
    expect(readOnlyTokenMay(c)).toBe(readOnly)
  })
})

describe('XREAD / XREADGROUP', () => {
  it('are available without BLOCK only, and only XREAD is a read for the read-only token', () => {
    const xread = info('xread')
    expect(restAvailability(xread, ['XREAD', 'STREAMS', 's', '0'])).toBe('ok')
    expect(restAvailability(xread, ['XREAD', 'BLOCK', '10', 'STREAMS', 's', '0'])).toBe('unavailable')
    expect(readOnlyTokenMay(xread)).toBe(true)
    expect(readOnlyTokenMay(info('xreadgroup'))).toBe(false)
  })
})

describe('every command', () => {
  it('classifies every command without throwing', () => {
    let unavailable = 0
    let readOnly = 0
    for (const c of allCommands()) {
      if (restAvailability(c) === 'unavailable') unavailable++
      if (readOnlyTokenMay(c)) readOnly++
    }
    expect(unavailable).toBeGreaterThan(40)
    expect(readOnly).toBeGreaterThan(60)
  })
})
