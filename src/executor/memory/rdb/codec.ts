import type { TypedValue, Value } from '../keyspace.js'
import type { HashLimits } from '../types/hash.js'
import type { ZSetLimits } from '../types/zset.js'
import type { RdbReader } from './reader.js'
import type { RdbWriter } from './writer.js'

/**
 * The contract between the DUMP payload framing (`payload.ts`) and the per-type codecs in
 * `values/`: each value type has one module that decodes every RDB type byte Redis writes for it
 * and encodes the engine's value in one form Redis 7.0 reads back.
 */

/** The configuration a decoded value is built under, as CONFIG reads at RESTORE time. */
export interface LoadContext {
  /** `hash-max-listpack-entries` / `-value`. */
  readonly hash: HashLimits
  /** `set-max-intset-entries`. */
  readonly maxIntsetEntries: number
  /** `zset-max-listpack-entries` / `-value`. */
  readonly zset: ZSetLimits
  /** Milliseconds since the epoch: hash fields whose deadline has passed are not restored. */
  readonly now: number
}

/** Decodes the value after type byte `type` (one of the codec's {@link ValueCodec.types}). */
export type Decoder = (type: number, reader: RdbReader, context: LoadContext) => Value

/** What an encoder wrote: the type byte that goes first, and the RDB version the form needs. */
export interface Encoded {
  readonly type: number
  readonly version: number
}

/** One value type's half of the format. */
export interface ValueCodec<V extends Value = Value> {
  /** The RDB type bytes {@link ValueCodec.decode} reads. */
  readonly types: readonly number[]
  /** True for the values {@link ValueCodec.encode} writes. */
  accepts(value: Value): value is V
  decode: Decoder
  /** Writes the body of `value` (everything after the type byte). */
  encode(value: V, writer: RdbWriter): Encoded
}

/** A typed value that is not a string, narrowed by class. */
export function isInstance<T extends TypedValue>(type: abstract new (...args: never[]) => T) {
  return (value: Value): value is T => value instanceof type
}
