import type { CommandTable } from '../command.js'

/** json commands. */
export const jsonCommands: CommandTable = {}
