import type { CommandTable } from '../../command.js'
import { addTrimCommands } from './add-trim.js'
import { claimCommands } from './claim.js'
import { deleteCommands } from './delete.js'
import { groupCommands } from './groups.js'
import { infoCommands } from './info.js'
import { readCommands } from './read.js'

/**
 * Stream commands (Redis 7.0 `t_stream.c`), plus XDELEX and XACKDEL from Redis 8.2. The data
 * structure is `types/stream.ts`; the commands are split by concern under `stream/`.
 */
export const streamCommands: CommandTable = {
  ...addTrimCommands,
  ...readCommands,
  ...deleteCommands,
  ...groupCommands,
  ...claimCommands,
  ...infoCommands,
}
