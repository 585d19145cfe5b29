/**
 * FUNCTION DUMP / FUNCTION RESTORE payloads, Redis 7.0's format (`functionDumpCommand`,
 * `rdbSaveFunctions`): per library the opcode RDB_OPCODE_FUNCTION2 (245) and the library's whole
 * code as an RDB string, then the RDB version (2 bytes, little-endian) and the CRC-64 of
 * everything before (8 bytes, little-endian). Redis LZF-compresses codes over 20 bytes; this
 * writer stores them uncompressed (a form Redis reads as well), and the reader accepts both.
 */
import { RDB_VERSION_7_0 } from '../../rdb/constants.js'
import { crc64 } from '../../rdb/crc64.js'
import { verifyDumpPayload } from '../../rdb/payload.js'
import { CorruptPayload, RdbReader } from '../../rdb/reader.js'
import { RdbWriter } from '../../rdb/writer.js'

const RDB_OPCODE_FUNCTION2 = 245
/** Redis 7.0 release candidates' format, which 7.0 refuses. */
const RDB_OPCODE_FUNCTION_PRE_GA = 246
/** Version and checksum: 10 bytes at the end of every payload. */
const FOOTER_SIZE = 10

/** The payload of libraries given by their whole code (shebang included). */
export function dumpLibraries(codes: Iterable<string>): string {
  const writer = new RdbWriter()
  for (const code of codes) {
    writer.byte(RDB_OPCODE_FUNCTION2)
    writer.string(code)
  }
  const body = writer.finish() + String.fromCharCode(RDB_VERSION_7_0 & 0xff, RDB_VERSION_7_0 >> 8)
  return body + crc64(body)
}

/** The library codes in a payload, or Redis's error text (without code). */
export function readLibraries(payload: string): string[] | string {
  if (!verifyDumpPayload(payload)) return 'DUMP payload version or checksum are wrong'
  const reader = new RdbReader(payload)
  const codes: string[] = []
  // Read until the last 10 bytes, the version and checksum.
  while (payload.length - reader.pos > FOOTER_SIZE) {
    const type = reader.byte()
    if (type === RDB_OPCODE_FUNCTION_PRE_GA) return 'Pre-GA function format not supported'
    if (type !== RDB_OPCODE_FUNCTION2) return 'given type is not a function'
    try {
      codes.push(reader.string())
    } catch (error) {
      if (error instanceof CorruptPayload) return 'Failed loading library payload'
      throw error
    }
  }
  return codes
}
