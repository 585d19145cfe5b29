import { decodeUtf8 } from './utf8.js'

/**
 * The `=~` operator of JSONPath filters. RedisJSON matches with Rust's `regex` crate: the pattern
 * is searched anywhere in the string (`"foo"` matches `"barefoots"`), an invalid pattern matches
 * nothing, and inline flags such as `(?i)` switch options. Patterns are translated to JavaScript
 * once and cached; a leading `(?imsU…)` group becomes RegExp flags (`i`, `m`, `s`; `U` and `x`
 * have no JavaScript equivalent, so such patterns match nothing), and the `u` flag makes `.`
 * match whole characters, as Rust's does.
 */

const LEADING_FLAGS = /^\(\?([a-zA-Z]+)\)/
const CACHE_LIMIT = 1024
const cache = new Map<string, RegExp | null>()

/** The compiled form of a Rust regex `pattern` (binary UTF-8 string), or null when invalid. */
export function compileRustRegex(pattern: string): RegExp | null {
  let compiled = cache.get(pattern)
  if (compiled !== undefined) return compiled
  compiled = translate(decodeUtf8(pattern))
  if (cache.size >= CACHE_LIMIT) cache.clear()
  cache.set(pattern, compiled)
  return compiled
}

function translate(pattern: string): RegExp | null {
  let flags = 'u'
  const leading = LEADING_FLAGS.exec(pattern)
  if (leading !== null) {
    for (const flag of leading[1]) {
      if (flag !== 'i' && flag !== 'm' && flag !== 's') return null
      if (!flags.includes(flag)) flags += flag
    }
    pattern = pattern.slice(leading[0].length)
  }
  try {
    return new RegExp(pattern, flags)
  } catch {
    // Rust accepts escapes of any punctuation (`\-`), which the `u` flag refuses.
    try {
      return new RegExp(pattern, flags.replace('u', ''))
    } catch {
      return null
    }
  }
}

/** True when `regex` finds a match in the binary UTF-8 string `subject`. */
export function regexMatches(regex: RegExp, subject: string): boolean {
  return regex.test(decodeUtf8(subject))
}
