import type { ValueCodec } from '../codec.js'
import { isInstance } from '../codec.js'
import { RDB_VERSION_7_0, RdbType } from '../constants.js'
import { readIntset } from '../intset.js'
import { readListpack } from '../listpack.js'
import { check, type RdbReader } from '../reader.js'
import { SetValue } from '../../types/set.js'

/**
 * Sets. Redis 7.0 writes RDB_TYPE_SET_INTSET for intsets and RDB_TYPE_SET (member strings) for
 * hash tables; Redis 7.2 adds RDB_TYPE_SET_LISTPACK. Members are added one by one under the
 * current `set-max-intset-entries`, so the set ends up with the encoding Redis 7.0 would give it
 * (an intset while every member is an integer and the count is within the limit). The engine
 * writes RDB_TYPE_SET, which every version reads and re-encodes the same way.
 */
export const setCodec: ValueCodec<SetValue> = {
  types: [RdbType.SET, RdbType.SET_INTSET, RdbType.SET_LISTPACK],
  accepts: isInstance(SetValue),
  decode(type, reader, context) {
    const members = readMembers(type, reader)
    check(members.length > 0, 'empty set')
    const set = new SetValue()
    for (const member of members) check(set.add(member, context.maxIntsetEntries), 'duplicate set members detected')
    return set
  },
  encode(set, writer) {
    writer.length(set.size)
    set.forEach((member) => writer.string(member))
    return { type: RdbType.SET, version: RDB_VERSION_7_0 }
  },
}

function readMembers(type: number, reader: RdbReader): string[] {
  if (type === RdbType.SET_INTSET) return readIntset(reader.string())
  if (type === RdbType.SET_LISTPACK) return readListpack(reader.string())
  const count = reader.length()
  const members: string[] = []
  for (let i = 0; i < count; i++) members.push(reader.string())
  return members
}
