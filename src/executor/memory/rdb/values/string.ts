import type { Value } from '../../keyspace.js'
import type { ValueCodec } from '../codec.js'
import { RDB_VERSION_7_0, RdbType } from '../constants.js'

/**
 * Strings: RDB_TYPE_STRING, one RDB string (verbatim, integer-encoded or LZF-compressed; the
 * reader handles all three).
 */
export const stringCodec: ValueCodec<string> = {
  types: [RdbType.STRING],
  accepts: (value: Value): value is string => typeof value === 'string',
  decode: (_type, reader) => reader.string(),
  encode(value, writer) {
    writer.string(value)
    return { type: RdbType.STRING, version: RDB_VERSION_7_0 }
  },
}
