/**
 * 500 INCRBYFLOAT sequences from a seeded PRNG: the in-memory long double (longdouble.ts) must
 * print exactly what Redis's x87 `long double` prints, for every magnitude and notation strtold
 * reads. Each sequence starts from a random value (or no key), adds 3–6 random increments and
 * reads the key back; a few increments are malformed on purpose.
 */
import type { Command } from '../../src/reply.js'
import type { DiffCase } from './harness.js'
import { mulberry32 } from './random-source.js'

const random = mulberry32(20240611)
const below = (n: number): number => Math.floor(random() * n)
const pick = <T>(items: readonly T[]): T => items[below(items.length)]
const digits = (count: number): string => Array.from({ length: count }, () => String(below(10))).join('')
const sign = (): string => pick(['', '', '-', '+'])

/** One random number text, in one of the notations Redis users send. */
function randomNumber(): string {
  switch (below(14)) {
    case 0: // plain decimals of everyday size
      return sign() + digits(1 + below(6)) + '.' + digits(1 + below(6))
    case 1: // long decimals: more digits than a double or a long double holds
      return sign() + digits(1 + below(20)) + '.' + digits(below(25))
    case 2: // scientific, like 5.0e3
      return sign() + digits(1) + '.' + digits(below(4)) + pick(['e', 'E']) + pick(['', '+', '-']) + below(40)
    case 3: // integers, up to beyond 64 bits
      return sign() + digits(1 + below(25))
    case 4: // tiny fractions
      return sign() + '0.' + '0'.repeat(below(25)) + digits(1 + below(6))
    case 5: // huge magnitudes near the long double limit
      return sign() + digits(1) + '.' + digits(below(5)) + 'e' + (4000 + below(932))
    case 6: // tiny magnitudes down to the subnormals
      return sign() + digits(1) + '.' + digits(below(5)) + 'e-' + (4000 + below(945))
    case 7: // double-range extremes
      return sign() + digits(1) + 'e' + pick(['', '-']) + (290 + below(30))
    case 8: // values JS prints, e.g. 0.1 + 0.2 artefacts
      return String((random() - 0.5) * 10 ** below(12))
    case 9: // hex floats strtold reads
      return sign() + '0x' + below(0x100000).toString(16) + '.' + below(0x1000).toString(16) + 'p' + (below(200) - 100)
    case 10: // values that tie at the 17th decimal
      return sign() + '0.' + digits(15) + pick(['5', '25', '75', '125'])
    case 11: // money-like
      return sign() + below(100000) + '.' + String(below(100)).padStart(2, '0')
    case 12: // malformed on purpose: Redis refuses, the key must stay unchanged
      return pick(['abc', '1e', ' 1', '1 ', 'nan', '', '.', '1.2.3', '0x', '--5', '1e-99999', '5e99999'])
    default: // trailing and leading zeros, lone dots
      return sign() + '000' + digits(1 + below(3)) + pick(['.', '.000', '.5000', '']) + pick(['', 'e0', 'e-0', 'e+2'])
  }
}

function randomSequence(index: number): DiffCase {
  const key = `f${index}`
  const commands: Command[] = []
  if (random() < 0.7) commands.push(['SET', key, randomNumber()])
  const steps = 3 + below(4)
  for (let step = 0; step < steps; step++) commands.push(['INCRBYFLOAT', key, randomNumber()])
  commands.push(['GET', key])
  return { name: `INCRBYFLOAT random sequence #${index}: ${commands.map((c) => c.slice(2).join(' ')).join(' | ').slice(0, 120)}`, commands }
}

export const incrbyfloatCases: readonly DiffCase[] = Array.from({ length: 500 }, (_, index) => randomSequence(index))
