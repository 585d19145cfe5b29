/**
 * Stream IDs (`<ms>-<seq>`, two unsigned 64-bit numbers) and the 64-bit counters streams keep.
 *
 * A 64-bit value is a {@link U64}: a `number` while it is a safe integer, a `bigint` beyond. The
 * form is canonical (never a bigint for a safe value), so `===` compares two of them exactly and
 * `<` / `>` work across the two forms; IDs seen in practice (millisecond times, small sequences)
 * stay plain numbers and cost no allocation.
 */

/** An exact 64-bit integer: a number when safe, a bigint otherwise (never both for one value). */
export type U64 = number | bigint

/** A stream entry ID. Plain objects; entries themselves carry `ms` and `seq` too. */
export interface StreamId {
  readonly ms: U64
  readonly seq: U64
}

const MAX_SAFE = 9007199254740991n
const TWO_64 = 1n << 64n
/** UINT64_MAX, the largest ID part. */
export const U64_MAX = TWO_64 - 1n

/** `0-0`: no ID at all (empty stream, no deletion yet). */
export const MIN_ID: StreamId = Object.freeze({ ms: 0, seq: 0 })
/** `18446744073709551615-18446744073709551615`: `+`, and the marker of XREADGROUP's `>`. */
export const MAX_ID: StreamId = Object.freeze({ ms: U64_MAX, seq: U64_MAX })

/** The canonical form of an exact integer. */
export function exact(value: bigint): U64 {
  return value <= MAX_SAFE && value >= -MAX_SAFE ? Number(value) : value
}

/** `value + 1`, exact. */
export function plusOne(value: U64): U64 {
  return typeof value === 'number' && value < 9007199254740991 ? value + 1 : exact(BigInt(value) + 1n)
}

/** `a - b`, exact (may be negative). */
export function minus(a: U64, b: U64): U64 {
  return typeof a === 'number' && typeof b === 'number' ? a - b : exact(BigInt(a) - BigInt(b))
}

/** `a + b`, exact. */
export function plus(a: U64, b: U64): U64 {
  if (typeof a === 'number' && typeof b === 'number') {
    const sum = a + b
    if (Number.isSafeInteger(sum)) return sum
  }
  return exact(BigInt(a) + BigInt(b))
}

/** `value` as C's `long long` prints it (a uint64 counter above LLONG_MAX wraps negative). */
export function asInt64(value: U64): U64 {
  return typeof value === 'number' ? value : exact(BigInt.asIntN(64, value))
}

/** `a` compared with `b`: negative, zero or positive, like Redis's `streamCompareID`. */
export function compareIds(a: StreamId, b: StreamId): number {
  if (a.ms !== b.ms) return a.ms < b.ms ? -1 : 1
  if (a.seq !== b.seq) return a.seq < b.seq ? -1 : 1
  return 0
}

export function isZeroId(id: StreamId): boolean {
  return id.ms === 0 && id.seq === 0
}

/** `<ms>-<seq>`, the form every reply uses. */
export function formatId(id: StreamId): string {
  const { ms, seq } = id
  if (typeof ms !== 'number' || typeof seq !== 'number') return `${ms}-${seq}`
  // Entries added in the same millisecond (XADD `*` answers) share the time's digits.
  if (ms !== lastMs) {
    lastMs = ms
    lastMsText = decimal(ms)
  }
  return lastMsText + '-' + decimal(seq)
}

/** The digits of the time {@link formatId} wrote last. */
let lastMs = -1
let lastMsText = ''

/** `0` … `999`, and the same padded to three digits: the pieces {@link decimal} joins. */
const DECIMAL = Array.from({ length: 1000 }, (_, i) => String(i))
const DECIMAL_PADDED = DECIMAL.map((text) => text.padStart(3, '0'))

/** The digits of `n / 1000` the last time {@link decimal} needed them: consecutive IDs share them. */
let lastHigh = -1
let lastHighText = ''

/**
 * A safe non-negative integer in decimal, joined from three-digit pieces. Not `String(n)` or a
 * template: those go through V8's number-to-string cache, which keeps every string it made alive
 * until a full collection; on a large stream nearly every ID read is a different number, so
 * each reply left its ID strings to be copied by the next scavenges and promoted (XRANGE on a 1M
 * stream spent about a tenth of its time in scavenges doing that). The pieces are built once,
 * and the digits above the last three are kept from the previous call: a millisecond time
 * changes them once a second, so an ID usually costs one join for its time.
 */
function decimal(n: number): string {
  if (n < 1000) return DECIMAL[n]
  const high = Math.floor(n / 1000)
  let text: string
  if (high < 1000) text = DECIMAL[high]
  else if (high === lastHigh) text = lastHighText
  else {
    text = decimal(high)
    lastHigh = high
    lastHighText = text
  }
  return text + DECIMAL_PADDED[n - high * 1000]
}

/** The next ID (`streamIncrID`), or null past the last possible one (Redis wraps to 0-0 and fails). */
export function nextId(id: StreamId): StreamId | null {
  if (id.seq !== U64_MAX) return { ms: id.ms, seq: plusOne(id.seq) }
  if (id.ms === U64_MAX) return null
  return { ms: plusOne(id.ms), seq: 0 }
}

/** The previous ID (`streamDecrID`), or null before 0-0. */
export function previousId(id: StreamId): StreamId | null {
  if (id.seq !== 0) return { ms: id.ms, seq: minus(id.seq, 1) }
  if (id.ms === 0) return null
  return { ms: minus(id.ms, 1), seq: U64_MAX as U64 }
}

