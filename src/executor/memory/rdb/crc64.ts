/**
 * CRC-64 as Redis computes it for DUMP payloads and RDB files (`crc64.c`): the "Jones"
 * polynomial 0xad93d23594c935a9, reflected input and output, initial value 0, no final xor.
 * Check value: crc64("123456789") = 0xe9c6d914c4b8d9ca.
 *
 * The 64-bit register is kept as two unsigned 32-bit halves so that the byte loop runs on plain
 * numbers (BigInt arithmetic per byte would be an order of magnitude slower).
 */

/** The reflected polynomial, split into halves. */
const POLY_HIGH = 0x95ac9329
const POLY_LOW = 0xac4bc9b5

/** Byte-wise lookup tables: the register after shifting one byte `n` through it. */
const TABLE_HIGH = new Uint32Array(256)
const TABLE_LOW = new Uint32Array(256)

for (let n = 0; n < 256; n++) {
  let high = 0
  let low = n
  for (let bit = 0; bit < 8; bit++) {
    const carry = low & 1
    low = ((low >>> 1) | ((high & 1) << 31)) >>> 0
    high = high >>> 1
    if (carry) {
      high = (high ^ POLY_HIGH) >>> 0
      low = (low ^ POLY_LOW) >>> 0
    }
  }
  TABLE_HIGH[n] = high
  TABLE_LOW[n] = low
}

/**
 * The CRC-64 of the bytes of binary string `data` (one char per byte) from `start` to `end`,
 * as the 8 bytes Redis appends to a payload: little-endian, as a binary string.
 */
export function crc64(data: string, start = 0, end = data.length): string {
  const running = new Crc64()
  running.updateBinary(data, start, end)
  return running.digest()
}

/**
 * A CRC-64 computed piece by piece, for RDB files written and read in chunks: `update` with each
 * piece in order, then `digest` gives what {@link crc64} gives for the concatenation.
 */
export class Crc64 {
  private high = 0
  private low = 0

  /** Feeds the bytes of binary string `data` from `start` to `end`. */
  updateBinary(data: string, start = 0, end = data.length): void {
    let high = this.high
    let low = this.low
    for (let i = start; i < end; i++) {
      const index = (low ^ data.charCodeAt(i)) & 0xff
      low = (TABLE_LOW[index] ^ ((low >>> 8) | (high << 24))) >>> 0
      high = (TABLE_HIGH[index] ^ (high >>> 8)) >>> 0
    }
    this.high = high
    this.low = low
  }

  /** Feeds `bytes` from `start` to `end`. */
  update(bytes: Uint8Array, start = 0, end = bytes.length): void {
    let high = this.high
    let low = this.low
    for (let i = start; i < end; i++) {
      const index = (low ^ bytes[i]) & 0xff
      low = (TABLE_LOW[index] ^ ((low >>> 8) | (high << 24))) >>> 0
      high = (TABLE_HIGH[index] ^ (high >>> 8)) >>> 0
    }
    this.high = high
    this.low = low
  }

  /** The checksum of everything fed so far: 8 bytes little-endian, as a binary string. */
  digest(): string {
    const { high, low } = this
    return String.fromCharCode(
      low & 0xff, (low >>> 8) & 0xff, (low >>> 16) & 0xff, low >>> 24,
      high & 0xff, (high >>> 8) & 0xff, (high >>> 16) & 0xff, high >>> 24,
    )
  }
}
