/**
 * LZF decompression (liblzf's `lzf_decompress`, which Redis uses for RDB_ENC_LZF strings and
 * compressed quicklist nodes). The engine never compresses what it DUMPs: Redis accepts
 * verbatim strings, so only the reader is needed.
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
