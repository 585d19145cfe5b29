import type { CommandTable } from '../command.js'

/** zset commands. */
export const sortedSetCommands: CommandTable = {}
