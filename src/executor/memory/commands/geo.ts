import type { CommandTable } from '../command.js'

/** geo commands. */
export const geoCommands: CommandTable = {}
