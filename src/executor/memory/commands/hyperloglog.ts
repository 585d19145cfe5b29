import type { CommandTable } from '../command.js'

/** hyperloglog commands. */
export const hyperLogLogCommands: CommandTable = {}
