/**
 * XADD / XTRIM's reference policies (Redis 8.2, https://redis.io/docs/latest/commands/xtrim/ and
 * /xadd/): KEEPREF (the default) trims and leaves consumer groups' PEL references; DELREF also
 * drops the trimmed entries from every PEL; ACKED trims only entries every group has read and
 * acknowledged. With no consumer group the policies change nothing.
 */
import { describe, expect, test } from 'vitest'
import { setup } from './setup.js'

/** A stream of 1-1 … 5-1 with group g, consumer c having read (and not acked) the first two. */
function streamWithPending() {
  const context = setup()
  const { call } = context
  for (let ms = 1; ms <= 5; ms++) call('XADD', 's', `${ms}-1`, 'f', `v${ms}`)
  call('XGROUP', 'CREATE', 's', 'g', '0')
  call('XREADGROUP', 'GROUP', 'g', 'c', 'COUNT', '2', 'STREAMS', 's', '>')
  return context
}

const pendingIds = (call: (...argv: string[]) => unknown) =>
  (call('XPENDING', 's', 'g', '-', '+', '10') as unknown[][]).map((row) => row[0])
const streamIds = (call: (...argv: string[]) => unknown) =>
  (call('XRANGE', 's', '-', '+') as unknown[][]).map((row) => row[0])

describe('XTRIM / XADD with KEEPREF, DELREF, ACKED', () => {
  test('KEEPREF (and no policy) trims and leaves the PEL as it was', () => {
    const { call } = streamWithPending()
    expect(call('XTRIM', 's', 'MAXLEN', '4', 'KEEPREF')).toBe(1)
    expect(call('XTRIM', 's', 'MAXLEN', '3')).toBe(1)
    expect(streamIds(call)).toEqual(['3-1', '4-1', '5-1'])
    expect(pendingIds(call)).toEqual(['1-1', '2-1'])
  })

  test('DELREF drops the trimmed entries from every PEL', () => {
    const { call } = streamWithPending()
    expect(call('XTRIM', 's', 'MINID', '2-1', 'DELREF')).toBe(1)
    expect(streamIds(call)).toEqual(['2-1', '3-1', '4-1', '5-1'])
    expect(pendingIds(call)).toEqual(['2-1'])
  })

  test('ACKED keeps entries a group has pending or has not yet read', () => {
    const { call } = streamWithPending()
    // 1-1 and 2-1 are pending, 3-1 … 5-1 not delivered: nothing may go.
    expect(call('XTRIM', 's', 'MAXLEN', '0', 'ACKED')).toBe(0)
    call('XACK', 's', 'g', '1-1')
    expect(call('XTRIM', 's', 'MAXLEN', '0', 'ACKED')).toBe(1)
    expect(streamIds(call)).toEqual(['2-1', '3-1', '4-1', '5-1'])
    expect(pendingIds(call)).toEqual(['2-1'])
  })

  test('XADD takes the policy with its trimming', () => {
    const { call } = streamWithPending()
    expect(call('XADD', 's', 'MAXLEN', '3', 'DELREF', '6-1', 'f', 'v6')).toBe('6-1')
    expect(streamIds(call)).toEqual(['4-1', '5-1', '6-1'])
    expect(pendingIds(call)).toEqual([])
  })

  test('without consumer groups ACKED trims as KEEPREF', () => {
    const { call } = setup()
    for (let ms = 1; ms <= 3; ms++) call('XADD', 'plain', `${ms}-1`, 'f', 'v')
    expect(call('XTRIM', 'plain', 'MAXLEN', '1', 'ACKED')).toBe(2)
  })
})
