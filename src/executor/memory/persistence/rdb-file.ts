/**
 * RDB files, Redis 7.0's format (RDB version 10, `rdb.c`): the magic `REDIS0010`, auxiliary
 * fields, function libraries, then per non-empty database SELECTDB and RESIZEDB and its keys
 * (an optional EXPIRETIME_MS, the value's type byte, the key, the value), then EOF and the CRC-64
 * of every byte before the checksum. Values use the same codecs as DUMP (`../rdb/`), with the
 * strings of the file LZF-compressed as `rdbcompression yes` does.
 *
 * {@link RdbFileWriter} produces the file piece by piece (the snapshot writer calls it between
 * event-loop turns); {@link loadRdb} reads a whole file Redis 7.0 to 7.4 wrote.
 */
import { constants as bufferConstants } from 'node:buffer'
import { SERVER_VERSION } from '../../../commands/table.js'
import { typeOf, type Database, type Value } from '../keyspace.js'
import type { LoadContext } from '../rdb/codec.js'
import { RDB_VERSION_READABLE } from '../rdb/constants.js'
import { Crc64 } from '../rdb/crc64.js'
import { encodeValue, valueDecoder } from '../rdb/payload.js'
import { CorruptPayload, RdbReader } from '../rdb/reader.js'
import { RdbWriter } from '../rdb/writer.js'
import { DEFAULT_HASH_LIMITS, HashValue, trackVolatileHash } from '../types/hash.js'
import { DEFAULT_ZSET_LIMITS } from '../types/zset.js'
import { setDeadline } from '../commands/generic/expire.js'

/** The version this writer puts in the header: what Redis 7.0 writes and reads. */
export const RDB_FILE_VERSION = 10

/** Opcodes between entries (`RDB_OPCODE_*` in `rdb.h`). */
export const RdbOpcode = {
  /** Redis 7.4: cluster slot sizes (slot, keys, expires), a hint. */
  SLOT_INFO: 244,
  FUNCTION2: 245,
  /** Redis 7.0 release candidates' function format, which 7.0 refuses. */
  FUNCTION_PRE_GA: 246,
  MODULE_AUX: 247,
  IDLE: 248,
  FREQ: 249,
  AUX: 250,
  RESIZEDB: 251,
  EXPIRETIME_MS: 252,
  EXPIRETIME: 253,
  SELECTDB: 254,
  EOF: 255,
} as const

const MAGIC = 'REDIS'
const HEADER_SIZE = 9
const CHECKSUM_SIZE = 8
/** The first version whose files end with a checksum (Redis 2.6). */
const FIRST_CHECKSUM_VERSION = 5
/** `set-max-intset-entries` when the caller gives no configuration. */
const DEFAULT_MAX_INTSET_ENTRIES = 512

/** The auxiliary fields of a header; each has the default Redis 7.0 would write. */
export interface RdbAux {
  /** `redis-ver`: the version the engine answers as (default {@link SERVER_VERSION}). */
  readonly redisVersion?: string
  /** `ctime`: creation time in seconds since the epoch (default now). */
  readonly ctime?: number
  /** `used-mem`: bytes in use when the save started (default the heap in use). */
  readonly usedMemory?: number
  /** `aof-base`: 1 when the file is the base of an append-only file (default false). */
  readonly aofBase?: boolean
}

/** A value no RDB codec writes (a module type, such as JSON documents). */
export class RdbSaveError extends Error {
  override readonly name = 'RdbSaveError'
}

/**
 * Writes an RDB file as a sequence of Buffers, keeping the running CRC-64 so that
 * {@link RdbFileWriter.footer} can close the file. Call `header`, then `functionLibrary` for each
 * library, then per database `selectDb` and its `entry`s, then `footer`; concatenated in that
 * order, the pieces are the file.
 */
export class RdbFileWriter {
  private readonly checksum = new Crc64()

  /** `REDIS0010` and the auxiliary fields, in Redis 7.0's order. */
  header(aux: RdbAux = {}): Buffer {
    const writer = new RdbWriter(true)
    writer.raw(`${MAGIC}00${RDB_FILE_VERSION}`)
    const fields: [string, string][] = [
      ['redis-ver', aux.redisVersion ?? SERVER_VERSION],
      ['redis-bits', '64'],
      ['ctime', String(aux.ctime ?? Math.floor(Date.now() / 1000))],
      ['used-mem', String(aux.usedMemory ?? process.memoryUsage().heapUsed)],
      ['aof-base', aux.aofBase === true ? '1' : '0'],
    ]
    for (const [name, value] of fields) {
      writer.byte(RdbOpcode.AUX)
      writer.string(name)
      writer.string(value)
    }
    return this.emit(writer)
  }

