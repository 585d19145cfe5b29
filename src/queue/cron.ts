/**
 * Cron expressions as the hosted queue accepts them for schedules: five fields (minute, hour,
 * day of month, month, day of week) with `*`, lists (`1,15`), ranges (`1-5`), steps (`*\/15`,
 * `10-50/10`), month and weekday names (`JAN`, `MON`), and an optional `CRON_TZ=<IANA zone>`
 * prefix; without it times are UTC. As in Vixie cron, when both day fields are restricted a day
 * matching either fires.
 */

/** A parsed cron expression. @public */
export interface CronSpec {
  /** The expression as given. */
  readonly source: string
  /** IANA time zone the fields are read in (`UTC` by default). */
  readonly timeZone: string
  readonly minutes: ReadonlySet<number>
  readonly hours: ReadonlySet<number>
  readonly daysOfMonth: ReadonlySet<number>
  readonly months: ReadonlySet<number>
  /** 0 = Sunday (7 is read as Sunday too). */
  readonly daysOfWeek: ReadonlySet<number>
  readonly anyDayOfMonth: boolean
  readonly anyDayOfWeek: boolean
}

/** An expression that is not valid cron, with the reason. @public */
export class CronError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'CronError'
  }
}

const MONTHS = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC']
const WEEKDAYS = ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT']

interface FieldShape {
  readonly name: string
  readonly min: number
  readonly max: number
  readonly names?: readonly string[]
  /** Value of the first name (1 for months, 0 for weekdays). */
  readonly nameBase?: number
}

const FIELDS: readonly FieldShape[] = [
  { name: 'minute', min: 0, max: 59 },
  { name: 'hour', min: 0, max: 23 },
  { name: 'day of month', min: 1, max: 31 },
  { name: 'month', min: 1, max: 12, names: MONTHS, nameBase: 1 },
  { name: 'day of week', min: 0, max: 7, names: WEEKDAYS, nameBase: 0 },
]

function valueOf(token: string, shape: FieldShape): number {
  const index = shape.names?.indexOf(token.toUpperCase()) ?? -1
  if (index !== -1) return index + (shape.nameBase ?? 0)
  if (!/^\d+$/.test(token)) throw new CronError(`invalid ${shape.name} ${JSON.stringify(token)}`)
  const value = Number(token)
  if (value < shape.min || value > shape.max) throw new CronError(`${shape.name} ${value} out of range ${shape.min}-${shape.max}`)
  return value
}

function parseField(text: string, shape: FieldShape): Set<number> {
  const values = new Set<number>()
  for (const part of text.split(',')) {
    const [range, stepText, extra] = part.split('/')
    if (extra !== undefined || range === '') throw new CronError(`invalid ${shape.name} ${JSON.stringify(part)}`)
    let step = 1
    if (stepText !== undefined) {
      if (!/^\d+$/.test(stepText) || Number(stepText) === 0) throw new CronError(`invalid step ${JSON.stringify(stepText)} in ${shape.name}`)
      step = Number(stepText)
    }
    let low: number
    let high: number
    if (range === '*') {
      low = shape.min
      high = shape.max
    } else {
      const bounds = range.split('-')
      if (bounds.length > 2) throw new CronError(`invalid ${shape.name} range ${JSON.stringify(range)}`)
      low = valueOf(bounds[0], shape)
      // `5/15` means from 5 to the end, stepping 15
      high = bounds.length === 2 ? valueOf(bounds[1], shape) : stepText !== undefined ? shape.max : low
      if (high < low) throw new CronError(`invalid ${shape.name} range ${JSON.stringify(range)}: the start is after the end`)
    }
    for (let value = low; value <= high; value += step) values.add(value)
  }
  return values
}

/** Parses a cron expression (optionally `CRON_TZ=<zone> ` first). Throws {@link CronError}. @public */
export function parseCron(expression: string): CronSpec {
  let rest = expression.trim()
  let timeZone = 'UTC'
  const zone = /^(?:CRON_TZ|TZ)=(\S+)\s+/.exec(rest)
  if (zone) {
    timeZone = zone[1]
    try {
      new Intl.DateTimeFormat('en-US', { timeZone })
    } catch {
      throw new CronError(`unknown time zone ${JSON.stringify(timeZone)}`)
    }
    rest = rest.slice(zone[0].length)
  }
  const parts = rest.split(/\s+/)
  if (parts.length !== 5 || parts[0] === '') throw new CronError(`a cron expression has 5 fields (minute hour day-of-month month day-of-week), got ${JSON.stringify(expression)}`)
  const [minutes, hours, daysOfMonth, months, weekdays] = parts.map((part, index) => parseField(part, FIELDS[index]))
  if (weekdays.delete(7)) weekdays.add(0)
  return {
    source: expression,
    timeZone,
    minutes,
    hours,
    daysOfMonth,
    months,
    daysOfWeek: weekdays,
    anyDayOfMonth: parts[2].startsWith('*'),
    anyDayOfWeek: parts[4].startsWith('*'),
  }
}

interface WallClock {
  readonly minute: number
  readonly hour: number
  readonly day: number
  readonly month: number
  readonly weekday: number
}

const formatters = new Map<string, Intl.DateTimeFormat>()

function wallClock(time: number, timeZone: string): WallClock {
  if (timeZone === 'UTC') {
    const date = new Date(time)
    return { minute: date.getUTCMinutes(), hour: date.getUTCHours(), day: date.getUTCDate(), month: date.getUTCMonth() + 1, weekday: date.getUTCDay() }
  }
  let format = formatters.get(timeZone)
  if (format === undefined) {
    format = new Intl.DateTimeFormat('en-US', { timeZone, hourCycle: 'h23', minute: 'numeric', hour: 'numeric', day: 'numeric', month: 'numeric', weekday: 'short' })
    formatters.set(timeZone, format)
  }
  const parts: Record<string, string> = {}
  for (const part of format.formatToParts(time)) parts[part.type] = part.value
  return { minute: Number(parts.minute), hour: Number(parts.hour), day: Number(parts.day), month: Number(parts.month), weekday: WEEKDAYS.indexOf(parts.weekday.toUpperCase()) }
}

function dayMatches(spec: CronSpec, clock: WallClock): boolean {
  const byMonthDay = spec.daysOfMonth.has(clock.day)
  const byWeekday = spec.daysOfWeek.has(clock.weekday)
  if (spec.anyDayOfMonth || spec.anyDayOfWeek) return byMonthDay && byWeekday
  return byMonthDay || byWeekday
}

const MINUTE = 60_000
const HOUR = 60 * MINUTE
/** Far enough to find any valid date (29 February recurs within 8 years). */
const HORIZON = 9 * 366 * 24 * HOUR

/**
 * The first fire time strictly after `after` (ms since the epoch), on a whole minute, or
 * undefined when the expression never fires (e.g. `0 0 31 2 *`). Wall-clock times a DST change
 * skips never fire; a repeated hour fires at each of its instants.
 * @public
 */
export function nextFire(spec: CronSpec, after: number): number | undefined {
  let time = Math.floor(after / MINUTE) * MINUTE + MINUTE
  const end = after + HORIZON
  while (time <= end) {
    const clock = wallClock(time, spec.timeZone)
    if (!spec.months.has(clock.month) || !dayMatches(spec, clock) || !spec.hours.has(clock.hour)) {
      // from local minute m the next local hour starts 60 - m minutes later (re-checked from
      // the real instant each time, so DST changes are taken as they come)
      time += (60 - clock.minute) * MINUTE
      continue
    }
    if (spec.minutes.has(clock.minute)) return time
    time += MINUTE
  }
  return undefined
}
