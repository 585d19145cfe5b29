import type { CommandTable } from '../../command.js'
import { jsonArrayCommands } from './array-commands.js'
import { jsonReadCommands } from './read-commands.js'
import { jsonWriteCommands } from './write-commands.js'

/**
 * The JSON family (RedisJSON 2.x, type `ReJSON-RL`). Paths, evaluation, parsing and
 * serialization live in `lib/json/`; the document type in `types/json.ts`.
 */
export const jsonCommands: CommandTable = {
  ...jsonReadCommands,
  ...jsonWriteCommands,
  ...jsonArrayCommands,
}
