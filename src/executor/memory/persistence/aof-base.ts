/**
 * The base file of an AOF rewrite, in command form (`<appendfilename>.<seq>.base.aof`): every
 * key as `RESTORE key 0|<ms> <DUMP payload> ABSTTL`, database by database after a SELECT.
 * RESTORE carries every type with its encoding (streams with their consumer groups and pending
 * entries) through the engine's DUMP codec, so the base is as complete as a DUMP of each key.
 *
 * STOPGAP, until the point-in-time snapshot (`persistence/snapshot.ts`) and the RDB file writer
 * (`persistence/rdb-file.ts`) are merged: the keyspace is walked synchronously, in the turn the
 * rewrite starts, so a rewrite of a large keyspace blocks for the walk (the writing itself is
 * asynchronous). With those parts in, the base becomes `.base.rdb` (aof-use-rdb-preamble yes)
 * written from the snapshot in slices.
 */
import type { Engine } from '../engine.js'
import { typeOf } from '../keyspace.js'
import { createDumpPayload } from '../rdb/payload.js'
import { encodeCommand } from './aof-format.js'

/** Thrown when a value has no DUMP codec (a module type): the rewrite fails and says which key. */
export class UnrewritableValueError extends Error {}

/** The base's text, in chunks of about `chunkSize` chars (binary strings). */
export function baseChunks(engine: Engine, chunkSize = 1 << 20): string[] {
  const chunks: string[] = []
  let chunk = ''
  for (const db of engine.databases) {
    if (db.data.size === 0) continue
    chunk += encodeCommand(['SELECT', String(db.index)])
    for (const [key, value] of db.data) {
      const payload = createDumpPayload(value)
      if (payload === null) throw new UnrewritableValueError(`the value of key '${key}' (type ${typeOf(value)}) has no DUMP form to rewrite`)
      const at = db.getExpire(key)
      chunk += encodeCommand(['RESTORE', key, at === undefined ? '0' : String(at), payload, 'ABSTTL'])
      if (chunk.length >= chunkSize) {
        chunks.push(chunk)
        chunk = ''
      }
    }
  }
  if (chunk.length > 0) chunks.push(chunk)
  return chunks
}
