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
import { Database, typeOf, type Value } from '../keyspace.js'
import type { KeyspaceState } from '../key-access.js'
import type { LoadContext } from '../rdb/codec.js'
import { RDB_VERSION_READABLE, RdbType } from '../rdb/constants.js'
import { Crc64 } from '../rdb/crc64.js'
import { encodeValue, valueDecoder } from '../rdb/payload.js'
import { decodeModuleValue, encodeJsonModule, isJsonDocument, moduleTypeOf, UnknownModuleType } from '../rdb/values/json-module.js'
import { check, CorruptPayload, RdbReader } from '../rdb/reader.js'
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

/** A value no RDB codec writes. */
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
  /** Reused for every entry: its type byte and key, and its value (written first). */
  private readonly head = new RdbWriter(true)
  private readonly body = new RdbWriter(true)

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
    return Buffer.from(this.entryBinary(key, value, expireAt), 'latin1')
  }

  /**
   * {@link RdbFileWriter.entry} as a binary string, for a caller that copies it into a buffer of
   * its own (the snapshot: no Buffer object per key to outlive the slice and burden the GC).
   */
  entryBinary(key: string, value: Value, expireAt: number | undefined): string {
    const body = this.body
    // JSON documents are a module type in Redis: files carry them as RedisJSON writes them; DUMP
    // (payload.ts) does not, as Redis without the module has no such type to RESTORE.
    const encoded = isJsonDocument(value) ? encodeJsonModule(value, body) : encodeValue(value, body)
    if (encoded === null) {
      body.take()
      throw new RdbSaveError(`values of type ${typeOf(value)} cannot be saved in an RDB file (key ${JSON.stringify(key)})`)
    }
    const writer = this.head
    if (expireAt !== undefined) {
      writer.byte(RdbOpcode.EXPIRETIME_MS)
      writer.millis(BigInt(expireAt))
    }
    writer.byte(encoded.type)
    writer.string(key)
    writer.raw(body.take())
    const bytes = writer.take()
    this.checksum.updateBinary(bytes)
    return bytes
  }

  /** EOF and the CRC-64 of everything written, EOF included. */
  footer(): Buffer {
    const eof = String.fromCharCode(RdbOpcode.EOF)
    this.checksum.updateBinary(eof)
    return Buffer.from(eof + this.checksum.digest(), 'latin1')
  }

  private emit(writer: RdbWriter): Buffer {
    const bytes = writer.take()
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
   * Bytes of the file turned into one string at a time (default 64 MiB): a file is read window
   * by window, so its size is not bound by V8's longest string. Small values are for tests.
   */
  readonly windowBytes?: number
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

/**
 * Loads RDB file `bytes` into `into` (indexed by database number), replacing what they held: the
 * keys are read into new databases, and once the whole file has been read and checked (checksum
 * included) each element of `into` is replaced by its new database (as SWAPDB swaps them). On bad
 * input it throws {@link RdbLoadError} naming the byte offset and the reason, and `into` is left
 * as it was.
 */
export function loadRdb(bytes: Buffer, into: Database[], options: RdbLoadOptions): RdbLoadResult {
  const version = readHeader(bytes.toString('latin1', 0, HEADER_SIZE))
  const shared = into[0]?.shared
  const load = new FileLoad(bytes, into.length, options, shared)
  let result: RdbLoadResult
  try {
    try {
      load.run()
    } catch (error) {
      if (!(error instanceof RdbLoadError) || version < FIRST_CHECKSUM_VERSION || trailingChecksumMatches(bytes)) throw error
      throw new RdbLoadError(error.offset, `${error.reason}; checksum mismatch: the last 8 bytes are not the CRC-64 of the rest either`)
    }
    if (version >= FIRST_CHECKSUM_VERSION) verifyChecksum(bytes, load.position)
    let keys = 0
    for (const db of load.staged) keys += db.size
    result = { version, aux: load.aux, functions: load.functions, keys, expiredSkipped: load.expiredSkipped }
    options.beforeApply?.(result)
  } catch (error) {
    if (shared !== undefined) for (const db of load.staged) forget(shared, db)
    throw error
  }
  // The replaced databases' bytes and keys leave the totals with them.
  if (shared !== undefined) for (const db of into) forget(shared, db)
  for (let index = 0; index < into.length; index++) into[index] = load.staged[index]
  return result
}

/** Takes a database dropped whole out of the engine's totals of bytes and keys. */
function forget(shared: KeyspaceState, db: Database): void {
  shared.usedBytes -= db.usedBytes
  shared.keys -= db.size
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

/** A module value: RedisJSON documents load, other module types throw {@link UnknownModuleType}. */
function decodeModule(_type: number, reader: RdbReader): Value {
  return decodeModuleValue(reader)
}

/** Strings from this length on are sliced by V8 (kept pointing into their parent string). */
const SLICED_STRING_MIN = 13

/**
 * The reader over a whole file. Longer strings are copied out of the file's bytes: a slice of
 * the file's one big string would keep all of it alive for as long as any key or value lives.
 */
class FileReader extends RdbReader {
  /** `data` is the window of `buffer` that starts at byte `base`. */
  constructor(private readonly buffer: Buffer, data: string, readonly base: number) {
    super(data, 0)
  }

  override bytes(count: number): string {
    if (count < SLICED_STRING_MIN) return super.bytes(count)
    check(count <= this.end - this.pos, 'unexpected end of payload')
    const start = this.base + this.pos
    this.pos += count
    return this.buffer.toString('latin1', start, start + count)
  }
}

/** Default {@link RdbLoadOptions.windowBytes}. */
const DEFAULT_WINDOW_BYTES = 64 * 2 ** 20
const END_OF_DATA = 'unexpected end of payload'

/** One pass over a file's opcodes and entries, staging keys per database. */
class FileLoad {
  private reader: FileReader
  readonly aux = new Map<string, string>()
  readonly functions: RdbFunction[] = []
  /** The new databases, one per index of the target. */
  readonly staged: Database[]
  expiredSkipped = 0
  private readonly context: LoadContext
  /** {@link RdbLoadOptions.now} as a deadline compares with it. */
  private readonly now: bigint
  private db = 0
  /** What is being read, from where, and for which key (for error messages). */
  private item = 'opcode'
  private itemStart = HEADER_SIZE
  private key: string | undefined
  /** The deadline of the next key (EXPIRETIME opcodes come before their key). */
  private deadline: bigint | undefined
  private readonly windowBytes: number

  constructor(private readonly bytes: Buffer, private readonly databases: number, private readonly options: RdbLoadOptions, shared?: KeyspaceState) {
    this.windowBytes = Math.max(1, options.windowBytes ?? DEFAULT_WINDOW_BYTES)
    this.reader = this.window(HEADER_SIZE, this.windowBytes)
    // The new databases share the engine's keyspace state (access clock, dataset bytes), so the
    // memory bound sees what was loaded; a load that fails takes its bytes back.
    this.staged = Array.from({ length: databases }, (_, index) => new Database(index, shared))
    this.now = BigInt(options.now)
    this.context = {
      hash: options.limits?.hash ?? DEFAULT_HASH_LIMITS,
      maxIntsetEntries: options.limits?.maxIntsetEntries ?? DEFAULT_MAX_INTSET_ENTRIES,
      zset: options.limits?.zset ?? DEFAULT_ZSET_LIMITS,
      now: options.now,
    }
  }

  /** The offset in the file the reader is at. */
  get position(): number {
    return this.reader.base + this.reader.pos
  }

  /** A reader over `length` bytes of the file from `from` (fewer at the end of the file). */
  private window(from: number, length: number): FileReader {
    const end = Math.min(this.bytes.length, from + length)
    return new FileReader(this.bytes, this.bytes.toString('latin1', from, end), from)
  }

  /** Reads up to and including EOF; the reader is left on the checksum. */
  run(): void {
    try {
      for (let done = false; !done; ) done = this.itemInWindow()
    } catch (error) {
      if (!(error instanceof CorruptPayload)) throw error
      const item = this.key === undefined ? this.item : `${this.item} of key ${JSON.stringify(this.key)}`
      if (error.message === END_OF_DATA) {
        throw new RdbLoadError(this.bytes.length, `unexpected end of file in the ${item} that starts at byte ${this.itemStart} (the file is truncated, or a length in it is corrupt)`)
      }
      throw new RdbLoadError(this.itemStart, `corrupt ${item}: ${error.message}`)
    }
  }

  /**
   * Reads one item; true at EOF. An item that runs past the end of the window is read again
   * from its start in a new window (twice as long when the item is that large); only past the
   * end of the file is running out an error.
   */
  private itemInWindow(): boolean {
    const start = this.reader.pos
    try {
      return this.readItem(start)
    } catch (error) {
      const windowEnd = this.reader.base + this.reader.end
      if (!(error instanceof CorruptPayload) || error.message !== END_OF_DATA || windowEnd >= this.bytes.length) throw error
      const from = this.reader.base + start
      const length = Math.max(this.windowBytes, 2 * (windowEnd - from))
      if (Math.min(length, this.bytes.length - from) > bufferConstants.MAX_STRING_LENGTH) {
        throw new RdbLoadError(from, `an item of more than ${bufferConstants.MAX_STRING_LENGTH} bytes cannot be loaded by this engine`)
      }
      this.reader = this.window(from, length)
      return false
    }
  }

  /**
   * One opcode or entry from `start`. What is being read is kept in `item`, `itemStart` and
   * `key` (rather than in a closure per read, which would cost more than the read) so that
   * {@link FileLoad.run} can say where a malformed item starts.
   */
  private readItem(start: number): boolean {
    const reader = this.reader
    const at = reader.base + start
    this.itemStart = at
    this.item = 'opcode'
    this.key = undefined
    const type = reader.byte()
    switch (type) {
      case RdbOpcode.EOF:
        return true
      case RdbOpcode.EXPIRETIME_MS:
        this.item = 'expire time'
        this.deadline = reader.millis()
        return false
      case RdbOpcode.EXPIRETIME:
        this.item = 'expire time'
        this.deadline = BigInt(this.int32()) * 1000n
        return false
      case RdbOpcode.FREQ:
        this.item = 'LFU frequency'
        reader.byte()
        return false
      case RdbOpcode.IDLE:
        this.item = 'LRU idle time'
        reader.length()
        return false
    }
    if (type >= RdbOpcode.SLOT_INFO) this.opcode(type, at)
    else this.entry(type, at, this.deadline)
    this.deadline = undefined
    return false
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
        this.item = 'auxiliary field'
        const name = reader.string()
        this.aux.set(name, reader.string())
        return
      }
      case RdbOpcode.FUNCTION2:
        this.item = 'function library'
        this.functions.push({ code: reader.string(), offset: start })
        return
      case RdbOpcode.FUNCTION_PRE_GA:
        throw new RdbLoadError(start, 'pre-release function format (Redis 7.0 release candidates) not supported')
      case RdbOpcode.MODULE_AUX: {
        const { name } = moduleTypeOf(reader.length64())
        throw new RdbLoadError(start, `module auxiliary data of module type '${name}' found: this engine has no such module to load it`)
      }
    }
  }

  /** One key of type byte `type`: read, checked, staged unless its deadline has passed. */
  private entry(type: number, start: number, deadline: bigint | undefined): void {
    const decode = type === RdbType.MODULE_2 ? decodeModule : valueDecoder(type)
    if (decode === undefined) {
      const what = type === RdbType.MODULE ? 'a module value in the pre-release module format (RDB_TYPE_MODULE), which Redis 7.0 refuses too' : `unknown value type ${type}`
      throw new RdbLoadError(start, what)
    }
    this.item = 'key'
    const key = this.reader.string()
    this.item = 'value'
    this.key = key
    let value: Value
    try {
      value = decode(type, this.reader, this.context)
    } catch (error) {
      if (error instanceof UnknownModuleType) throw new RdbLoadError(start, `key ${JSON.stringify(key)} holds ${error.message}`)
      throw error
    }
    const db = this.staged[this.db]
    if (db.data.has(key)) throw new RdbLoadError(start, `duplicate key ${JSON.stringify(key)} in database ${this.db}`)
    const expired = deadline !== undefined && deadline < this.now && this.options.keepExpired !== true
    // A 7.4 hash whose every field has expired is left out too, as Redis does.
    if (expired || (value instanceof HashValue && value.size === 0)) {
      this.expiredSkipped++
      return
    }
    db.set(key, value)
    if (deadline !== undefined) setDeadline(db, key, deadline)
    if (value instanceof HashValue) trackVolatileHash(db, key, value)
  }

  /** A 4-byte little-endian signed integer (EXPIRETIME, seconds). */
  private int32(): number {
    const bytes = this.reader.bytes(4)
    return (bytes.charCodeAt(0) | (bytes.charCodeAt(1) << 8) | (bytes.charCodeAt(2) << 16) | (bytes.charCodeAt(3) << 24))
  }
}