  /** One function library by its whole code (RDB_OPCODE_FUNCTION2), between header and databases. */
  functionLibrary(code: string): Buffer {
    const writer = new RdbWriter(true)
    writer.byte(RdbOpcode.FUNCTION2)
    writer.string(code)
    return this.emit(writer)
  }

  /** SELECTDB `index` and RESIZEDB with its key and expire counts (hints for the reader). */
  selectDb(index: number, keys: number, expires: number): Buffer {
    const writer = new RdbWriter(true)
    writer.byte(RdbOpcode.SELECTDB)
    writer.length(index)
    writer.byte(RdbOpcode.RESIZEDB)
    writer.length(keys)
    writer.length(expires)
    return this.emit(writer)
  }

  /**
   * One key: its absolute deadline in milliseconds (EXPIRETIME_MS) when it has one, the value's
   * type byte, the key and the value. Throws {@link RdbSaveError} for a value no codec writes.
   */
  entry(key: string, value: Value, expireAt: number | undefined): Buffer {
    const body = new RdbWriter(true)
    const encoded = encodeValue(value, body)
    if (encoded === null) {
      throw new RdbSaveError(`values of type ${typeOf(value)} cannot be saved in an RDB file (key ${JSON.stringify(key)})`)
    }
    const writer = new RdbWriter(true)
    if (expireAt !== undefined) {
      writer.byte(RdbOpcode.EXPIRETIME_MS)
      writer.millis(BigInt(expireAt))
    }
    writer.byte(encoded.type)
    writer.string(key)
    writer.raw(body.finish())
    return this.emit(writer)
  }

  /** EOF and the CRC-64 of everything written, EOF included. */
  footer(): Buffer {
    const eof = String.fromCharCode(RdbOpcode.EOF)
    this.checksum.updateBinary(eof)
    return Buffer.from(eof + this.checksum.digest(), 'latin1')
  }

  private emit(writer: RdbWriter): Buffer {
    const bytes = writer.finish()
    this.checksum.updateBinary(bytes)
    return Buffer.from(bytes, 'latin1')
  }
}

/** A file that cannot be loaded: where the reader stopped and why. */
export class RdbLoadError extends Error {
  override readonly name = 'RdbLoadError'

  constructor(readonly offset: number, readonly reason: string) {
    super(`Bad RDB file at byte ${offset}: ${reason}`)
  }
}

/** Options of {@link loadRdb}. */
export interface RdbLoadOptions {
  /** Milliseconds since the epoch: keys whose deadline is before it are skipped. */
  readonly now: number
  /** Keep keys whose deadline has passed (an AOF base, which Redis loads whole). Default false. */
  readonly keepExpired?: boolean
  /** Encoding limits values are built under (CONFIG at load time); Redis's defaults otherwise. */
  readonly limits?: Omit<LoadContext, 'now'>
  /**
   * Called once the whole file has been read and checked, before any database changes (function
   * libraries load here); an error it throws aborts the load with `into` untouched.
   */
  readonly beforeApply?: (result: RdbLoadResult) => void
}

/** A function library of the file: its whole code and the offset of its opcode. */
export interface RdbFunction {
  readonly code: string
  readonly offset: number
}

/** What a load found besides the keys. */
export interface RdbLoadResult {
  /** The RDB version of the header. */
  readonly version: number
  /** Auxiliary fields by name (`redis-ver`, `ctime` …). */
  readonly aux: ReadonlyMap<string, string>
  /** Function libraries in file order (the caller loads them). */
  readonly functions: readonly RdbFunction[]
  /** Keys loaded, over all databases. */
  readonly keys: number
  /** Keys left out because their deadline had passed. */
  readonly expiredSkipped: number
}

/** One database's keys as read, applied to the target only when the whole file read well. */
interface StagedDatabase {
  readonly values: Map<string, Value>
  readonly deadlines: Map<string, bigint>
}

/**
 * Loads RDB file `bytes` into `into` (indexed by database number), replacing what they held.
 * The whole file is read and checked (checksum included) before any database changes: on bad
 * input it throws {@link RdbLoadError} naming the byte offset and the reason, and `into` is left
 * as it was.
 */
