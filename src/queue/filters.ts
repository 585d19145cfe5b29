/**
 * The hosted queue's list and bulk-action filters, as the SDKs send them in the query string
 * (`@upstash/qstash`'s `UniversalFilterFields`, `QStashIdentityFields`, `DLQResponseFields`,
 * `HostPathFilterFields`; `@upstash/workflow`'s `WorkflowFilterFields`): each endpoint names the
 * filters it takes, a repeated parameter matches any of its values, separate filters must all
 * match. A filter an endpoint does not take is refused with 400 naming it, never ignored.
 */
import { StoreError } from './store.js'

/** What a filter is matched against: one message, dead letter, event or run. */
export interface FilterSubject {
  /** The time `fromDate` / `toDate` bound (when the record was created, or dead-lettered). */
  readonly time?: number
  readonly messageId?: string
  readonly url?: string
  /** The record's labels (`Upstash-Label`, comma-separated when several). */
  readonly labels?: readonly string[]
  readonly callerIp?: string
  readonly flowControlKey?: string
  readonly topicName?: string
  readonly scheduleId?: string
  readonly queueName?: string
  readonly responseStatus?: number
  readonly state?: string
  readonly workflowRunId?: string
  readonly workflowUrl?: string
  readonly workflowCreatedAt?: number
  readonly failureFunctionState?: string
}

/** Filters that may repeat (any value matches). */
const MULTI = ['url', 'label', 'callerIp', 'flowControlKey', 'topicName', 'scheduleId', 'queueName', 'responseStatus', 'host', 'path', 'workflowUrl'] as const
/** Filters that take one value. */
const SINGLE = ['fromDate', 'toDate', 'messageId', 'state', 'workflowRunId', 'workflowCreatedAt', 'failureFunctionState', 'workflowUrlExactMatch'] as const

export type FilterName = (typeof MULTI)[number] | (typeof SINGLE)[number]

/** A parsed filter: its predicate, and whether the query held any filter at all. */
export interface Filter {
  readonly any: boolean
  readonly accepts: (subject: FilterSubject) => boolean
}

function bad(message: string): never {
  throw new StoreError(message, 400)
}

/** Unix milliseconds (as the SDKs send a `Date` or a number) or a date string. */
export function dateFilter(name: string, value: string): number {
  const time = /^\d+$/.test(value) ? Number(value) : Date.parse(value)
  if (!Number.isFinite(time)) bad(`invalid ${name} ${JSON.stringify(value)}: unix milliseconds or a date`)
  return time
}

function urlPart(url: string | undefined, part: 'host' | 'path'): string[] {
  if (url === undefined) return []
  try {
    const parsed = new URL(url)
    return part === 'host' ? [parsed.host, parsed.hostname] : [parsed.pathname]
  } catch {
    return []
  }
}

/** The values of the subject a multi-valued filter compares with. */
function valuesOf(subject: FilterSubject, name: (typeof MULTI)[number], prefixUrl: boolean): (wanted: string) => boolean {
  switch (name) {
    case 'label':
      return (wanted) => subject.labels?.includes(wanted) ?? false
    case 'host':
    case 'path':
      return (wanted) => urlPart(subject.url ?? subject.workflowUrl, name).includes(wanted)
    case 'responseStatus':
      return (wanted) => subject.responseStatus !== undefined && subject.responseStatus === Number(wanted)
    case 'workflowUrl':
      return (wanted) => subject.workflowUrl !== undefined && (prefixUrl ? subject.workflowUrl.startsWith(wanted) : subject.workflowUrl === wanted)
    default:
      return (wanted) => subject[name] === wanted
  }
}

function checkValues(name: FilterName, values: readonly string[]): void {
  if (values.some((value) => value === '')) bad(`filter ${name} needs a value`)
  if (name === 'responseStatus' && values.some((value) => !/^\d{3}$/.test(value))) bad(`invalid responseStatus ${JSON.stringify(values.find((value) => !/^\d{3}$/.test(value)))}: an HTTP status code`)
  if (name === 'workflowCreatedAt' && !/^\d+$/.test(values[0])) bad(`invalid workflowCreatedAt ${JSON.stringify(values[0])}: unix milliseconds`)
  if (name === 'workflowUrlExactMatch' && values[0] !== 'true' && values[0] !== 'false') bad(`invalid workflowUrlExactMatch ${JSON.stringify(values[0])}: true or false`)
}

/**
 * Parses the filters of `query`. `accepted`: the filters the endpoint takes; `ignore`: the other
 * parameters it reads itself (paging, ids). Any other parameter is refused with 400, `where`
 * naming the endpoint. `workflowUrl` matches a prefix unless `prefixUrl` is false or the query
 * says `workflowUrlExactMatch=true`.
 */
export function parseFilter(query: URLSearchParams, accepted: readonly FilterName[], ignore: readonly string[], where: string, prefixUrl = false): Filter {
  const tests: ((subject: FilterSubject) => boolean)[] = []
  const exact = query.get('workflowUrlExactMatch') === 'true'
  let any = false
  for (const name of new Set(query.keys())) {
    if (name === '_token' || ignore.includes(name)) continue
    if (!(accepted as readonly string[]).includes(name)) bad(`filter ${name} is not supported on ${where} (supported: ${accepted.join(', ')})`)
    const values = query.getAll(name)
    const filterName = name as FilterName
    checkValues(filterName, values)
    if (!(MULTI as readonly string[]).includes(name) && values.length > 1) bad(`filter ${name} takes one value`)
    any = true
    tests.push(testOf(filterName, values, prefixUrl && !exact))
  }
  return { any, accepts: (subject) => tests.every((test) => test(subject)) }
}

function testOf(name: FilterName, values: readonly string[], prefixUrl: boolean): (subject: FilterSubject) => boolean {
  const value = values[0]
  switch (name) {
    case 'fromDate': {
      const from = dateFilter(name, value)
      return (subject) => subject.time !== undefined && subject.time >= from
    }
    case 'toDate': {
      const to = dateFilter(name, value)
      return (subject) => subject.time !== undefined && subject.time <= to
    }
    case 'workflowCreatedAt':
      return (subject) => subject.workflowCreatedAt === Number(value)
    case 'workflowUrlExactMatch':
      return () => true
    case 'messageId':
    case 'state':
    case 'workflowRunId':
    case 'failureFunctionState':
      return (subject) => subject[name] === value
    default: {
      const name_ = name
      return (subject) => {
        const matches = valuesOf(subject, name_, prefixUrl)
        return values.some(matches)
      }
    }
  }
}

/** The labels of a comma-separated `Upstash-Label` value. */
export function labelsOf(label: string | undefined): string[] | undefined {
  if (label === undefined || label === '') return undefined
  return label
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '')
}

/** The caller's IP of a peer address `host:port` (IPv6 without brackets in Node's form). */
export function callerIpOf(remoteAddress: string | undefined): string | undefined {
  if (remoteAddress === undefined) return undefined
  const colon = remoteAddress.lastIndexOf(':')
  const host = colon === -1 ? remoteAddress : remoteAddress.slice(0, colon)
  return host.replace(/^\[|\]$/g, '').replace(/^::ffff:/, '')
}
