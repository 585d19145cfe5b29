/**
 * `Upstash-Redact-Fields` (the SDKs' `redact: {body?: true, header?: true | string[]}`, sent as
 * `body`, `header` or `header[<name>]` separated by commas): which parts of a message the queue's
 * API, logs and dashboard must not show. Delivery is unchanged (the destination receives the
 * message as published); every answer that would show a redacted body or header shows
 * {@link REDACTED} in its place.
 */
import { StoreError } from './store.js'

export const REDACT_FIELDS_HEADER = 'Upstash-Redact-Fields'
/** What a redacted body or header value reads as. */
export const REDACTED = 'REDACTED'

/** What to hide of one message. */
export interface Redaction {
  readonly body: boolean
  /** `true`: every header; otherwise the lower-case names of the headers to hide. */
  readonly headers: true | readonly string[]
}

const HEADER_ITEM = /^header\[([^\]\s]+)\]$/i

/** Parses the header's value; a malformed item is a 400 naming it. */
export function parseRedaction(value: string): Redaction {
  let body = false
  let all = false
  const names: string[] = []
  for (const raw of value.split(',')) {
    const item = raw.trim()
    const named = HEADER_ITEM.exec(item)
    if (item.toLowerCase() === 'body') body = true
    else if (item.toLowerCase() === 'header') all = true
    else if (named) names.push(named[1].toLowerCase())
    else throw new StoreError(`invalid ${REDACT_FIELDS_HEADER} item ${JSON.stringify(item)}: body, header or header[<name>], separated by commas`, 400)
  }
  return { body, headers: all ? true : names }
}

/** The redaction a message's headers ask for, if any. */
export function redactionOf(headers: Headers): Redaction | undefined {
  const value = headers.get(REDACT_FIELDS_HEADER)
  return value === null ? undefined : parseRedaction(value)
}

function hidden(redaction: Redaction, name: string): boolean {
  return redaction.headers === true || redaction.headers.includes(name.toLowerCase())
}

/** Header lists as API answers show them, redacted values replaced. */
export function redactHeaderLists<T>(headers: Record<string, T>, redaction: Redaction | undefined, hide: T): Record<string, T> {
  if (!redaction) return headers
  const out: Record<string, T> = {}
  for (const [name, value] of Object.entries(headers)) out[name] = hidden(redaction, name) ? hide : value
  return out
}

/** A body as API answers show it. */
export function redactBody(body: string, redaction: Redaction | undefined): string {
  return redaction?.body ? REDACTED : body
}
