import { describe, expect, it } from 'vitest';
import { xxh3_64, xxh3Hex } from '../../../src/executor/memory/lib/xxh3.js';

/*
 * Vectors from xxHash's own sanity check (Cyan4973/xxHash, cli/xsum_sanity_check.c,
 * XSUM_XXH3_testdata, seed 0): the input is its pseudorandom test buffer, filled as below.
 */
const PRIME32 = 2654435761n;
const PRIME64 = 11400714785074694797n;

function sanityBuffer(length: number): Uint8Array {
  const buffer = new Uint8Array(length);
  let generator = PRIME32;
  for (let i = 0; i < length; i++) {
    buffer[i] = Number(generator >> 56n);
    generator = (generator * PRIME64) & ((1n << 64n) - 1n);
  }
  return buffer;
}

const vectors: ReadonlyArray<readonly [string, number, bigint]> = [
  ['empty input', 0, 0x2d06800538d394c2n],
  ['1 to 3 bytes', 1, 0xc44bdff4074eecdbn],
  ['4 to 8 bytes', 6, 0x27b56a84cd2d7325n],
  ['9 to 16 bytes', 12, 0xa713daf0dfbb77e7n],
  ['17 to 32 bytes', 24, 0xa3fe70bf9d3510ebn],
  ['33 to 64 bytes', 48, 0x397da259ecba1f11n],
  ['65 to 96 bytes', 80, 0xbcdefbbb2c47c90an],
  ['129 to 240 bytes', 195, 0xcd94217ee362ec3an],
  ['one block, last stripe overlapping', 403, 0xcdeb804d65c6dea4n],
  ['one block ending at a stripe boundary', 512, 0x617e49599013cb6bn],
  ['two blocks ending at a block boundary', 2048, 0xdd59e2c3a5f038e0n],
  ['two blocks and a partial one', 2099, 0xc6b9d9b3fc9ac765n],
  ['three blocks ending at a stripe boundary', 2240, 0x6e73a90539cf2948n],
  ['three blocks, last stripe overlapping', 2367, 0xcb37aeb9e5d361edn],
];

describe('XXH3-64 (seed 0) against the xxHash sanity vectors', () => {
  for (const [name, length, expected] of vectors) {
    it(`${name} (${length} bytes)`, () => {
      expect(xxh3_64(sanityBuffer(length))).toBe(expected);
    });
  }

  it('reads a view into a larger buffer from its own offset', () => {
    const outer = new Uint8Array(300);
    outer.set(sanityBuffer(195), 7);
    expect(xxh3_64(outer.subarray(7, 7 + 195))).toBe(0xcd94217ee362ec3an);
  });

  it('writes the digest as 16 lowercase hex digits', () => {
    expect(xxh3Hex(sanityBuffer(0))).toBe('2d06800538d394c2');
    expect(xxh3Hex(sanityBuffer(6))).toMatch(/^[0-9a-f]{16}$/);
  });
});
