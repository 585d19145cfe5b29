import { ReplyError } from '../../../../reply.js'
import type { Out } from '../../command.js'
import { NOT_INTEGER, SYNTAX } from '../../errors.js'
import { readInteger } from '../../lib/numbers.js'

/**
 * Argument parsing shared by SCAN and the per-key SCAN commands (HSCAN, SSCAN, ZSCAN), with
 * Redis's rules from `parseScanCursorOrReply` and `scanGenericCommand` (db.c).
 */

export const INVALID_CURSOR = new ReplyError('ERR invalid cursor')

/** The reply to a scan of a missing key: cursor 0, no elements. */
export const EMPTY_SCAN: Out = ['0', []]

const CURSOR_TEXT = /^([+-]?)([0-9]*)$/
const UINT64_LIMIT = 2n ** 64n

/**
 * A cursor as Redis 7.0 reads it with `strtoul`: optional sign, decimal digits, the empty string
 * is 0, `-n` wraps around 2^64, no leading space, no trailing garbage, no overflow. Returns null
 * when Redis answers "invalid cursor". Values beyond 2^53 come back rounded; engine cursors are
 * far smaller, so such a cursor simply points past the end.
 */
export function parseScanCursor(text: string): number | null {
  const parts = CURSOR_TEXT.exec(text)
  if (parts === null) return null
  if (parts[2].length === 0) return parts[1].length === 0 ? 0 : null
  let value = BigInt(parts[2])
  if (value >= UINT64_LIMIT) return null
  if (parts[1] === '-' && value !== 0n) value = UINT64_LIMIT - value
  return Number(value)
}

export interface ScanOptions {
  /** The MATCH pattern, or null when there is none (or it is `*`, which matches everything). */
  readonly match: string | null
  /** The COUNT hint: how many elements to visit (not to return) in one call. Default 10. */
  readonly count: number
  /** HSCAN NOVALUES (Redis 7.4): fields only. */
  readonly noValues: boolean
  /** SCAN TYPE, lowercased, or null when there is none. */
  readonly type: string | null
}

/** The option a scan takes besides MATCH and COUNT: HSCAN's NOVALUES, SCAN's TYPE, or none. */
export type ScanExtraOption = 'novalues' | 'type' | false

/**
 * MATCH / COUNT (and NOVALUES or TYPE when `extra` names it) from `argv[from]` on. Options may
 * repeat; the last one wins. COUNT below 1 is a syntax error, as in Redis.
 */
export function parseScanOptions(argv: readonly string[], from: number, extra: ScanExtraOption): ScanOptions | ReplyError {
  let match: string | null = null
  let count = 10
  let noValues = false
  let type: string | null = null
  for (let i = from; i < argv.length; i++) {
    const option = argv[i].toLowerCase()
    const hasValue = i + 1 < argv.length
    if (option === 'count' && hasValue) {
      const value = readInteger(argv[++i])
      if (value === null) return NOT_INTEGER
      if (value < 1) return SYNTAX
      count = value
    } else if (option === 'match' && hasValue) {
      const pattern = argv[++i]
      match = pattern === '*' ? null : pattern
    } else if (option === 'novalues' && extra === 'novalues') {
      noValues = true
    } else if (option === 'type' && extra === 'type' && hasValue) {
      type = argv[++i].toLowerCase()
    } else {
      return SYNTAX
    }
  }
  return { match, count, noValues, type }
}
