import { ReplyError } from '../../../../reply.js'
import type { CommandContext, Out } from '../../command.js'
import { NOT_INTEGER, SYNTAX } from '../../errors.js'
import { readInteger } from '../../lib/numbers.js'
import { maxBulkLength } from './value.js'

/**
 * LCS key1 key2 [LEN] [IDX] [MINMATCHLEN len] [WITHMATCHLEN] (Redis 7.0 `lcsCommand`): the
 * longest common subsequence by the classic dynamic-programming table, walked back from the end
 * so that IDX reports the matching ranges last-to-first, exactly as Redis emits them.
 */

const NOT_STRINGS = new ReplyError('ERR The specified keys must contain string values')
const LEN_AND_IDX = new ReplyError('ERR If you want both the length and indexes, please just use IDX.')
const TABLE_TOO_LARGE = new ReplyError('ERR Insufficient memory, transient memory for LCS exceeds proto-max-bulk-len')

/** LCS: the subsequence, its length (LEN), or its matches (IDX, a map in RESP3, flat in RESP2). */
export function lcs(ctx: CommandContext, argv: readonly string[]): Out {
  // Redis checks the types before the options.
  const first = ctx.db.read(argv[1], ctx)
  const second = ctx.db.read(argv[2], ctx)
  if ((first !== undefined && typeof first !== 'string') || (second !== undefined && typeof second !== 'string')) {
    return NOT_STRINGS
  }
  const a = (first as string | undefined) ?? ''
  const b = (second as string | undefined) ?? ''
  let wantLength = false
  let wantIndexes = false
  let withMatchLength = false
  let minMatchLength = 0
  for (let i = 3; i < argv.length; i++) {
    const option = argv[i].toUpperCase()
    if (option === 'IDX') wantIndexes = true
    else if (option === 'LEN') wantLength = true
    else if (option === 'WITHMATCHLEN') withMatchLength = true
    else if (option === 'MINMATCHLEN' && i + 1 < argv.length) {
      const value = readInteger(argv[++i])
      if (value === null) return NOT_INTEGER
      minMatchLength = Math.max(0, value)
    } else return SYNTAX
  }
  if (wantLength && wantIndexes) return LEN_AND_IDX
  // Redis refuses a table (4 bytes per cell) larger than proto-max-bulk-len.
  if ((a.length + 1) * (b.length + 1) * 4 > maxBulkLength(ctx)) return TABLE_TOO_LARGE

  const table = lengthTable(a, b)
  const width = b.length + 1
  const total = table[a.length * width + b.length]
  if (wantLength) return total
  return wantIndexes ? matches(a, b, table, minMatchLength, withMatchLength, total) : subsequence(a, b, table, total)
}

/** `table[i * (b.length + 1) + j]` is the LCS length of `a[0..i)` and `b[0..j)`. */
function lengthTable(a: string, b: string): Uint32Array {
  const width = b.length + 1
  const table = new Uint32Array((a.length + 1) * width)
  for (let i = 1; i <= a.length; i++) {
    const row = i * width
    const above = row - width
    const char = a.charCodeAt(i - 1)
    for (let j = 1; j <= b.length; j++) {
      if (char === b.charCodeAt(j - 1)) table[row + j] = table[above + j - 1] + 1
      else {
        const up = table[above + j]
        const left = table[row + j - 1]
        table[row + j] = up > left ? up : left
      }
    }
  }
  return table
}

/**
 * The subsequence itself, rebuilt backwards. On a mismatch the walk steps back in `a` only when
 * that keeps a strictly longer LCS, else in `b`: Redis's choice, which decides which of several
 * equally long subsequences is returned.
 */
function subsequence(a: string, b: string, table: Uint32Array, total: number): string {
  const width = b.length + 1
  const chars = new Array<string>(total)
  let index = total
  let i = a.length
  let j = b.length
  while (i > 0 && j > 0) {
    if (a.charCodeAt(i - 1) === b.charCodeAt(j - 1)) {
      chars[--index] = a[i - 1]
      i--
      j--
    } else if (table[(i - 1) * width + j] > table[i * width + j - 1]) i--
    else j--
  }
  return chars.join('')
}

/**
 * The IDX reply: `["matches", [[[aStart, aEnd], [bStart, bEnd], (len)], ...], "len", total]`.
 * Same walk as {@link subsequence}; a range is emitted when the run of matches breaks, or when
 * it reaches the start of either string, and kept when at least `minMatchLength` long.
 */
function matches(a: string, b: string, table: Uint32Array, minMatchLength: number, withMatchLength: boolean, total: number): Out {
  const width = b.length + 1
  const ranges: Out[] = []
  let rangeOpen = false
  let aStart = 0
  let aEnd = 0
  let bStart = 0
  let bEnd = 0
  let i = a.length
  let j = b.length
  while (i > 0 && j > 0) {
    let emit = false
    if (a.charCodeAt(i - 1) === b.charCodeAt(j - 1)) {
      if (!rangeOpen) {
        rangeOpen = true
        aStart = aEnd = i - 1
        bStart = bEnd = j - 1
      } else if (aStart === i && bStart === j) {
        aStart--
        bStart--
      } else {
        emit = true
      }
      if (aStart === 0 || bStart === 0) emit = true
      i--
      j--
    } else {
      if (table[(i - 1) * width + j] > table[i * width + j - 1]) i--
      else j--
      if (rangeOpen) emit = true
    }
    if (emit) {
      const length = aEnd - aStart + 1
      if (minMatchLength === 0 || length >= minMatchLength) {
        const range: Out[] = [[aStart, aEnd], [bStart, bEnd]]
        if (withMatchLength) range.push(length)
        ranges.push(range)
      }
      rangeOpen = false
    }
  }
  return ['matches', ranges, 'len', total]
}