export function loadRdb(bytes: Buffer, into: Database[], options: RdbLoadOptions): RdbLoadResult {
  if (bytes.length > bufferConstants.MAX_STRING_LENGTH) {
    throw new RdbLoadError(0, `files over ${bufferConstants.MAX_STRING_LENGTH} bytes cannot be loaded by this engine (the file has ${bytes.length})`)
  }
  const data = bytes.toString('latin1')
  const version = readHeader(data)
  const load = new FileLoad(data, into.length, options)
  try {
    load.run()
  } catch (error) {
    if (!(error instanceof RdbLoadError) || version < FIRST_CHECKSUM_VERSION || trailingChecksumMatches(bytes)) throw error
    throw new RdbLoadError(error.offset, `${error.reason}; checksum mismatch: the last 8 bytes are not the CRC-64 of the rest either`)
  }
  if (version >= FIRST_CHECKSUM_VERSION) verifyChecksum(bytes, load.reader.pos)
  let keys = 0
  for (const staged of load.staged) keys += staged?.values.size ?? 0
  const result: RdbLoadResult = { version, aux: load.aux, functions: load.functions, keys, expiredSkipped: load.expiredSkipped }
  options.beforeApply?.(result)
  for (let index = 0; index < into.length; index++) apply(load.staged[index], into[index])
  return result
}

/** The version of a header, or an error for a file that is not an RDB file this engine reads. */
function readHeader(data: string): number {
  if (data.length < HEADER_SIZE) throw new RdbLoadError(data.length, `file truncated: ${data.length} bytes, shorter than the 9-byte header`)
  if (!data.startsWith(MAGIC)) throw new RdbLoadError(0, 'wrong signature: the file does not start with REDIS')
  const digits = data.slice(MAGIC.length, HEADER_SIZE)
  const version = /^[0-9]{4}$/.test(digits) ? Number(digits) : NaN
  if (!(version >= 1)) throw new RdbLoadError(MAGIC.length, `unreadable RDB format version ${JSON.stringify(digits)}`)
  if (version > RDB_VERSION_READABLE) {
    throw new RdbLoadError(MAGIC.length, `RDB format version ${version} is newer than this engine reads (up to ${RDB_VERSION_READABLE})`)
  }
  return version
}

/**
 * The 8 bytes after EOF (at `end`) hold the CRC-64 of everything before them; zero means the
 * writer had checksums off (`rdbchecksum no`), which Redis accepts unchecked.
 */
function verifyChecksum(bytes: Buffer, end: number): void {
  if (bytes.length - end < CHECKSUM_SIZE) {
    throw new RdbLoadError(bytes.length, `file truncated: it ends ${bytes.length - end} bytes into the 8-byte checksum after EOF`)
  }
  const stored = bytes.toString('latin1', end, end + CHECKSUM_SIZE)
  if (stored === '\0'.repeat(CHECKSUM_SIZE)) return
  const checksum = new Crc64()
  checksum.update(bytes, 0, end)
  const computed = checksum.digest()
  if (computed !== stored) {
    throw new RdbLoadError(end, `checksum mismatch: the file stores ${hex(stored)}, its bytes give ${hex(computed)} (the file is corrupt)`)
  }
}

/** True when the file's last 8 bytes are the checksum of the rest (an intact, complete file). */
function trailingChecksumMatches(bytes: Buffer): boolean {
  if (bytes.length < HEADER_SIZE + CHECKSUM_SIZE) return false
  const checksum = new Crc64()
  checksum.update(bytes, 0, bytes.length - CHECKSUM_SIZE)
  return checksum.digest() === bytes.toString('latin1', bytes.length - CHECKSUM_SIZE)
}

/** A little-endian 8-byte binary string as the 64-bit hex number Redis logs. */
function hex(bytes: string): string {
  let out = ''
  for (let i = bytes.length - 1; i >= 0; i--) out += bytes.charCodeAt(i).toString(16).padStart(2, '0')
  return out
}

/** Replaces the content of `target` with the staged keys. */
function apply(staged: StagedDatabase | undefined, target: Database): void {
  target.clear()
  if (staged === undefined) return
  for (const [key, value] of staged.values) {
    target.set(key, value)
    const deadline = staged.deadlines.get(key)
    if (deadline !== undefined) setDeadline(target, key, deadline)
    if (value instanceof HashValue) trackVolatileHash(target, key, value)
  }
}

/** One pass over a file's opcodes and entries, staging keys per database. */
class FileLoad {
  readonly reader: RdbReader
  readonly aux = new Map<string, string>()
  readonly functions: RdbFunction[] = []
  readonly staged: (StagedDatabase | undefined)[] = []
  expiredSkipped = 0
  private readonly context: LoadContext
  private db = 0

  constructor(private readonly data: string, private readonly databases: number, private readonly options: RdbLoadOptions) {
    this.reader = new RdbReader(data, HEADER_SIZE)
    this.context = {
      hash: options.limits?.hash ?? DEFAULT_HASH_LIMITS,
      maxIntsetEntries: options.limits?.maxIntsetEntries ?? DEFAULT_MAX_INTSET_ENTRIES,
      zset: options.limits?.zset ?? DEFAULT_ZSET_LIMITS,
      now: options.now,
    }
  }

