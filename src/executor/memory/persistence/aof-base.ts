/**
 * The base file of an AOF rewrite in its two forms, as `aof-use-rdb-preamble` chooses:
 *
 * - `yes` (Redis 7's default): `<appendfilename>.<seq>.base.rdb`, an RDB file with the `aof-base`
 *   auxiliary field set, written by the RDB file writer;
 * - `no`: `<appendfilename>.<seq>.base.aof`, commands. Every key becomes
 *   `RESTORE key 0|<ms> <DUMP payload> ABSTTL` (RESTORE carries every type with its encoding,
 *   streams with their consumer groups and pending entries), a JSON document `JSON.SET key $ <json>`
 *   and `PEXPIREAT` when it has a deadline; function libraries `FUNCTION LOAD`; databases are
 *   introduced by SELECT.
 *
 * Both are {@link SnapshotEncoder}s, so the rewrite writes either from the point-in-time snapshot
 * in slices (`snapshot.ts`), and a new AOF writes either synchronously ({@link baseEncoder}).
 */
import type { Value } from '../keyspace.js'
import { typeOf } from '../keyspace.js'
import { serializeJson } from '../lib/json/serialize.js'
import { createDumpPayload } from '../rdb/payload.js'
import { JsonDocument } from '../types/json.js'
import { encodeCommand } from './aof-format.js'
import { RdbFileWriter } from './rdb-file.js'
import type { SnapshotEncoder } from './snapshot.js'

/** The two forms of a base file. */
export type AofBaseFormat = 'rdb' | 'aof'

/** Thrown when a value has no command form to rewrite: the rewrite fails and says which key. */
export class UnrewritableValueError extends Error {}

const EMPTY = Buffer.alloc(0)

function command(argv: readonly string[]): Buffer {
  return Buffer.from(encodeCommand(argv), 'latin1')
}

/** The base in command form (`aof-use-rdb-preamble no`). */
export class AofCommandEncoder implements SnapshotEncoder {
  header(): Buffer {
    return EMPTY
  }

  functionLibrary(code: string): Buffer {
    return command(['FUNCTION', 'LOAD', code])
  }

  selectDb(index: number): Buffer {
    return command(['SELECT', String(index)])
  }

  entry(key: string, value: Value, expireAt: number | undefined): Buffer {
    if (value instanceof JsonDocument) {
      const set = encodeCommand(['JSON.SET', key, '$', serializeJson(value.root)])
      const expire = expireAt === undefined ? '' : encodeCommand(['PEXPIREAT', key, String(expireAt)])
      return Buffer.from(set + expire, 'latin1')
    }
    const payload = createDumpPayload(value)
    if (payload === null) throw new UnrewritableValueError(`the value of key '${key}' (type ${typeOf(value)}) has no command form to rewrite`)
    return command(['RESTORE', key, expireAt === undefined ? '0' : String(expireAt), payload, 'ABSTTL'])
  }

  footer(): Buffer {
    return EMPTY
  }
}

/** The encoder of a base file of `format`. */
export function baseEncoder(format: AofBaseFormat): SnapshotEncoder {
  return format === 'rdb' ? new RdbFileWriter() : new AofCommandEncoder()
}

/** The file name suffix of a base of `format` (Redis's `.base.rdb` / `.base.aof`). */
export function baseSuffix(format: AofBaseFormat): string {
  return format === 'rdb' ? '.base.rdb' : '.base.aof'
}
