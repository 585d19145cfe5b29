/**
 * Redis Cluster key slots: CRC16 (the XMODEM variant: polynomial 0x1021, initial value 0, no
 * reflection) of the key's hash tag, modulo 16384, as the Redis Cluster specification defines
 * them ("Keys distribution model" and "Hash tags").
 *
 */

import type { Arg } from '../../reply.js'

/** Slots of a Redis Cluster. */
export const SLOT_COUNT = 16384

const OPEN_BRACE = 0x7b
const CLOSE_BRACE = 0x7d

/** CRC16/XMODEM by table, one byte at a time. */
const TABLE: Uint16Array = (() => {
  const table = new Uint16Array(256)
  for (let byte = 0; byte < 256; byte++) {
    let crc = byte << 8
    for (let bit = 0; bit < 8; bit++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff
    table[byte] = crc
  }
  return table
})()

function crc16(bytes: Uint8Array, start: number, end: number): number {
  let crc = 0
  for (let i = start; i < end; i++) crc = ((crc << 8) & 0xffff) ^ TABLE[((crc >> 8) ^ bytes[i]) & 0xff]
  return crc
}

const encoder = new TextEncoder()

/** The key's bytes: a string key is UTF-8, as the executors send it. */
function keyBytes(key: Arg): Uint8Array {
  return typeof key === 'string' ? encoder.encode(key) : key
}

/**
 * The slot of a key. Only the hash tag is hashed when the key has one: the bytes between the
 * first `{` and the first `}` after it, if there is at least one byte between them.
 */
export function keySlot(key: Arg): number {
  const bytes = keyBytes(key)
  const open = bytes.indexOf(OPEN_BRACE)
  if (open !== -1) {
    const close = bytes.indexOf(CLOSE_BRACE, open + 1)
    if (close > open + 1) return crc16(bytes, open + 1, close) & (SLOT_COUNT - 1)
  }
  return crc16(bytes, 0, bytes.length) & (SLOT_COUNT - 1)
}
