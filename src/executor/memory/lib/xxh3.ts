/**
 * XXH3-64 with seed 0 and the default secret, written from the xxHash specification
 * (Cyan4973/xxHash, doc/xxhash_spec.md, "XXH3 Algorithm Description"). Redis 8.4's DIGEST and
 * the IFDEQ / IFDNE conditions of SET and DELEX compare values by this hash, so the engine needs
 * it bit for bit. Arithmetic is on BigInt, truncated to 64 bits after each step, because every
 * step of the specification is modular 64-bit (and a few need the full 128-bit product).
 */

const MASK64 = (1n << 64n) - 1n;
const MASK32 = (1n << 32n) - 1n;

const PRIME32_1 = 0x9e3779b1n;
const PRIME32_2 = 0x85ebca77n;
const PRIME32_3 = 0xc2b2ae3dn;
const PRIME64_1 = 0x9e3779b185ebca87n;
const PRIME64_2 = 0xc2b2ae3d27d4eb4fn;
const PRIME64_3 = 0x165667b19e3779f9n;
const PRIME64_4 = 0x85ebca77c2b2ae63n;
const PRIME64_5 = 0x27d4eb2f165667c5n;
const PRIME_MX1 = 0x165667919e3779f9n;
const PRIME_MX2 = 0x9fb21c651e98df25n;

/** The specification's default 192-byte secret. */
const SECRET = Uint8Array.from([
  0xb8, 0xfe, 0x6c, 0x39, 0x23, 0xa4, 0x4b, 0xbe, 0x7c, 0x01, 0x81, 0x2c, 0xf7, 0x21, 0xad, 0x1c,
  0xde, 0xd4, 0x6d, 0xe9, 0x83, 0x90, 0x97, 0xdb, 0x72, 0x40, 0xa4, 0xa4, 0xb7, 0xb3, 0x67, 0x1f,
  0xcb, 0x79, 0xe6, 0x4e, 0xcc, 0xc0, 0xe5, 0x78, 0x82, 0x5a, 0xd0, 0x7d, 0xcc, 0xff, 0x72, 0x21,
  0xb8, 0x08, 0x46, 0x74, 0xf7, 0x43, 0x24, 0x8e, 0xe0, 0x35, 0x90, 0xe6, 0x81, 0x3a, 0x26, 0x4c,
  0x3c, 0x28, 0x52, 0xbb, 0x91, 0xc3, 0x00, 0xcb, 0x88, 0xd0, 0x65, 0x8b, 0x1b, 0x53, 0x2e, 0xa3,
  0x71, 0x64, 0x48, 0x97, 0xa2, 0x0d, 0xf9, 0x4e, 0x38, 0x19, 0xef, 0x46, 0xa9, 0xde, 0xac, 0xd8,
  0xa8, 0xfa, 0x76, 0x3f, 0xe3, 0x9c, 0x34, 0x3f, 0xf9, 0xdc, 0xbb, 0xc7, 0xc7, 0x0b, 0x4f, 0x1d,
  0x8a, 0x51, 0xe0, 0x4b, 0xcd, 0xb4, 0x59, 0x31, 0xc8, 0x9f, 0x7e, 0xc9, 0xd9, 0x78, 0x73, 0x64,
  0xea, 0xc5, 0xac, 0x83, 0x34, 0xd3, 0xeb, 0xc3, 0xc5, 0x81, 0xa0, 0xff, 0xfa, 0x13, 0x63, 0xeb,
  0x17, 0x0d, 0xdd, 0x51, 0xb7, 0xf0, 0xda, 0x49, 0xd3, 0x16, 0x55, 0x26, 0x29, 0xd4, 0x68, 0x9e,
  0x2b, 0x16, 0xbe, 0x58, 0x7d, 0x47, 0xa1, 0xfc, 0x8f, 0xf8, 0xb8, 0xd1, 0x7a, 0xd0, 0x31, 0xce,
  0x45, 0xcb, 0x3a, 0x8f, 0x95, 0x16, 0x04, 0x28, 0xaf, 0xd7, 0xfb, 0xca, 0xbb, 0x4b, 0x40, 0x7e,
]);
const SECRET_VIEW = new DataView(SECRET.buffer);
const STRIPES_PER_BLOCK = (SECRET.length - 64) / 8;
const BLOCK_SIZE = 64 * STRIPES_PER_BLOCK;

const secret64 = (offset: number): bigint => SECRET_VIEW.getBigUint64(offset, true);
const secret32 = (offset: number): bigint => BigInt(SECRET_VIEW.getUint32(offset, true));

function read64(view: DataView, offset: number): bigint {
  return view.getBigUint64(offset, true);
}

function read32(view: DataView, offset: number): bigint {
  return BigInt(view.getUint32(offset, true));
}

const mul64 = (a: bigint, b: bigint): bigint => (a * b) & MASK64;

/** Lower half xor higher half of the full 128-bit product. */
function fold128(a: bigint, b: bigint): bigint {
  const product = a * b;
  return (product & MASK64) ^ (product >> 64n);
}

function rotl64(value: bigint, bits: bigint): bigint {
  return ((value << bits) | (value >> (64n - bits))) & MASK64;
}

function bswap32(value: bigint): bigint {
  return (
    ((value & 0xffn) << 24n) |
    ((value & 0xff00n) << 8n) |
    ((value >> 8n) & 0xff00n) |
    ((value >> 24n) & 0xffn)
  );
}