/**
 * The ID XADD `*` generates (`streamNextID`): the current millisecond with sequence 0, or, when the
 * clock has not moved past the last ID, the last ID's successor (null when that does not exist).
 */
export function autoId(lastId: StreamId, now: number): StreamId | null {
  if (now > lastId.ms) return { ms: now, seq: 0 }
  return nextId(lastId)
}

/** The text up to the first NUL byte: Redis copies an ID argument into a C string and parses that. */
export function cString(text: string): string {
  const nul = text.indexOf('\0')
  return nul === -1 ? text : text.slice(0, nul)
}

const DIGIT_0 = 48
const DIGIT_9 = 57

/** Whether `code` is a C `isspace` character: space, \t \n \v \f \r. */
function isSpace(code: number): boolean {
  return code === 32 || (code >= 9 && code <= 13)
}

/**
 * `text` as Redis's `string2ull` reads an ID part: a canonical `long long` when it is one (and
 * refused when negative), else whatever `strtoull` accepts: leading spaces, a sign, leading zeros.
 * A `-` there negates modulo 2^64 (`-0` is 0, `-18446744073709551615` is 1).
 */
export function parseUnsigned64(text: string): U64 | null {
  const length = text.length
  if (length === 0) return null
  // Fast path: plain digits without a leading zero, the form every client sends.
  let fast = 0
  let i = 0
  const first = text.charCodeAt(0)
  if (first > DIGIT_0 && first <= DIGIT_9 && length <= 15) {
    for (; i < length; i++) {
      const code = text.charCodeAt(i)
      if (code < DIGIT_0 || code > DIGIT_9) break
      fast = fast * 10 + (code - DIGIT_0)
    }
    if (i === length) return fast
  } else if (text === '0') return 0
  // string2ll accepts it and it is negative: refused.
  if (CANONICAL_NEGATIVE.test(text) && BigInt(text.slice(1)) <= INT64_MIN_MAGNITUDE) return null
  // strtoull: spaces, optional sign, at least one digit, nothing after.
  i = 0
  while (i < length && isSpace(text.charCodeAt(i))) i++
  let negative = false
  const sign = text.charCodeAt(i)
  if (sign === 43 || sign === 45) {
    negative = sign === 45
    i++
  }
  const digitsStart = i
  while (i < length) {
    const code = text.charCodeAt(i)
    if (code < DIGIT_0 || code > DIGIT_9) return null
    i++
  }
  if (i === digitsStart) return null
  const magnitude = BigInt(text.slice(digitsStart))
  if (magnitude > U64_MAX) return null // ERANGE
  return exact(negative && magnitude !== 0n ? TWO_64 - magnitude : magnitude)
}

/** What string2ll reads as a negative number: no leading zero, at most 19 digits, ≥ LLONG_MIN. */
const CANONICAL_NEGATIVE = /^-[1-9][0-9]{0,18}$/
const INT64_MIN_MAGNITUDE = 1n << 63n

/** IDs longer than this do not fit Redis's parse buffer and are invalid. */
const MAX_ID_LENGTH = 127

/** The result of parsing an XADD ID: `seqGiven` is false for the `<ms>-*` form. */
export interface ParsedXaddId {
  readonly id: StreamId
  readonly seqGiven: boolean
}

/**
 * An ID argument as `streamGenericParseIDOrReply` reads it: `-` and `+` (unless `strict`),
 * `<ms>` (the sequence is then `missingSeq`) or `<ms>-<seq>`; with `allowAutoSeq` (XADD) also
 * `<ms>-*`. Null when invalid.
 */
export function parseIdArg(
  text: string,
  missingSeq: U64,
  strict: boolean,
  allowAutoSeq = false,
): ParsedXaddId | null {
  if (text.length > MAX_ID_LENGTH) return null
  const buffer = cString(text)
  if (buffer === '-') return strict ? null : { id: MIN_ID, seqGiven: true }
  if (buffer === '+') return strict ? null : { id: MAX_ID, seqGiven: true }
  const dash = buffer.indexOf('-')
  const ms = parseUnsigned64(dash === -1 ? buffer : buffer.slice(0, dash))
  if (ms === null) return null
  if (dash === -1) return { id: { ms, seq: missingSeq }, seqGiven: true }
  const rest = buffer.slice(dash + 1)
  if (allowAutoSeq && rest === '*') return { id: { ms, seq: 0 }, seqGiven: false }
  const seq = parseUnsigned64(rest)
  return seq === null ? null : { id: { ms, seq }, seqGiven: true }
}

/** An ID argument where `-` and `+` are the extremes (XRANGE bounds, XGROUP SETID). */
export function parseId(text: string, missingSeq: U64 = 0): StreamId | null {
  return parseIdArg(text, missingSeq, false)?.id ?? null
}

/** An ID argument where `-` and `+` are invalid (XACK, XDEL, XCLAIM, XREAD …). */
export function parseStrictId(text: string, missingSeq: U64 = 0): StreamId | null {
  return parseIdArg(text, missingSeq, true)?.id ?? null
}

/** Whether `text` (as a C string) is exactly `symbol`: how Redis tests `$`, `>`, `*` with strcmp. */
export function isSymbol(text: string, symbol: string): boolean {
  return text === symbol || (text.startsWith(symbol) && text.charCodeAt(symbol.length) === 0)
}
