import type { CommandTable } from '../../command.js'
import { expireCommands } from './expire.js'
import { keyCommands } from './keys.js'
import { objectCommands } from './object.js'
import { scanCommands } from './scan.js'
import { sortCommands } from './sort.js'

/**
 * Generic key commands (Redis's "generic" group), one file per theme under `generic/`:
 * - `keys.ts`: DEL UNLINK EXISTS TOUCH TYPE COPY RENAME RENAMENX
 * - `expire.ts`: EXPIRE PEXPIRE EXPIREAT PEXPIREAT TTL PTTL EXPIRETIME PEXPIRETIME PERSIST
 * - `scan.ts`: KEYS SCAN RANDOMKEY
 * - `object.ts`: OBJECT ENCODING FREQ IDLETIME REFCOUNT HELP
 * - `sort.ts`: SORT SORT_RO
 */
export const genericCommands: CommandTable = {
  ...keyCommands,
  ...expireCommands,
  ...scanCommands,
  ...objectCommands,
  ...sortCommands,
}
