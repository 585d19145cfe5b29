/**
 * The MONITOR feed as Redis 7.0 writes it (`replicationFeedMonitors`, `call()` in server.c).
 *
 * - A line is `<seconds>.<micros> [<db> <address>] "arg" "arg"…`: wall-clock time with
 *   microseconds, the database the client is on *after* the command ran (so `SELECT 5` shows
 *   `[5 …]`), `lua` as the address of commands a script runs, and every argument as the client
 *   sent it (the command name keeps its case), quoted by `sdscatrepr`.
 * - When: after the command ran, whatever its reply (runtime errors included); commands refused
 *   before running (unknown command, wrong arity, queued in MULTI) never show. Commands flagged
 *   `admin` (CONFIG, CLIENT LIST, DEBUG, ACL SETUSER, MONITOR …) never show. Commands flagged
 *   `skip_monitor` (EVAL, EVALSHA, FCALL and their `_RO` forms) show *before* they run, so the
 *   commands their script calls come after them, even when the script then fails.
 * - MULTI/EXEC: `MULTI` when the block opens, each command as it runs at EXEC, then `EXEC`; a
 *   block refused with EXECABORT shows `MULTI` and `EXEC` only.
 * - Redaction: AUTH's arguments, HELLO's `AUTH <user> <pass>`, MIGRATE's `AUTH <pass>` and
 *   `AUTH2 <user> <pass>` show as `(redacted)` — but only once the command's own parser got that
 *   far (Redis redacts while parsing: `AUTH a b c` and `HELLO 9 AUTH u p` fail first and show as
 *   sent).
 *
 */
import type { CommandInfo } from '../../commands/lookup.js'
import type { Session } from './command.js'
import { readInteger } from './lib/numbers.js'

/** When a command appears in the feed: after it ran, before it runs, or never. */
export type MonitorTiming = 'after' | 'before' | 'never'

/** Where Redis feeds `info`'s command to monitors (see the module notes). */
export function monitorTiming(info: CommandInfo): MonitorTiming {
  if (info.flags.has('admin')) return 'never'
  return info.flags.has('skip_monitor') ? 'before' : 'after'
}

const monotonic = globalThis.performance
/** Wall-clock ms at `monotonic.now() === 0`; re-anchored when the system clock moves. */
let anchor = monotonic.timeOrigin

/**
 * Microseconds since the epoch, as `gettimeofday` gives Redis. `Date.now()` has milliseconds
 * only, so the sub-millisecond part comes from the monotonic clock; when the two drift apart by
 * more than a millisecond (the system clock was set), the monotonic clock is re-anchored.
 */
export function monitorMicros(): number {
  const elapsed = monotonic.now()
  let now = anchor + elapsed
  const wall = Date.now()
  if (now < wall - 1 || now >= wall + 2) {
    anchor = wall - elapsed
    now = wall
  }
  return Math.floor(now * 1000)
}

/**
 * A MONITOR line for `argv` run by `session` at `micros` (microseconds since the epoch):
 * `1339518083.107412 [0 127.0.0.1:60866] "keys" "*"`. Arguments Redis redacts are redacted.
 */
export function formatMonitorLine(session: Session, argv: readonly string[], micros = monitorMicros()): string {
  const seconds = Math.floor(micros / 1_000_000)
  const fraction = String(micros - seconds * 1_000_000).padStart(6, '0')
  let line = `${seconds}.${fraction} [${session.db} ${session.script ? 'lua' : session.address}]`
  const shown = redactForMonitor(argv)
  for (const arg of shown) line += ' ' + quoteRepr(arg)
  return line
}

const REDACTED = '(redacted)'

/**
 * `argv` with the arguments Redis redacts replaced by `(redacted)` (7.0's
 * `redactClientCommandArgument` callers that MONITOR can show: AUTH, HELLO, MIGRATE). Returns
 * `argv` itself when nothing is redacted.
 */
export function redactForMonitor(argv: readonly string[]): readonly string[] {
  if (argv.length < 2) return argv
  let positions: readonly number[]
  switch (argv[0].toLowerCase()) {
    case 'auth':
      positions = authSecrets(argv)
      break
    case 'hello':
      positions = helloSecrets(argv)
      break
    case 'migrate':
      positions = migrateSecrets(argv)
      break
    default:
      return argv
  }
  if (positions.length === 0) return argv
  const out = argv.slice()
  for (const position of positions) out[position] = REDACTED
  return out
}

/** AUTH [username] password: both redacted, unless there are too many arguments (syntax error first). */
function authSecrets(argv: readonly string[]): number[] {
  if (argv.length > 3) return []
  return argv.length === 3 ? [1, 2] : [1]
}

/**
 * HELLO [protover [AUTH username password] [SETNAME name]]: the version is checked first, then
 * options left to right; AUTH's two values are redacted as the parser passes them, and a bad
 * option stops it.
 */
function helloSecrets(argv: readonly string[]): number[] {
  const version = readInteger(argv[1])
  if (version === null || version < 2 || version > 3) return []
  const positions: number[] = []
  for (let j = 2; j < argv.length; j++) {
    const more = argv.length - 1 - j
    const option = argv[j].toLowerCase()
    if (option === 'auth' && more >= 2) {
      positions.push(j + 1, j + 2)
      j += 2
    } else if (option === 'setname' && more >= 1) {
      j++
    } else break
  }
  return positions
}

/**
 * MIGRATE host port key|"" db timeout [COPY] [REPLACE] [AUTH password | AUTH2 username password]
 * [KEYS key ...]: options from the sixth argument on; KEYS ends them, an unknown option stops
 * the parser.
 */
function migrateSecrets(argv: readonly string[]): number[] {
  const positions: number[] = []
  for (let j = 6; j < argv.length; j++) {
    const more = argv.length - 1 - j
    const option = argv[j].toLowerCase()
    if (option === 'copy' || option === 'replace') continue
    if (option === 'auth' && more >= 1) {
      positions.push(++j)
    } else if (option === 'auth2' && more >= 2) {
      positions.push(j + 1, j + 2)
      j += 2
    } else break
  }
  return positions
}

/** Bytes `sdscatrepr` writes differently: outside 0x20..0x7e (C `isprint`), `"` and `\\`. */
const NEEDS_ESCAPE = /[^\x20\x21\x23-\x5b\x5d-\x7e]/

/** Redis's `sdscatrepr` over a binary string. */
export function quoteRepr(binary: string): string {
  if (!NEEDS_ESCAPE.test(binary)) return '"' + binary + '"'
  let out = '"'
  for (let i = 0; i < binary.length; i++) {
    const code = binary.charCodeAt(i)
    switch (code) {
      case 0x5c: out += '\\\\'; break
      case 0x22: out += '\\"'; break
      case 0x0a: out += '\\n'; break
      case 0x0d: out += '\\r'; break
      case 0x09: out += '\\t'; break
      case 0x07: out += '\\a'; break
      case 0x08: out += '\\b'; break
      default:
        // isprint() in the C locale: 0x20..0x7e
        out += code >= 0x20 && code <= 0x7e ? binary[i] : '\\x' + code.toString(16).padStart(2, '0')
    }
  }
  return out + '"'
}
