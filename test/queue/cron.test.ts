/** The cron parser and next-fire computation schedules use. */
import { describe, expect, test } from 'vitest'
import { CronError, nextFire, parseCron } from '../../src/queue/cron.js'

const at = (iso: string): number => Date.parse(iso)
const next = (cron: string, after: string): string | undefined => {
  const time = nextFire(parseCron(cron), at(after))
  return time === undefined ? undefined : new Date(time).toISOString()
}

describe('parseCron', () => {
  test('reads lists, ranges, steps and names', () => {
    const spec = parseCron('*/15 9-17 1,15 JAN-MAR mon-fri')
    expect([...spec.minutes]).toEqual([0, 15, 30, 45])
    expect([...spec.hours]).toEqual([9, 10, 11, 12, 13, 14, 15, 16, 17])
    expect([...spec.daysOfMonth]).toEqual([1, 15])
    expect([...spec.months]).toEqual([1, 2, 3])
    expect([...spec.daysOfWeek]).toEqual([1, 2, 3, 4, 5])
    expect(spec.timeZone).toBe('UTC')
  })

  test('reads a start with a step as running to the end, and 7 as Sunday', () => {
    const spec = parseCron('5/20 * * * 7')
    expect([...spec.minutes]).toEqual([5, 25, 45])
    expect([...spec.daysOfWeek]).toEqual([0])
  })

  test('takes a CRON_TZ prefix', () => {
    expect(parseCron('CRON_TZ=America/New_York 0 9 * * *').timeZone).toBe('America/New_York')
  })

  test.each([
    ['* * * *', /5 fields/],
    ['* * * * * *', /5 fields/],
    ['60 * * * *', /minute 60 out of range/],
    ['* 24 * * *', /hour 24 out of range/],
    ['* * 0 * *', /day of month 0 out of range/],
    ['* * * 13 *', /month 13 out of range/],
    ['*/0 * * * *', /invalid step/],
    ['5-1 * * * *', /start is after the end/],
    ['x * * * *', /invalid minute "x"/],
    ['CRON_TZ=Mars/Olympus 0 0 * * *', /unknown time zone/],
  ])('refuses %s', (expression, reason) => {
    expect(() => parseCron(expression)).toThrow(CronError)
    expect(() => parseCron(expression)).toThrow(reason)
  })
})

describe('nextFire', () => {
  test('is strictly after the given time, on a whole minute', () => {
    expect(next('* * * * *', '2026-03-01T10:00:00.000Z')).toBe('2026-03-01T10:01:00.000Z')
    expect(next('* * * * *', '2026-03-01T10:00:30.500Z')).toBe('2026-03-01T10:01:00.000Z')
    expect(next('*/15 * * * *', '2026-03-01T10:14:59.000Z')).toBe('2026-03-01T10:15:00.000Z')
  })

  test('rolls over hours, days, months and years', () => {
    expect(next('30 2 * * *', '2026-03-01T10:00:00Z')).toBe('2026-03-02T02:30:00.000Z')
    expect(next('0 0 1 * *', '2026-03-15T00:00:00Z')).toBe('2026-04-01T00:00:00.000Z')
    expect(next('0 0 1 1 *', '2026-03-15T00:00:00Z')).toBe('2027-01-01T00:00:00.000Z')
    expect(next('0 12 29 2 *', '2026-03-01T00:00:00Z')).toBe('2028-02-29T12:00:00.000Z')
  })

  test('reads weekdays (2026-03-02 is a Monday)', () => {
    expect(next('0 9 * * MON', '2026-03-02T09:00:00Z')).toBe('2026-03-09T09:00:00.000Z')
    expect(next('0 9 * * 1-5', '2026-03-06T10:00:00Z')).toBe('2026-03-09T09:00:00.000Z')
  })

  test('fires on either restricted day field (Vixie cron), on both when one is *', () => {
    // the 13th, or any Friday: Friday 6 March comes first
    expect(next('0 0 13 * 5', '2026-03-01T00:00:00Z')).toBe('2026-03-06T00:00:00.000Z')
    // any day of month but only Fridays
    expect(next('0 0 * * 5', '2026-03-07T00:00:00Z')).toBe('2026-03-13T00:00:00.000Z')
  })

  test('reads the fields in the CRON_TZ zone, across a DST change', () => {
    // New York is UTC-5 in winter, UTC-4 from 8 March 2026
    expect(next('CRON_TZ=America/New_York 0 9 * * *', '2026-03-06T00:00:00Z')).toBe('2026-03-06T14:00:00.000Z')
    expect(next('CRON_TZ=America/New_York 0 9 * * *', '2026-03-08T00:00:00Z')).toBe('2026-03-08T13:00:00.000Z')
    // a zone with a half-hour offset (UTC+5:30)
    expect(next('CRON_TZ=Asia/Kolkata 0 9 * * *', '2026-03-06T00:00:00Z')).toBe('2026-03-06T03:30:00.000Z')
  })

  test('skips a wall-clock time that a DST change removes that day', () => {
    // 02:30 does not exist in New York on 8 March 2026
    expect(next('CRON_TZ=America/New_York 30 2 * * *', '2026-03-07T12:00:00Z')).toBe('2026-03-09T06:30:00.000Z')
  })

  test('is undefined for a date that never comes', () => {
    expect(nextFire(parseCron('0 0 31 2 *'), at('2026-01-01T00:00:00Z'))).toBeUndefined()
  })
})
