/**
 * Redis's glob-style matcher (`stringmatchlen` in util.c, as of Redis 7.0.15), over binary
 * strings (one char per byte). KEYS, SCAN MATCH, HSCAN/SSCAN/ZSCAN MATCH, PSUBSCRIBE patterns
 * and ACL key patterns all go through it, so its corner cases are Redis's:
 *
 * - `*` matches any run of bytes, `?` exactly one byte;
 * - `[abc]`, `[^abc]` and ranges `[a-z]` (also reversed, `[z-a]`), where `\` escapes one byte;
 *   an unterminated class (`[ab`) ends with the pattern, and a class may even swallow its own
 *   `]` as a range end (`[a-]` is the range `]`..`a`, then the class goes on);
 * - `\x` matches `x` literally; a trailing `\` matches a backslash;
 * - a pattern never matches the empty string unless it is empty itself (`*` does not match
 *   ``: KEYS and SCAN special-case the pattern `*` before calling the matcher);
 * - range bounds compare as C `char`, which is signed on the platforms Redis ships for: bytes
 *   0x80..0xff sort below 0x00 (`[a-\xff]` is the range 0xff..'a', containing 0x00..'a' and 0xff);
 * - nocase folds ASCII letters only (the C locale), and an escaped byte inside a class is
 *   compared case-sensitively even then;
 * - patterns nesting `*` more than 1000 deep match nothing (Redis's guard against abusive
 *   patterns, CVE-2022-36021).
 *
 */

const STAR = 42 // '*'
const QUESTION = 63 // '?'
const OPEN = 91 // '['
const CLOSE = 93 // ']'
const CARET = 94 // '^'
const BACKSLASH = 92 // '\\'
const DASH = 45 // '-'

/** Redis gives up on patterns whose `*` recursion goes deeper than this. */
const MAX_NESTING = 1000

/** `tolower` of the C locale: only A-Z change. */
function lower(code: number): number {
  return code >= 65 && code <= 90 ? code + 32 : code
}

/** A byte as a signed C `char`, the way Redis compares range bounds. */
function signed(code: number): number {
  return code >= 128 ? code - 256 : code
}

/**
 * State shared by one top-level match: Redis's `skipLongerMatches` flag. Once the rest of a
 * pattern failed to match after some `*` at every position, no earlier `*` can help either.
 */
interface MatchState {
  skipLongerMatches: boolean
}

/**
 * The matcher proper, a port of `stringmatchlen_impl`: pattern and subject are walked by index;
 * reading past the end of the pattern yields NaN, which, like the NUL terminator Redis reads
 * there, equals no special character.
 */
function matchFrom(
  pattern: string,
  p: number,
  subject: string,
  s: number,
  nocase: boolean,
  state: MatchState,
  nesting: number,
): boolean {
  if (nesting > MAX_NESTING) return false
  const patternEnd = pattern.length
  const subjectEnd = subject.length
  while (p < patternEnd && s < subjectEnd) {
    const code = pattern.charCodeAt(p)
    switch (code) {
      case STAR: {
        while (p + 1 < patternEnd && pattern.charCodeAt(p + 1) === STAR) p++
        if (p + 1 === patternEnd) return true
        while (s < subjectEnd) {
          if (matchFrom(pattern, p + 1, subject, s, nocase, state, nesting + 1)) return true
          if (state.skipLongerMatches) return false
          s++
        }
        state.skipLongerMatches = true
        return false
      }
      case QUESTION:
        s++
        break
      case OPEN: {
        p++
        const negate = pattern.charCodeAt(p) === CARET
        if (negate) p++
        const c = subject.charCodeAt(s)
        let matched = false
        for (;;) {
          const left = patternEnd - p
          const head = pattern.charCodeAt(p)
          if (head === BACKSLASH && left >= 2) {
            p++
            if (pattern.charCodeAt(p) === c) matched = true
          } else if (head === CLOSE) {
            break
          } else if (left === 0) {
            // Unterminated class: step back so the shared `p++` below lands on the end.
            p--
            break
          } else if (left >= 3 && pattern.charCodeAt(p + 1) === DASH) {
            let start = signed(head)
            let end = signed(pattern.charCodeAt(p + 2))
            let probe = signed(c)
            if (start > end) {
              const swap = start
              start = end
              end = swap
            }
            if (nocase) {
              start = lower(start)
              end = lower(end)
              probe = lower(probe)
            }
            p += 2
            if (probe >= start && probe <= end) matched = true
          } else if (nocase ? lower(head) === lower(c) : head === c) {
            matched = true
          }
          p++
        }
        if (negate) matched = !matched
        if (!matched) return false
        s++
        break
      }
      default: {
        if (code === BACKSLASH && patternEnd - p >= 2) p++
        const literal = pattern.charCodeAt(p)
        const c = subject.charCodeAt(s)
        if (nocase ? lower(literal) !== lower(c) : literal !== c) return false
        s++
        break
      }
    }
    p++
    if (s === subjectEnd) {
      while (p < patternEnd && pattern.charCodeAt(p) === STAR) p++
      break
    }
  }
  return p === patternEnd && s === subjectEnd
}

/**
 * True when `subject` matches the glob `pattern`, exactly as Redis's `stringmatchlen` decides
 * (see the module notes for the corner cases). Both are binary strings (one char per byte).
 *
 * For many subjects against one pattern, {@link compileGlob} skips the general matcher when
 * the pattern allows.
 *
 * @param nocase - fold ASCII letters (Redis's `nocase` flag, used by CONFIG GET)
 */
export function stringMatch(pattern: string, subject: string, nocase = false): boolean {
  return matchFrom(pattern, 0, subject, 0, nocase, { skipLongerMatches: false }, 0)
}

/** A compiled glob: true when the subject matches. */
export type GlobMatcher = (subject: string) => boolean

const SPECIAL = /[*?[\\]/

/**
 * A matcher for one pattern, to test many subjects (KEYS, SCAN, PSUBSCRIBE fan-out). Same
 * answers as {@link stringMatch}; patterns of common shapes get a direct test instead of the
 * general walk:
 * - only stars (`*`, `**`): any non-empty subject;
 * - no special byte at all: equality;
 * - a literal prefix then only stars (`user:*`): `startsWith`.
 *
 * @param nocase - fold ASCII letters, as {@link stringMatch}
 */
export function compileGlob(pattern: string, nocase = false): GlobMatcher {
  const special = pattern.search(SPECIAL)
  if (!nocase) {
    if (special === -1) return (subject) => subject === pattern
    if (special === 0 && isAllStars(pattern, 0)) return (subject) => subject.length > 0
    if (special > 0 && isAllStars(pattern, special)) {
      const prefix = pattern.slice(0, special)
      return (subject) => subject.startsWith(prefix)
    }
  }
  return (subject) => matchFrom(pattern, 0, subject, 0, nocase, { skipLongerMatches: false }, 0)
}

function isAllStars(pattern: string, from: number): boolean {
  for (let i = from; i < pattern.length; i++) if (pattern.charCodeAt(i) !== STAR) return false
  return true
}
