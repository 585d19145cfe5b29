/**
 * Glob matching with the rules of Redis's `stringmatchlen` (util.c), used by CONFIG GET and
 * COMMAND LIST FILTERBY PATTERN: `*` any run, `?` one byte, `[abc]` / `[^abc]` / `[a-z]` classes
 * (a reversed range matches too), `\x` a literal `x`. An unterminated class ends at the pattern's
 * end and a trailing backslash matches itself, as in Redis. Matching walks the pattern directly
 * (no regex compiled per call); `*` backtracks to the last star only, which is exact because
 * every other token consumes exactly one byte.
 */
export function globMatch(pattern: string, text: string, noCase = false): boolean {
  let p = 0
  let t = 0
  let starP = -1
  let starT = -1
  while (t < text.length) {
    if (p < pattern.length) {
      const token = pattern.charCodeAt(p)
      if (token === 42 /* * */) {
        while (p < pattern.length && pattern.charCodeAt(p) === 42) p++
        if (p === pattern.length) return true
        starP = p
        starT = t
        continue
      }
      const consumed = matchOne(pattern, p, text.charCodeAt(t), noCase)
      if (consumed !== 0) {
        p += consumed
        t++
        continue
      }
    }
    if (starP === -1) return false
    p = starP
    t = ++starT
  }
  while (p < pattern.length && pattern.charCodeAt(p) === 42) p++
  return p === pattern.length
}

/**
 * Matches the single-byte token at `pattern[p]` against `c`: returns the token's length in the
 * pattern when it matches, 0 when it does not.
 */
function matchOne(pattern: string, p: number, c: number, noCase: boolean): number {
  const token = pattern.charCodeAt(p)
  if (token === 63 /* ? */) return 1
  if (token === 91 /* [ */) return matchClass(pattern, p, c, noCase)
  let length = 1
  let literal = token
  if (token === 92 /* \ */ && p + 1 < pattern.length) {
    literal = pattern.charCodeAt(p + 1)
    length = 2
  }
  return sameByte(literal, c, noCase) ? length : 0
}

/** A `[...]` class starting at `pattern[start]`: its length when `c` matches, else 0. */
function matchClass(pattern: string, start: number, c: number, noCase: boolean): number {
  let p = start + 1
  const negate = p < pattern.length && pattern.charCodeAt(p) === 94 /* ^ */
  if (negate) p++
  let matched = false
  for (;;) {
    if (p >= pattern.length) {
      // Unterminated class: Redis treats the pattern's end as its end.
      break
    }
    const token = pattern.charCodeAt(p)
    if (token === 93 /* ] */) {
      p++
      break
    }
    if (token === 92 /* \ */ && p + 1 < pattern.length) {
      // An escaped byte inside a class compares case-sensitively even under NOCASE, as in Redis.
      if (pattern.charCodeAt(p + 1) === c) matched = true
      p += 2
    } else if (p + 2 < pattern.length && pattern.charCodeAt(p + 1) === 45 /* - */) {
      let low = pattern.charCodeAt(p)
      let high = pattern.charCodeAt(p + 2)
      if (low > high) [low, high] = [high, low]
      let probe = c
      if (noCase) {
        low = lower(low)
        high = lower(high)
        probe = lower(c)
      }
      if (probe >= low && probe <= high) matched = true
      p += 3
    } else {
      if (sameByte(token, c, noCase)) matched = true
      p++
    }
  }
  return matched !== negate ? p - start : 0
}

function sameByte(a: number, b: number, noCase: boolean): boolean {
  return a === b || (noCase && lower(a) === lower(b))
}

function lower(c: number): number {
  return c >= 65 && c <= 90 ? c + 32 : c
}
