/**
 * Loads `lua-redis-wasm`'s WebAssembly binary, adds a clock check to its instruction hook and
 * lifts the argument limit of coroutine resumes.
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
 * A second patch ({@link addResumeLimit}) lets `coroutine.resume` move more than Lua's 8,000
 * stack slots to a coroutine, which the runtime's `redis.call` needs (it is a coroutine).
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
const FUNCTION_SECTION = 3
const CODE_SECTION = 10
const DATA_SECTION = 11

/** The patched binary (both patches), or null when its shape is not the expected one. */
export function patchFuelHook(bytes: Uint8Array): LuaBinary | null {
  try {
    const sections = readSections(bytes)
    const imports = sections.get(IMPORT_SECTION)
    const functions = sections.get(FUNCTION_SECTION)
    const code = sections.get(CODE_SECTION)
    const data = sections.get(DATA_SECTION)
    if (imports === undefined || functions === undefined || code === undefined || data === undefined) return null
    const clock = importedFunctionIndex(bytes, imports, 'wasi_snapshot_preview1', 'clock_time_get')
    const message = dataAddress(bytes, data, FUEL_MESSAGE)
    if (clock === null || message === null) return null
    const hook = findBodyReferencing(bytes, code, message)
    if (hook === null) return null
    const fuelAddress = counterAddress(bytes, hook)
    if (fuelAddress === null) return null
    // i32.const 99; i64.const 0; i32.const 0; call clock_time_get; drop
    const tick = [0x41, ...signedLeb(TICK_CLOCK_ID), 0x42, 0x00, 0x41, 0x00, 0x10, ...unsignedLeb(clock), 0x1a]
    const patch: CodePatch = { edits: new Map(), appended: [] }
    patch.edits.set(hook.bodyStart, [...bytes.subarray(hook.bodyStart, hook.codeStart), ...tick, ...bytes.subarray(hook.codeStart, hook.end)])
    const functionCount = importedFunctionCount(bytes, imports)
    if (functionCount !== null) addResumeLimit(bytes, { functions, code, data }, functionCount, patch)
    return { module: new WebAssembly.Module(rebuild(bytes, functions, code, patch)), fuelAddress }
  } catch {
    return null
  }
}

/** Changes to the code: new bodies by the offset of the old one, and functions added at the end. */
interface CodePatch {
  readonly edits: Map<number, number[]>
  readonly appended: { readonly type: number; readonly body: number[] }[]
}

/** Lua 5.1's LUAI_MAXCSTACK, as `lua_checkstack` compares with it (`i32.const 8000`). */
const MAX_C_STACK = [0x41, ...signedLeb(8000)]

/**
 * The stack limit of the resume-only copy of `lua_checkstack`: twice Lua's, more than any call
 * a script can build (`unpack` gives at most 7,999 values, and a call has at most ~250 more).
 */
const RESUME_STACK_LIMIT = 16_000

const RESUME_MESSAGE = 'too many arguments to resume\0'

/**
 * Lifts the 8,000-slot limit on the arguments `coroutine.resume` / `coroutine.wrap` move to a
 * coroutine, for these two only. The runtime's `redis.call` is a `coroutine.wrap` function (see
 * runtime-api.lua), so without this a script's `redis.call('lpush', 'l', unpack(t))` with 7,999
 * values fails with "too many arguments to resume", where Redis's C `redis.call` takes them.
 *
 * `auxresume` (the one body that references the message) calls `lua_checkstack` (the body that
 * compares with 8000) to grow the coroutine's stack; those calls are redirected to a copy of
 * `lua_checkstack`, appended as a new function (indexes do not move), whose constant is
 * {@link RESUME_STACK_LIMIT}. `unpack`, `string.byte` and the C libraries keep Lua's limit.
 * Any unexpected shape leaves the binary as it is on this point.
 */
