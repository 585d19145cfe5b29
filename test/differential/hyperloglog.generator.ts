/**
 * HyperLogLog commands for the random differential generator (`generator.ts`): add the result of
 * {@link hyperLogLogSpecs} to its CATALOGUE.
 *
 * Keys come from the generator's shared key space, so PFADD meets strings and other types written
 * by the other families (WRONGTYPE, "not a valid HyperLogLog"), and APPEND/SETRANGE from the
 * string family corrupt HLLs (INVALIDOBJ). Large PFADDs cross the sparse to dense promotion;
 * SETs of hand-made HLL values (valid, stale-cached, corrupted, dense) feed every reader. Every
 * reply is deterministic: no relaxation is needed. PFSELFTEST is left out (slow, always OK).
 */
import type { Command } from '../../src/reply.js'
import type { CommandSpec, Draw } from './generator.js'
import { denseHll, sparseHll, val, xzero, zero } from './hyperloglog.values.js'

/**
 * HLL values a SET may store: empty, cached, hand-made sparse, corrupted sparse, dense.
 *
 * No payload covers fewer than 16384 registers: an APPEND to one (the string family appends
 * letters, which are XZERO opcodes) leaves a one-byte XZERO inside the register range, and when
 * PFADD splits it Redis writes past the end of the string and later reads that byte back, a
 * history-dependent result this engine does not reproduce (see `hll/sparse.ts`). The deterministic
 * cases cover short payloads without APPEND.
 */
const HLL_VALUES: readonly Uint8Array[] = [
  sparseHll([xzero(16384)], 0n),
  sparseHll([xzero(16384)], 12345n),
  sparseHll([zero(10), val(3, 2), xzero(16372)]),
  sparseHll([xzero(8192), val(32, 4), xzero(8188)], 'stale', [1, 0, 0]),
  sparseHll([xzero(16384), zero(1)]),
  sparseHll([val(2, 4), xzero(16384)]),
  denseHll((index) => index % 7),
  denseHll((index) => (index % 100 === 0 ? 40 : 0), 99n),
]

/** One to `max` elements: the generator's members and values, some binary or empty. */
function elements(draw: Draw, max: number): Command {
  return Array.from({ length: draw.int(1, max) }, () => (draw.chance(0.5) ? draw.member() : draw.value()))
}

/** `count` distinct elements from a random offset, to grow an HLL past the sparse limit. */
function manyElements(draw: Draw): string[] {
  const start = draw.int(0, 100_000)
  return Array.from({ length: draw.pick([50, 200, 1000, 3000]) }, (_, i) => `e${start + i}`)
}

const hll = (name: string, build: CommandSpec['build'], weight = 1): CommandSpec => ({ family: 'hyperloglog', name, build, weight })

/** The HyperLogLog family's command specs (PFADD PFCOUNT PFMERGE PFDEBUG, and SETs of HLL bytes). */
export function hyperLogLogSpecs(): CommandSpec[] {
  return [
    hll('pfadd', (d) => ['PFADD', d.key(), ...elements(d, 4)], 4),
    hll('pfadd', (d) => ['PFADD', d.key()], 0.5),
    hll('pfadd', (d) => ['PFADD', d.key(), ...manyElements(d)], 0.5),
    hll('pfcount', (d) => ['PFCOUNT', d.key()], 3),
    hll('pfcount', (d) => ['PFCOUNT', ...d.keys(4)]),
    hll('pfmerge', (d) => ['PFMERGE', d.key(), ...d.keys(3)], 1.5),
    hll('pfmerge', (d) => ['PFMERGE', d.key()], 0.3),
    hll('pfdebug', (d) => ['PFDEBUG', d.pick(['ENCODING', 'DECODE', 'TODENSE', 'nosuch']), d.key()], 0.5),
    hll('pfdebug', (d) => ['PFDEBUG', 'GETREG', d.key()], 0.1),
    hll('set', (d) => ['SET', d.key(), d.pick(HLL_VALUES)], 0.5),
  ]
}