function bswap64(value: bigint): bigint {
  return (bswap32(value & MASK32) << 32n) | bswap32(value >> 32n);
}

function avalanche(x: bigint): bigint {
  x ^= x >> 37n;
  x = mul64(x, PRIME_MX1);
  return x ^ (x >> 32n);
}

function avalancheXxh64(x: bigint): bigint {
  x ^= x >> 33n;
  x = mul64(x, PRIME64_2);
  x ^= x >> 29n;
  x = mul64(x, PRIME64_3);
  return x ^ (x >> 32n);
}

function hashUpTo16(input: Uint8Array, view: DataView): bigint {
  const length = input.length;
  if (length > 8) {
    const low = (secret64(24) ^ secret64(32)) ^ read64(view, 0);
    const high = (secret64(40) ^ secret64(48)) ^ read64(view, length - 8);
    const value = BigInt(length) + bswap64(low) + high + fold128(low, high);
    return avalanche(value & MASK64);
  }
  if (length >= 4) {
    const combined = read32(view, length - 4) | (read32(view, 0) << 32n);
    let value = (secret64(8) ^ secret64(16)) ^ combined;
    value ^= rotl64(value, 49n) ^ rotl64(value, 24n);
    value = mul64(value, PRIME_MX2);
    value ^= (value >> 35n) + BigInt(length);
    value = mul64(value, PRIME_MX2);
    return value ^ (value >> 28n);
  }
  if (length > 0) {
    const combined =
      BigInt(input[length - 1]!) |
      (BigInt(length) << 8n) |
      (BigInt(input[0]!) << 16n) |
      (BigInt(input[length >> 1]!) << 24n);
    return avalancheXxh64((secret32(0) ^ secret32(4)) ^ combined);
  }
  return avalancheXxh64(secret64(56) ^ secret64(64));
}

function mixStep(view: DataView, offset: number, secretOffset: number): bigint {
  return fold128(read64(view, offset) ^ secret64(secretOffset), read64(view, offset + 8) ^ secret64(secretOffset + 8));
}

function hash17To240(length: number, view: DataView): bigint {
  let acc = mul64(BigInt(length), PRIME64_1);
  if (length <= 128) {
    const rounds = ((length - 1) >> 5) + 1;
    for (let i = rounds - 1; i >= 0; i--) {
      acc += mixStep(view, i * 16, i * 32);
      acc += mixStep(view, length - i * 16 - 16, i * 32 + 16);
    }
    return avalanche(acc & MASK64);
  }
  const chunks = length >> 4;
  for (let i = 0; i < 8; i++) acc += mixStep(view, i * 16, i * 16);
  acc = avalanche(acc & MASK64);
  for (let i = 8; i < chunks; i++) acc += mixStep(view, i * 16, (i - 8) * 16 + 3);
  acc += mixStep(view, length - 16, 119);
  return avalanche(acc & MASK64);
}

function accumulate(acc: bigint[], view: DataView, offset: number, secretOffset: number): void {
  for (let i = 0; i < 8; i++) {
    const lane = read64(view, offset + i * 8);
    const value = lane ^ secret64(secretOffset + i * 8);
    acc[i ^ 1] = (acc[i ^ 1]! + lane) & MASK64;
    acc[i] = (acc[i]! + (value & MASK32) * (value >> 32n)) & MASK64;
  }
}

function scramble(acc: bigint[]): void {
  const secretOffset = SECRET.length - 64;
  for (let i = 0; i < 8; i++) {
    let value = acc[i]!;
    value ^= value >> 47n;
    value ^= secret64(secretOffset + i * 8);
    acc[i] = mul64(value, PRIME32_1);
  }
}

function hashLarge(length: number, view: DataView): bigint {
  const acc = [PRIME32_3, PRIME64_1, PRIME64_2, PRIME64_3, PRIME64_4, PRIME32_2, PRIME64_5, PRIME32_1];
  let offset = 0;
  // Full blocks, leaving the last one (even when full) for the final round.
  while (length - offset > BLOCK_SIZE) {
    for (let n = 0; n < STRIPES_PER_BLOCK; n++) accumulate(acc, view, offset + n * 64, n * 8);
    scramble(acc);
    offset += BLOCK_SIZE;
  }
  const fullStripes = Math.floor((length - offset - 1) / 64);
  for (let n = 0; n < fullStripes; n++) accumulate(acc, view, offset + n * 64, n * 8);
  accumulate(acc, view, length - 64, SECRET.length - 71);
  let result = mul64(BigInt(length), PRIME64_1);
  for (let i = 0; i < 4; i++) {
    result += fold128(acc[i * 2]! ^ secret64(11 + i * 16), acc[i * 2 + 1]! ^ secret64(11 + i * 16 + 8));
  }
  return avalanche(result & MASK64);
}

/** XXH3-64 (seed 0, default secret) of `input`, as an unsigned 64-bit integer. */
export function xxh3_64(input: Uint8Array): bigint {
  const view = new DataView(input.buffer, input.byteOffset, input.byteLength);
  if (input.length <= 16) return hashUpTo16(input, view);
  if (input.length <= 240) return hash17To240(input.length, view);
  return hashLarge(input.length, view);
}

/** The digest as Redis's DIGEST writes it: 16 lowercase hex digits, zero-padded. */
export function xxh3Hex(input: Uint8Array): string {
  return xxh3_64(input).toString(16).padStart(16, '0');
}
