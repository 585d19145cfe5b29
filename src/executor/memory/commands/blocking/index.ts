import type { CommandTable } from '../../command.js'
import { blockingListCommands } from './lists.js'
import { blockingZSetCommands } from './zsets.js'
import { waitCommands } from './wait.js'

/** The blocking commands (see `../../blocking.ts`); XREAD and XREADGROUP BLOCK live with the streams. */
export const blockingCommands: CommandTable = { ...blockingListCommands, ...blockingZSetCommands, ...waitCommands }
