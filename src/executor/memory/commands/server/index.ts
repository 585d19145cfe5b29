/**
 * The server family: keyspace-wide commands, INFO, CONFIG, COMMAND, persistence stand-ins and
 * server introspection. Each concern is a file under `server/`; this module assembles them.
 */
import type { CommandTable } from '../../command.js'
import { commandIntrospection } from './command-introspection.js'
import { configCommands } from './config.js'
import { databaseCommands } from './databases.js'
import { info } from './info.js'
import { introspectionCommands } from './introspection.js'
import { persistenceCommands } from './persistence.js'

/** Server commands. */
export const serverCommands: CommandTable = {
  ...databaseCommands,
  ...persistenceCommands,
  ...introspectionCommands,
  ...configCommands,
  ...commandIntrospection,
  info,
}
