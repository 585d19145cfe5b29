import type { Handler, CommandTable } from '../command.js'
import { stringCommands } from './strings.js'
import { bitmapCommands } from './bitmap.js'
import { hashCommands } from './hash.js'
import { listCommands } from './list.js'
import { setCommands } from './set.js'
import { sortedSetCommands } from './zset.js'
import { geoCommands } from './geo.js'
import { hyperLogLogCommands } from './hyperloglog.js'
import { streamCommands } from './stream.js'
import { genericCommands } from './generic.js'
import { serverCommands } from './server.js'
import { connectionCommands } from './connection.js'
import { scriptingCommands } from './scripting.js'
import { jsonCommands } from './json.js'
import { pubSubCommands } from './pubsub.js'
import { dumpCommands } from './dump.js'
import { aclCommands } from './acl.js'

/**
 * Every family's handlers, by full lowercase name. A family is one file exporting a
 * {@link CommandTable}; adding a family is adding it to this list.
 */
const families: readonly CommandTable[] = [
  stringCommands,
  bitmapCommands,
  hashCommands,
  listCommands,
  setCommands,
  sortedSetCommands,
  geoCommands,
  hyperLogLogCommands,
  streamCommands,
  genericCommands,
  serverCommands,
  connectionCommands,
  scriptingCommands,
  jsonCommands,
  pubSubCommands,
  dumpCommands,
  aclCommands,
]

export const handlers: ReadonlyMap<string, Handler> = new Map(families.flatMap((family) => Object.entries(family)))
