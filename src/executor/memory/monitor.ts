import type { Session } from './command.js'

/**
 * A MONITOR line as Redis writes it: `<seconds>.<micros> [<db> <address>] "arg" "arg"…`, each
 * argument quoted the way Redis's `sdscatrepr` quotes (printable bytes as they are, `\\` and `"`
 * escaped, `\n \r \t \a \b` by name, other bytes as `\xHH`). Scripts show `lua` as the address.
 */
export function formatMonitorLine(nowMs: number, session: Session, argv: readonly string[]): string {
  const micros = Math.floor(nowMs * 1000) % 1_000_000
  const seconds = Math.floor(nowMs / 1000)
  let line = `${seconds}.${String(micros).padStart(6, '0')} [${session.db} ${session.script ? 'lua' : session.address}]`
  for (const arg of argv) line += ' ' + quoteRepr(arg)
  return line
}

/** Redis's `sdscatrepr` over a binary string. */
export function quoteRepr(binary: string): string {
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
