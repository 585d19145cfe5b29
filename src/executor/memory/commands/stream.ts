import type { CommandTable } from '../command.js'

/** stream commands. */
export const streamCommands: CommandTable = {}
