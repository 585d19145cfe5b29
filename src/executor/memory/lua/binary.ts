/**
 * Loads `lua-redis-wasm`'s WebAssembly binary and adds a clock check to its instruction hook.
 *
 * The package limits scripts with "fuel": a Lua count hook runs every 1000 VM instructions,
 * subtracts 1000 from a 64-bit counter in linear memory and raises `Script killed by fuel limit`
 * once it reaches zero. An instruction count is a poor stand-in for time (the same budget lasts
 * 17 times longer in a string-building loop than in an empty one), and the hook never returns to
 * JavaScript, so a time limit cannot be checked from outside while a script spins.
 *
 * This module makes the hook call JavaScript: it finds the hook's function body (the one function
 * that references the "Script killed by fuel limit" string) and inserts, before its first
 * instruction, a call to an import the binary already has, `clock_time_get`, with a clock id no
 * real call uses ({@link TICK_CLOCK_ID}). The host answers that call by checking its deadline and,
 * when the script ran out of time, zeroing the counter: the unchanged rest of the hook then raises
 * the package's error as usual, inside Lua, so the VM stays consistent. Function indexes do not
 * move (no import is added); only the one body and the code section's sizes change.
 *
 * Every step checks what it finds; when the binary does not have the expected shape, the
 * unpatched binary is used and {@link LuaBinary.fuelAddress} is null (the engine then falls back
 * to an instruction budget).
 *
 */
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { LuaWasmModule } from 'lua-redis-wasm'

/** The clock id of the inserted call (WASI clocks are 0..3). */
export const TICK_CLOCK_ID = 99

/** The compiled binary and where its instruction counter lives. */
export interface LuaBinary {
  readonly module: WebAssembly.Module
  /** Address of the hook's 64-bit counter in linear memory, or null when the binary was not patched. */
  readonly fuelAddress: number | null
}

let loaded: LuaBinary | undefined

/** The binary, compiled once per process (synchronously: Node allows it for any size). */
export function luaBinary(): LuaBinary {
  if (loaded !== undefined) return loaded
  const bytes = readFileSync(fileURLToPath(LuaWasmModule.defaultWasmPath()))
  const patched = patchFuelHook(bytes)
  loaded = patched ?? { module: new WebAssembly.Module(bytes), fuelAddress: null }
  return loaded
}

const FUEL_MESSAGE = 'Script killed by fuel limit\0'

/** Section ids of the WebAssembly binary format. */
const IMPORT_SECTION = 2
const CODE_SECTION = 10
const DATA_SECTION = 11

/** The patched binary, or null when its shape is not the expected one. */
export function patchFuelHook(bytes: Uint8Array): LuaBinary | null {
  try {
    const sections = readSections(bytes)
    const imports = sections.get(IMPORT_SECTION)
    const code = sections.get(CODE_SECTION)
    const data = sections.get(DATA_SECTION)
    if (imports === undefined || code === undefined || data === undefined) return null
    const clock = importedFunctionIndex(bytes, imports, 'wasi_snapshot_preview1', 'clock_time_get')
    const message = dataAddress(bytes, data, FUEL_MESSAGE)
    if (clock === null || message === null) return null
    const hook = findBodyReferencing(bytes, code, message)
    if (hook === null) return null
    const fuelAddress = counterAddress(bytes, hook)
    if (fuelAddress === null) return null
    // i32.const 99; i64.const 0; i32.const 0; call clock_time_get; drop
    const tick = [0x41, ...signedLeb(TICK_CLOCK_ID), 0x42, 0x00, 0x41, 0x00, 0x10, ...unsignedLeb(clock), 0x1a]
    const body = [...bytes.subarray(hook.bodyStart, hook.codeStart), ...tick, ...bytes.subarray(hook.codeStart, hook.end)]
    const newCode = [
      ...bytes.subarray(code.start, hook.sizeStart),
      ...unsignedLeb(body.length),
      ...body,
      ...bytes.subarray(hook.end, code.end),
    ]
    const patched = new Uint8Array([
      ...bytes.subarray(0, code.idStart + 1),
      ...unsignedLeb(newCode.length),
      ...newCode,
      ...bytes.subarray(code.end),
    ])
    return { module: new WebAssembly.Module(patched), fuelAddress }
  } catch {
    return null
  }
}

interface Section {
  /** Offset of the section id byte. */
  readonly idStart: number
  /** First byte of the section's contents. */
  readonly start: number
  readonly end: number
}

/** A cursor over LEB128 numbers and bytes. */
class Cursor {
  constructor(
    private readonly bytes: Uint8Array,
    public pos: number,
  ) {}

  byte(): number {
    if (this.pos >= this.bytes.length) throw new RangeError('end of binary')
    return this.bytes[this.pos++]
  }

  unsigned(): number {
    let result = 0
    let scale = 1
    for (;;) {
      const byte = this.byte()
      result += (byte & 0x7f) * scale
      if ((byte & 0x80) === 0) return result
      scale *= 128
    }
  }

