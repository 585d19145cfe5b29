import { describe, expect, test } from 'vitest'
import { compileGlob, stringMatch } from '../../../src/executor/memory/lib/glob.js'

/**
 * The glob matcher's corner cases (each also checked against redis-server through KEYS in
 * test/differential/generic.*), the nocase variant that KEYS cannot reach, and the compiled
 * fast paths against the general matcher.
 */

const cases: [pattern: string, subject: string, expected: boolean][] = [
  ['', '', true],
  ['', 'a', false],
  ['*', '', false],
  ['**', '', false],
  ['*', 'anything', true],
  ['a*', 'a', true],
  ['a*', '', false],
  ['a*', 'ba', false],
  ['*a', 'bba', true],
  ['h?llo', 'hello', true],
  ['h?llo', 'hllo', false],
  ['h*llo', 'hllo', true],
  ['h*llo', 'heeeello', true],
  ['h[ae]llo', 'hallo', true],
  ['h[ae]llo', 'hillo', false],
  ['h[^e]llo', 'hallo', true],
  ['h[^e]llo', 'hello', false],
  ['h[a-b]llo', 'hbllo', true],
  ['h[a-b]llo', 'hcllo', false],
  ['h[z-w]llo', 'hxllo', true], // reversed ranges match too
  ['h[]]llo', 'h]llo', false], // `[]` is an empty class; the `]` after it is a literal
  ['h[\\]]llo', 'h]llo', true],
  ['h[a-]llo', 'h]llo', false], // the range a..] swallows the `]`; the class then ends at the pattern's end
  ['[a-]', ']', true],
  ['[a-]', '_', true],
  ['[a-]', 'b', false],
  ['a[', 'a[', false], // a `[` at the end never matches
  ['a[b', 'ab', true], // unterminated class
  ['a[^b', 'ac', true],
  ['a\\*', 'a*', true],
  ['a\\*', 'ab', false],
  ['a\\', 'a\\', true], // a trailing backslash matches itself
  ['\\a', 'a', true],
  ['[\\', '\\', true],
  ['*a*b*c', 'xaybzc', true],
  ['*a*b*c', 'xaybzcd', false],
  ['a*b', 'aXbXbXc', false],
  ['\x00', '\x00', true],
  ['?', '\xff', true],
  ['[a-\xff]', '\x00', true], // signed chars: 0xff is -1, so the range is -1..'a'
  ['[a-\xff]', '\xff', true],
  ['[a-\xff]', '\x80', false],
  ['[a-\xff]', 'b', false],
  ['[\x7f-\x80]', '\x00', true], // -128..127: every byte
  ['[\x7f-\x80]', '\xc0', true],
]

describe('stringMatch (Redis stringmatchlen)', () => {
  test.each(cases)('%j against %j is %s', (pattern, subject, expected) => {
    expect(stringMatch(pattern, subject)).toBe(expected)
    expect(compileGlob(pattern)(subject)).toBe(expected)
  })

  test('nocase folds ASCII letters only, in literals, classes and ranges', () => {
    expect(stringMatch('HeLLo', 'hello', true)).toBe(true)
    expect(stringMatch('HeLLo', 'hello')).toBe(false)
    expect(stringMatch('h[A-C]llo', 'hbllo', true)).toBe(true)
    expect(stringMatch('h[a-c]llo', 'hBllo', true)).toBe(true)
    expect(stringMatch('h[ABC]llo', 'hbllo', true)).toBe(true)
    expect(stringMatch('\xc9', '\xe9', true)).toBe(false) // Latin-1 letters are not folded (C locale)
    expect(compileGlob('USER:*', true)('user:1')).toBe(true)
    expect(compileGlob('KEY', true)('key')).toBe(true)
  })

  test('nocase does not apply to an escaped byte inside a class', () => {
    expect(stringMatch('[\\A]', 'a', true)).toBe(false)
    expect(stringMatch('[\\A]', 'A', true)).toBe(true)
    expect(stringMatch('\\A', 'a', true)).toBe(true) // outside a class it does
  })

  test('patterns nesting more than 1000 stars match nothing', () => {
    const subject = 'a'.repeat(1100)
    expect(stringMatch('*a'.repeat(1000), subject)).toBe(true)
    expect(stringMatch('*a'.repeat(1001), subject)).toBe(false)
  })

  test('a pathological pattern finishes quickly (skipLongerMatches)', () => {
    const subject = 'a'.repeat(5000)
    const started = performance.now()
    expect(stringMatch('a*'.repeat(40) + 'b', subject)).toBe(false)
    expect(performance.now() - started).toBeLessThan(1000)
  })
})

describe('compileGlob', () => {
  test('its fast paths agree with the general matcher', () => {
    const patterns = ['', '*', '**', 'abc', 'abc*', 'abc**', 'ab]c', 'a^b-c*', '*abc', 'a?c', 'a[bc]', 'a\\*', 'a\\']
    const subjects = ['', 'a', 'ab', 'abc', 'abcd', 'ab]c', 'ab]cd', 'a^b-c', 'a^b-cx', 'xabc', 'a*', 'a\\', 'abcabc']
    for (const pattern of patterns) {
      const matcher = compileGlob(pattern)
      for (const subject of subjects) {
        expect(matcher(subject), `${pattern} ~ ${subject}`).toBe(stringMatch(pattern, subject))
      }
    }
  })

  test('random patterns: compiled and direct matching agree', () => {
    let seed = 12345
    const random = (n: number) => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0
      return (seed >>> 8) % n
    }
    const alphabet = ['a', 'b', '*', '?', '[', ']', '^', '-', '\\', '\xff']
    const text = (max: number) => Array.from({ length: random(max + 1) }, () => alphabet[random(alphabet.length)]).join('')
    for (let i = 0; i < 3000; i++) {
      const pattern = text(6)
      const subject = text(6)
      for (const nocase of [false, true]) {
        expect(compileGlob(pattern, nocase)(subject), `${pattern} ~ ${subject}`).toBe(stringMatch(pattern, subject, nocase))
      }
    }
  })
})
