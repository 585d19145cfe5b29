/**
 * The server family: keyspace-wide commands, INFO, CONFIG, COMMAND, persistence stand-ins and
 * server introspection. Each concern is a file under `server/`; this module assembles them.
 */
import type { CommandTable } from '../command.js'
import { commandIntrospection } from './server/command-introspection.js'
import { configCommands } from './server/config.js'
import { databaseCommands } from './server/databases.js'
import { info } from './server/info.js'
import { introspectionCommands } from './server/introspection.js'
import { persistenceCommands } from './server/persistence.js'

/** Server commands. */
export const serverCommands: CommandTable = {
  ...databaseCommands,
  ...persistenceCommands,
  ...introspectionCommands,
  ...configCommands,
  ...commandIntrospection,
  info,
}
