/**
 * LZF decompression (liblzf's `lzf_decompress`, which Redis uses for RDB_ENC_LZF strings and
 * compressed quicklist nodes), and a compressor for the strings of RDB files (DUMP payloads
 * stay verbatim, which Redis accepts).
 *
 * The stream is a sequence of chunks, each starting with a control byte `c`:
 * - `c < 32`: a literal run of `c + 1` bytes follows;
 * - otherwise a back reference: length `(c >> 5) + 2` (when `c >> 5` is 7, one more byte is
 *   added to the length), distance `((c & 0x1f) << 8) + next byte + 1` back from the output end.
 */

/** Chunk size for turning bytes into a binary string without overflowing the call stack. */
const CHUNK = 8192

/**
 * Decompresses `data[start, end)` (a binary string) into exactly `length` bytes, returned as a
 * binary string; null when the stream is malformed or does not produce exactly `length` bytes
 * (Redis: "Invalid LZF compressed string").
 */
export function lzfDecompress(data: string, start: number, end: number, length: number): string | null {
  const out = new Uint8Array(length)
  let ip = start
  let op = 0
  while (ip < end) {
    const control = data.charCodeAt(ip++)
    if (control < 32) {
      const run = control + 1
      if (op + run > length || ip + run > end) return null
      for (let i = 0; i < run; i++) out[op++] = data.charCodeAt(ip++)
      continue
    }
    let run = control >> 5
    if (run === 7) {
      if (ip >= end) return null
      run += data.charCodeAt(ip++)
    }
    if (ip >= end) return null
    let ref = op - ((control & 0x1f) << 8) - 1 - data.charCodeAt(ip++)
    run += 2
    if (op + run > length || ref < 0) return null
    // Byte by byte: a reference may overlap the bytes it produces (run-length style).
    for (let i = 0; i < run; i++) out[op++] = out[ref++]
  }
  return op === length ? binaryFromBytes(out) : null
}

/** Bytes as a binary string (one char per byte). */
function binaryFromBytes(bytes: Uint8Array): string {
  if (bytes.length <= CHUNK) return String.fromCharCode.apply(null, bytes as unknown as number[])
  const parts: string[] = []
  for (let i = 0; i < bytes.length; i += CHUNK) {
    parts.push(String.fromCharCode.apply(null, bytes.subarray(i, i + CHUNK) as unknown as number[]))
  }
  return parts.join('')
}

/** Longest back reference: 7 + 255 in the length fields, plus the implicit 2. */
const MAX_REFERENCE = 264
/** Farthest back reference: 13 bits of distance, plus 1. */
const MAX_DISTANCE = 8192
/** Longest literal run one control byte announces. */
const MAX_LITERAL = 32
const HASH_BITS = 14

/**
 * Compresses bytes `data[start, end)` of a binary string into an LZF stream of at most
 * `maxLength` bytes, or returns null when the stream would be longer (then the caller stores the
 * bytes verbatim, as Redis's `rdbSaveLzfStringObject` does when `lzf_compress` gives up).
 *
 * A greedy single-pass matcher: a table maps the hash of each 3-byte sequence to its latest
 * position; a match within reach is extended as far as it goes. Any valid stream is accepted by
 * every LZF reader, so the output need not match liblzf's byte for byte.
 */
export function lzfCompress(data: string, maxLength: number, start = 0, end = data.length): string | null {
  const out = new Uint8Array(maxLength + MAX_LITERAL + 3)
  const table = new Int32Array(1 << HASH_BITS).fill(-1)
  let op = 0
  let literalStart = start
  let ip = start
  const flushLiterals = (until: number): boolean => {
    while (literalStart < until) {
      const run = Math.min(MAX_LITERAL, until - literalStart)
      if (op + 1 + run > maxLength) return false
      out[op++] = run - 1
      for (let i = 0; i < run; i++) out[op++] = data.charCodeAt(literalStart++)
    }
    return true
  }
  while (ip + 2 < end) {
    const hash = (((data.charCodeAt(ip) << 16) | (data.charCodeAt(ip + 1) << 8) | data.charCodeAt(ip + 2)) * 2654435761) >>> (32 - HASH_BITS)
    const candidate = table[hash]
    table[hash] = ip
    if (
      candidate < 0 || ip - candidate > MAX_DISTANCE ||
      data.charCodeAt(candidate) !== data.charCodeAt(ip) ||
      data.charCodeAt(candidate + 1) !== data.charCodeAt(ip + 1) ||
      data.charCodeAt(candidate + 2) !== data.charCodeAt(ip + 2)
    ) {
      ip++
      continue
    }
    let length = 3
    const limit = Math.min(MAX_REFERENCE, end - ip)
    while (length < limit && data.charCodeAt(candidate + length) === data.charCodeAt(ip + length)) length++
    if (!flushLiterals(ip)) return null
    const distance = ip - candidate - 1
    const lengthCode = length - 2
    if (op + 3 > maxLength) return null
    if (lengthCode < 7) out[op++] = (lengthCode << 5) | (distance >> 8)
    else {
      out[op++] = (7 << 5) | (distance >> 8)
      out[op++] = lengthCode - 7
    }
    out[op++] = distance & 0xff
    ip += length
    literalStart = ip
  }
  if (!flushLiterals(end)) return null
  return binaryFromBytes(out.subarray(0, op))
}