function addResumeLimit(bytes: Uint8Array, sections: { functions: Section; code: Section; data: Section }, imported: number, patch: CodePatch): void {
  const message = dataAddress(bytes, sections.data, RESUME_MESSAGE)
  if (message === null) return
  const resume = findBodyReferencing(bytes, sections.code, message)
  const check = findBodyReferencing(bytes, sections.code, 8000, MAX_C_STACK)
  if (resume === null || check === null || patch.edits.has(resume.bodyStart)) return
  const checkIndex = imported + bodyOrdinal(bytes, sections.code, check.bodyStart)
  const copyIndex = imported + bodyCount(bytes, sections.code) + patch.appended.length
  const body = [...bytes.subarray(check.bodyStart, check.end)]
  const limit = [0x41, ...signedLeb(RESUME_STACK_LIMIT)]
  let replaced = 0
  for (let at = indexOf(body, MAX_C_STACK, 0); at >= 0; at = indexOf(body, MAX_C_STACK, at + limit.length)) {
    body.splice(at, MAX_C_STACK.length, ...limit)
    replaced++
  }
  // local.get x; local.get y; call lua_checkstack; i32.eqz — the calls of auxresume.
  const call = [0x10, ...unsignedLeb(checkIndex), 0x45]
  const resumeBody = [...bytes.subarray(resume.bodyStart, resume.end)]
  const calls: number[] = []
  for (let at = indexOf(resumeBody, call, 0); at >= 0; at = indexOf(resumeBody, call, at + 1)) {
    if (resumeBody[at - 2] === 0x20 && resumeBody[at - 4] === 0x20) calls.push(at)
  }
  if (replaced !== 2 || calls.length === 0) return
  const redirected = [0x10, ...unsignedLeb(copyIndex), 0x45]
  for (const at of calls.reverse()) resumeBody.splice(at, call.length, ...redirected)
  patch.edits.set(resume.bodyStart, resumeBody)
  patch.appended.push({ type: functionType(bytes, sections.functions, checkIndex - imported), body })
}

/** The binary with `patch` applied to its function and code sections. */
function rebuild(bytes: Uint8Array, functions: Section, code: Section, patch: CodePatch): Uint8Array<ArrayBuffer> {
  const types = new Cursor(bytes, functions.start)
  const typeCount = types.unsigned()
  const functionSection = [
    ...unsignedLeb(typeCount + patch.appended.length),
    ...bytes.subarray(types.pos, functions.end),
    ...patch.appended.flatMap((fn) => unsignedLeb(fn.type)),
  ]
  const cursor = new Cursor(bytes, code.start)
  const count = cursor.unsigned()
  const codeSection: number[] = [...unsignedLeb(count + patch.appended.length)]
  for (let i = 0; i < count; i++) {
    const size = cursor.unsigned()
    const body = patch.edits.get(cursor.pos) ?? bytes.subarray(cursor.pos, cursor.pos + size)
    codeSection.push(...unsignedLeb(body.length), ...body)
    cursor.pos += size
  }
  for (const fn of patch.appended) codeSection.push(...unsignedLeb(fn.body.length), ...fn.body)
  // The function section precedes the code section; everything between them is copied as is.
  return new Uint8Array([
    ...bytes.subarray(0, functions.idStart),
    FUNCTION_SECTION,
    ...unsignedLeb(functionSection.length),
    ...functionSection,
    ...bytes.subarray(functions.end, code.idStart),
    CODE_SECTION,
    ...unsignedLeb(codeSection.length),
    ...codeSection,
    ...bytes.subarray(code.end),
  ])
}

/** How many functions the binary imports (their indexes come before the defined ones). */
function importedFunctionCount(bytes: Uint8Array, section: Section): number | null {
  return importedFunctionIndex(bytes, section, '\0', '\0', true)
}

/** The ordinal of the body starting at `bodyStart` in the code section. */
function bodyOrdinal(bytes: Uint8Array, code: Section, bodyStart: number): number {
  const cursor = new Cursor(bytes, code.start)
  const count = cursor.unsigned()
  for (let i = 0; i < count; i++) {
    const size = cursor.unsigned()
    if (cursor.pos === bodyStart) return i
    cursor.pos += size
  }
  throw new RangeError('body not found')
}

function bodyCount(bytes: Uint8Array, code: Section): number {
  return new Cursor(bytes, code.start).unsigned()
}

/** The type index of defined function `ordinal` (function section). */
function functionType(bytes: Uint8Array, functions: Section, ordinal: number): number {
  const cursor = new Cursor(bytes, functions.start)
  const count = cursor.unsigned()
  if (ordinal >= count) throw new RangeError('function not found')
  for (let i = 0; i < ordinal; i++) cursor.unsigned()
  return cursor.unsigned()
}

function indexOf(haystack: readonly number[], needle: readonly number[], from: number): number {
  outer: for (let i = from; i <= haystack.length - needle.length; i++) {
    for (let j = 0; j < needle.length; j++) if (haystack[i + j] !== needle[j]) continue outer
    return i
  }
  return -1
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

/**
 * The function index of an imported function (imported functions come first in the index space);
 * with `countAll`, the number of imported functions when none matches.
 */
function importedFunctionIndex(bytes: Uint8Array, section: Section, module: string, field: string, countAll = false): number | null {
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
  return countAll ? functions : null
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

/** The one function body containing `i32.const address` (or `code`); null when none or several do. */
function findBodyReferencing(bytes: Uint8Array, section: Section, address: number, code?: readonly number[]): Body | null {
  const pattern = Buffer.from(code ?? [0x41, ...signedLeb(address)])
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
