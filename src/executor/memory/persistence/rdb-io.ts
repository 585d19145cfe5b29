/**
 * Whole-engine RDB files: {@link saveRdbFileSync} writes every database and function library of
 * an engine to a file in one blocking pass (what SAVE and shutdown do), {@link loadRdbFile}
 * replaces an engine's keyspace and libraries with a file's.
 */
import { readFileSync } from 'node:fs'
import { ReplyError } from '../../../reply.js'
import type { Engine } from '../engine.js'
import { hashLimits } from '../commands/hash/access.js'
import { restoreLibraries } from '../commands/scripting/functions.js'
import { scripting } from '../commands/scripting/state.js'
import { intsetLimit } from '../commands/set/index.js'
import { zsetLimits } from '../commands/zset/access.js'
import type { LoadContext } from '../rdb/codec.js'
import { writeFileAtomicSync } from './atomic-file.js'
import { loadRdb, RdbFileWriter, RdbLoadError, type RdbAux, type RdbLoadOptions, type RdbLoadResult } from './rdb-file.js'
import type { SnapshotEncoder } from './snapshot.js'

/** Pieces are gathered into writes of about this size (one syscall per key would dominate). */
const WRITE_BATCH_BYTES = 1 << 20

/** The encoding limits CONFIG sets now: values load with the encodings Redis would give them. */
export function engineLoadLimits(engine: Engine): Omit<LoadContext, 'now'> {
  const ctx = { engine }
  return { hash: hashLimits(ctx), maxIntsetEntries: intsetLimit(ctx), zset: zsetLimits(ctx) }
}

/**
 * The pieces of an RDB file holding `engine`'s libraries and keys as they are now, produced
 * synchronously (the caller must not let commands run between pieces). Empty databases are left
 * out, as Redis does. `writer` gives another form of the same walk (the AOF's command base).
 */
export function* engineRdbPieces(engine: Engine, aux: RdbAux = {}, writer: SnapshotEncoder = new RdbFileWriter()): Generator<Buffer> {
  yield writer.header(aux)
  for (const library of scripting(engine).libraries.values()) yield writer.functionLibrary(library.code)
  for (const db of engine.databases) {
    if (db.size === 0) continue
    yield writer.selectDb(db.index, db.size, db.expires.size)
    for (const [key, value] of db.data) yield writer.entry(key, value, db.getExpire(key))
  }
  yield writer.footer()
}

/** Groups small buffers into writes of about {@link WRITE_BATCH_BYTES}. */
export function* batched(pieces: Iterable<Buffer>, size = WRITE_BATCH_BYTES): Generator<Buffer> {
  let pending: Buffer[] = []
  let bytes = 0
  for (const piece of pieces) {
    pending.push(piece)
    bytes += piece.length
    if (bytes >= size) {
      yield Buffer.concat(pending, bytes)
      pending = []
      bytes = 0
    }
  }
  if (bytes > 0) yield Buffer.concat(pending, bytes)
}

/**
 * Writes `engine` to `path` (replaced atomically) without yielding to the event loop. Throws the
 * file system's error (the old file stays), or `RdbSaveError` for a value no RDB codec writes.
 */
export function saveRdbFileSync(path: string, engine: Engine, aux: RdbAux = {}): void {
  writeFileAtomicSync(path, batched(engineRdbPieces(engine, aux)))
}

/**
 * Replaces `engine`'s keyspace and function libraries with those of the RDB file at `path`.
 * Keys whose deadline has passed are left out. On bad input (see {@link loadRdb}) or a library
 * that does not load, throws {@link RdbLoadError} and the engine is left as it was.
 */
export function loadRdbFile(path: string, engine: Engine): RdbLoadResult {
  return loadRdbBytes(readFileSync(path), engine)
}

/**
 * {@link loadRdbFile} of bytes already read; `keepExpired` for an AOF base, which Redis loads
 * whole (the increments after it may still touch those keys).
 */
export function loadRdbBytes(bytes: Buffer, engine: Engine, options: Pick<RdbLoadOptions, 'keepExpired'> = {}): RdbLoadResult {
  return loadRdb(bytes, engine.databases, {
    ...options,
    now: engine.clock(),
    limits: engineLoadLimits(engine),
    beforeApply(result) {
      const codes = result.functions.map((library) => library.code)
      // Starting the Lua VM only to flush nothing would cost more than most loads.
      if (codes.length === 0 && scripting(engine).libraries.size === 0) return
      const loaded = restoreLibraries(engine, codes, 'flush')
      if (loaded instanceof ReplyError) {
        throw new RdbLoadError(result.functions[0]?.offset ?? 0, `function library failed to load: ${loaded.message}`)
      }
    },
  })
}