  /** Reads up to and including EOF; the reader is left on the checksum. */
  run(): void {
    let deadline: bigint | undefined
    for (;;) {
      const start = this.reader.pos
      const type = this.guarded(start, 'opcode', () => this.reader.byte())
      switch (type) {
        case RdbOpcode.EOF:
          return
        case RdbOpcode.EXPIRETIME_MS:
          deadline = this.guarded(start, 'expire time', () => this.reader.millis())
          continue
        case RdbOpcode.EXPIRETIME:
          deadline = this.guarded(start, 'expire time', () => BigInt(this.int32()) * 1000n)
          continue
        case RdbOpcode.FREQ:
          this.guarded(start, 'LFU frequency', () => this.reader.byte())
          continue
        case RdbOpcode.IDLE:
          this.guarded(start, 'LRU idle time', () => this.reader.length())
          continue
        default:
          if (type >= RdbOpcode.SLOT_INFO) this.guarded(start, 'opcode', () => this.opcode(type, start))
          else this.entry(type, start, deadline)
          deadline = undefined
      }
    }
  }

  /** The opcodes that carry no key. */
  private opcode(type: number, start: number): void {
    const reader = this.reader
    switch (type) {
      case RdbOpcode.SELECTDB: {
        const index = reader.length()
        if (index >= this.databases) {
          throw new RdbLoadError(start, `the file selects database ${index}; this engine has ${this.databases} databases (see the databases option)`)
        }
        this.db = index
        return
      }
      case RdbOpcode.RESIZEDB:
        reader.length()
        reader.length()
        return
      case RdbOpcode.SLOT_INFO:
        reader.length()
        reader.length()
        reader.length()
        return
      case RdbOpcode.AUX: {
        const name = reader.string()
        this.aux.set(name, reader.string())
        return
      }
      case RdbOpcode.FUNCTION2:
        this.functions.push({ code: reader.string(), offset: start })
        return
      case RdbOpcode.FUNCTION_PRE_GA:
        throw new RdbLoadError(start, 'pre-release function format (Redis 7.0 release candidates) not supported')
      case RdbOpcode.MODULE_AUX:
        throw new RdbLoadError(start, 'module auxiliary data found: this engine has no modules to load it')
    }
  }

  /** One key of type byte `type`: read, checked, staged unless its deadline has passed. */
  private entry(type: number, start: number, deadline: bigint | undefined): void {
    const decode = valueDecoder(type)
    if (decode === undefined) {
      const what = type === 6 || type === 7 ? `a module value (type ${type}): this engine has no modules` : `unknown value type ${type}`
      throw new RdbLoadError(start, what)
    }
    const key = this.guarded(start, 'key', () => this.reader.string())
    const value = this.guarded(start, `value of key ${JSON.stringify(key)}`, () => decode(type, this.reader, this.context))
    const staged = (this.staged[this.db] ??= { values: new Map(), deadlines: new Map() })
    if (staged.values.has(key)) throw new RdbLoadError(start, `duplicate key ${JSON.stringify(key)} in database ${this.db}`)
    const expired = deadline !== undefined && deadline < BigInt(this.options.now) && this.options.keepExpired !== true
    // A 7.4 hash whose every field has expired is left out too, as Redis does.
    if (expired || (value instanceof HashValue && value.size === 0)) {
      this.expiredSkipped++
      return
    }
    staged.values.set(key, value)
    if (deadline !== undefined) staged.deadlines.set(key, deadline)
  }

  /** A 4-byte little-endian signed integer (EXPIRETIME, seconds). */
  private int32(): number {
    const bytes = this.reader.bytes(4)
    return (bytes.charCodeAt(0) | (bytes.charCodeAt(1) << 8) | (bytes.charCodeAt(2) << 16) | (bytes.charCodeAt(3) << 24))
  }

  /** Runs `read`, turning a malformed or truncated item into an {@link RdbLoadError}. */
  private guarded<T>(start: number, item: string, read: () => T): T {
    try {
      return read()
    } catch (error) {
      if (!(error instanceof CorruptPayload)) throw error
      if (error.message === 'unexpected end of payload') {
        throw new RdbLoadError(this.data.length, `unexpected end of file in the ${item} that starts at byte ${start} (the file is truncated, or a length in it is corrupt)`)
      }
      throw new RdbLoadError(start, `corrupt ${item}: ${error.message}`)
    }
  }
}