  signed(): number {
    let result = 0
    let scale = 1
    for (;;) {
      const byte = this.byte()
      result += (byte & 0x7f) * scale
      scale *= 128
      if ((byte & 0x80) === 0) return byte & 0x40 ? result - scale : result
    }
  }

  name(): string {
    const length = this.unsigned()
    const text = Buffer.from(this.bytes.subarray(this.pos, this.pos + length)).toString('utf8')
    this.pos += length
    return text
  }
}

function readSections(bytes: Uint8Array): Map<number, Section> {
  const sections = new Map<number, Section>()
  const cursor = new Cursor(bytes, 8)
  while (cursor.pos < bytes.length) {
    const idStart = cursor.pos
    const id = cursor.byte()
    const size = cursor.unsigned()
    sections.set(id, { idStart, start: cursor.pos, end: cursor.pos + size })
    cursor.pos += size
  }
  return sections
}

/** The function index of an imported function (imported functions come first in the index space). */
function importedFunctionIndex(bytes: Uint8Array, section: Section, module: string, field: string): number | null {
  const cursor = new Cursor(bytes, section.start)
  const count = cursor.unsigned()
  let functions = 0
  for (let i = 0; i < count; i++) {
    const importModule = cursor.name()
    const importField = cursor.name()
    const kind = cursor.byte()
    if (kind === 0) {
      cursor.unsigned()
      if (importModule === module && importField === field) return functions
      functions++
    } else if (kind === 1) {
      cursor.byte()
      limits(cursor)
    } else if (kind === 2) {
      limits(cursor)
    } else if (kind === 3) {
      cursor.byte()
      cursor.byte()
    } else return null
  }
  return null
}

function limits(cursor: Cursor): void {
  const flags = cursor.byte()
  cursor.unsigned()
  if (flags & 1) cursor.unsigned()
}

/** The memory address of `text` in an active data segment with a constant offset. */
function dataAddress(bytes: Uint8Array, section: Section, text: string): number | null {
  const needle = Buffer.from(text, 'latin1')
  const cursor = new Cursor(bytes, section.start)
  const count = cursor.unsigned()
  for (let i = 0; i < count; i++) {
    const flags = cursor.unsigned()
    let base = 0
    if (flags === 0) {
      if (cursor.byte() !== 0x41) return null // i32.const
      base = cursor.signed()
      if (cursor.byte() !== 0x0b) return null // end
    } else if (flags !== 1) return null
    const length = cursor.unsigned()
    const at = Buffer.from(bytes.buffer, bytes.byteOffset + cursor.pos, length).indexOf(needle)
    if (at >= 0 && flags === 0) return base + at
    cursor.pos += length
  }
  return null
}

interface Body {
  /** Offset of the body's size. */
  readonly sizeStart: number
  /** First byte of the body (its locals). */
  readonly bodyStart: number
  /** First instruction, after the locals. */
  readonly codeStart: number
  readonly end: number
}

/** The one function body containing `i32.const address`; null when none or several do. */
function findBodyReferencing(bytes: Uint8Array, section: Section, address: number): Body | null {
  const pattern = Buffer.from([0x41, ...signedLeb(address)])
  const cursor = new Cursor(bytes, section.start)
  const count = cursor.unsigned()
  let found: Body | null = null
  for (let i = 0; i < count; i++) {
    const sizeStart = cursor.pos
    const size = cursor.unsigned()
    const bodyStart = cursor.pos
    const end = bodyStart + size
    if (Buffer.from(bytes.buffer, bytes.byteOffset + bodyStart, size).indexOf(pattern) >= 0) {
      if (found !== null) return null
      const locals = new Cursor(bytes, bodyStart)
      const groups = locals.unsigned()
      for (let g = 0; g < groups; g++) {
        locals.unsigned()
        locals.byte()
      }
      found = { sizeStart, bodyStart, codeStart: locals.pos, end }
    }
    cursor.pos = end
  }
  return found
}

/**
 * The counter's address from the hook's first instructions: `i32.const A` then `i64.load` with
 * offset O (the counter is at A + O). Anything else means an unexpected build.
 */
function counterAddress(bytes: Uint8Array, body: Body): number | null {
  const cursor = new Cursor(bytes, body.codeStart)
  // The compiler may push the address twice (once for the load, once for the store).
  let address: number | null = null
  while (cursor.pos < body.end) {
    const op = cursor.byte()
    if (op === 0x41) {
      address = cursor.signed()
      continue
    }
    if (op === 0x29 && address !== null) {
      cursor.unsigned() // alignment
      return address + cursor.unsigned()
    }
    return null
  }
  return null
}

function unsignedLeb(value: number): number[] {
  const out: number[] = []
  do {
    let byte = value & 0x7f
    value = Math.floor(value / 128)
    if (value !== 0) byte |= 0x80
    out.push(byte)
  } while (value !== 0)
  return out
}

function signedLeb(value: number): number[] {
  const out: number[] = []
  for (;;) {
    const byte = value & 0x7f
    value >>= 7
    if ((value === 0 && (byte & 0x40) === 0) || (value === -1 && (byte & 0x40) !== 0)) {
      out.push(byte)
      return out
    }
    out.push(byte | 0x80)
  }
}
