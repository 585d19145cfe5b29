import type { Handler, CommandTable } from '../command.js'
import { stringCommands } from './strings/index.js'
import { bitmapCommands } from './bitmap/index.js'
import { hashCommands } from './hash/index.js'
import { listCommands } from './list/index.js'
import { setCommands } from './set/index.js'
import { sortedSetCommands } from './zset/index.js'
import { geoCommands } from './geo/index.js'
import { hyperLogLogCommands } from './hyperloglog/index.js'
import { streamCommands } from './stream/index.js'
import { genericCommands } from './generic/index.js'
import { serverCommands } from './server/index.js'
import { connectionCommands } from './connection/index.js'
import { scriptingCommands } from './scripting/index.js'
import { jsonCommands } from './json/index.js'
import { pubSubCommands } from './pubsub/index.js'
import { dumpCommands } from './dump/index.js'
import { aclCommands } from './acl/index.js'
import { blockingCommands } from './blocking/index.js'
import { transactionCommands } from './connection/transaction.js'

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
  blockingCommands,
  transactionCommands,
]

export const handlers: ReadonlyMap<string, Handler> = new Map(families.flatMap((family) => Object.entries(family)))
