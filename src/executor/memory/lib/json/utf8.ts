/**
 * UTF-8 over the engine's binary strings (one char per byte). RedisJSON reads its text arguments
 * as Rust `&str`, so they must be valid UTF-8; JSON strings are stored as their UTF-8 bytes.
 */

const NON_ASCII = /[\x80-\xff]/

/** True when `bytes` is only ASCII (the common case: no decoding needed anywhere). */
export function isAscii(bytes: string): boolean {
  return !NON_ASCII.test(bytes)
}

/** True when `bytes` is well-formed UTF-8 (no overlongs, surrogates or values past U+10FFFF). */
export function isValidUtf8(bytes: string): boolean {
  if (isAscii(bytes)) return true
  const length = bytes.length
  let i = 0
  while (i < length) {
    const lead = bytes.charCodeAt(i)
    if (lead < 0x80) {
      i++
      continue
    }
    let count: number
    let min: number
    let codePoint: number
    if (lead >= 0xc2 && lead <= 0xdf) {
      count = 1
      min = 0x80
      codePoint = lead & 0x1f
    } else if (lead >= 0xe0 && lead <= 0xef) {
      count = 2
      min = 0x800
      codePoint = lead & 0x0f
    } else if (lead >= 0xf0 && lead <= 0xf4) {
      count = 3
      min = 0x10000
      codePoint = lead & 0x07
    } else return false
    if (i + count >= length) return false // truncated sequence
    for (let k = 1; k <= count; k++) {
      const next = bytes.charCodeAt(i + k)
      if ((next & 0xc0) !== 0x80) return false
      codePoint = (codePoint << 6) | (next & 0x3f)
    }
    if (codePoint < min || codePoint > 0x10ffff || (codePoint >= 0xd800 && codePoint <= 0xdfff)) return false
    i += count + 1
  }
  return true
}

/** The text `bytes` encode (valid UTF-8 expected; callers validated their arguments). */
export function decodeUtf8(bytes: string): string {
  if (isAscii(bytes)) return bytes
  let out = ''
  const length = bytes.length
  let i = 0
  while (i < length) {
    const lead = bytes.charCodeAt(i)
    if (lead < 0x80) {
      out += bytes[i++]
      continue
    }
    const count = lead >= 0xf0 ? 3 : lead >= 0xe0 ? 2 : 1
    let codePoint = lead & (0x3f >> count)
    for (let k = 1; k <= count && i + k < length; k++) codePoint = (codePoint << 6) | (bytes.charCodeAt(i + k) & 0x3f)
    out += String.fromCodePoint(codePoint)
    i += count + 1
  }
  return out
}

/** The UTF-8 bytes of one code point, as a binary string. */
export function encodeCodePoint(codePoint: number): string {
  if (codePoint < 0x80) return String.fromCharCode(codePoint)
  if (codePoint < 0x800) return String.fromCharCode(0xc0 | (codePoint >> 6), 0x80 | (codePoint & 0x3f))
  if (codePoint < 0x10000) {
    return String.fromCharCode(0xe0 | (codePoint >> 12), 0x80 | ((codePoint >> 6) & 0x3f), 0x80 | (codePoint & 0x3f))
  }
  return String.fromCharCode(
    0xf0 | (codePoint >> 18),
    0x80 | ((codePoint >> 12) & 0x3f),
    0x80 | ((codePoint >> 6) & 0x3f),
    0x80 | (codePoint & 0x3f),
  )
}
