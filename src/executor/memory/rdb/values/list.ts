import type { ValueCodec } from '../codec.js'
import { isInstance } from '../codec.js'
import { QUICKLIST_NODE_PACKED, QUICKLIST_NODE_PLAIN, RDB_VERSION_7_0, RdbType } from '../constants.js'
import { readListpack } from '../listpack.js'
import { check, type RdbReader } from '../reader.js'
import { readZiplist } from '../ziplist.js'
import { ListValue } from '../../types/list.js'

/**
 * Lists. Redis 7.0 writes RDB_TYPE_LIST_QUICKLIST_2 (nodes tagged PACKED, a listpack, or PLAIN,
 * one large element); earlier versions wrote quicklists of ziplists (3.2 – 6.2), a single
 * ziplist, or plain elements, all of which 7.0 still loads. The engine writes RDB_TYPE_LIST,
 * plain elements, which every version reads and re-packs under its own list settings.
 */
export const listCodec: ValueCodec<ListValue> = {
  types: [RdbType.LIST, RdbType.LIST_ZIPLIST, RdbType.LIST_QUICKLIST, RdbType.LIST_QUICKLIST_2],
  accepts: isInstance(ListValue),
  decode(type, reader) {
    const elements = readElements(type, reader)
    // Redis refuses to create an empty key (rdbLoadObject's `emptykey`).
    check(elements.length > 0, 'empty list')
    return new ListValue(elements)
  },
  encode(list, writer) {
    writer.length(list.length)
    for (let i = 0; i < list.length; i++) writer.string(list.at(i))
    return { type: RdbType.LIST, version: RDB_VERSION_7_0 }
  },
}

function readElements(type: number, reader: RdbReader): string[] {
  switch (type) {
    case RdbType.LIST: {
      const count = reader.length()
      const elements: string[] = []
      for (let i = 0; i < count; i++) elements.push(reader.string())
      return elements
    }
    case RdbType.LIST_ZIPLIST:
      return readZiplist(reader.string())
    default:
      return readQuicklist(type, reader)
  }
}

/**
 * A quicklist: a node count, then per node (in version 2 a container tag first) a non-empty
 * string holding a ziplist (version 1), a listpack (PACKED) or one element (PLAIN). Empty
 * ziplists and listpacks are skipped, as Redis does.
 */
function readQuicklist(type: number, reader: RdbReader): string[] {
  const nodes = reader.length()
  const elements: string[] = []
  for (let i = 0; i < nodes; i++) {
    let container = QUICKLIST_NODE_PACKED
    if (type === RdbType.LIST_QUICKLIST_2) {
      container = reader.length()
      check(container === QUICKLIST_NODE_PACKED || container === QUICKLIST_NODE_PLAIN, 'quicklist integrity check failed')
    }
    const data = reader.string()
    check(data.length > 0, 'empty quicklist node')
    if (container === QUICKLIST_NODE_PLAIN) elements.push(data)
    else for (const element of type === RdbType.LIST_QUICKLIST_2 ? readListpack(data) : readZiplist(data)) elements.push(element)
  }
  return elements
}
