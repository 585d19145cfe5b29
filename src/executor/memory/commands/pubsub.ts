import type { CommandTable } from '../command.js'

/** pubsub commands. */
export const pubSubCommands: CommandTable = {}
