import type { CommandTable } from '../command.js'

/** scripting commands. */
export const scriptingCommands: CommandTable = {}
