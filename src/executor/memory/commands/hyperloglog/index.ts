import { OK, ReplyError, Status } from '../../../../reply.js'
import { NOTIFY_STRING, notify } from '../../notify.js'
import type { CommandContext, CommandTable, Out } from '../../command.js'
import { WRONGTYPE } from '../../errors.js'
import { HllBuffer } from '../../hll/buffer.js'
import { denseMergeInto, denseRegisterOf, denseRegisters, denseSet } from '../../hll/dense.js'
import { estimateRegisters, estimateValue } from '../../hll/estimator.js'
import {
  CACHE_FLAG_OFFSET,
  CARDINALITY_OFFSET,
  DENSE,
  EMPTY_HLL,
  ENCODING_OFFSET,
  HEADER_SIZE,
  REGISTER_COUNT,
  STALE_CACHE,
  cachedCardinality,
  cardinalityBytes,
  cardinalityReply,
  hasValidCache,
  hashElement,
  isHyperLogLog,
  pattern,
} from '../../hll/format.js'
import { sparseDecode, sparseMergeInto, sparseSet, sparseToDense } from '../../hll/sparse.js'
import { runSelfTest } from '../../hll/selftest.js'

/**
 * The HyperLogLog family (https://redis.io/commands/?group=hyperloglog) as Redis 7.0
 * `hyperloglog.c` behaves: PFADD PFCOUNT PFMERGE, plus PFDEBUG and PFSELFTEST. An HLL is a
 * plain string value (TYPE string; GET, APPEND, SETRANGE work on it) in Redis's exact byte
 * layout, so values move between this engine and Redis unchanged. The encodings live in `../hll/`.
 */

/** `isHLLObjectOrReply`: a string that is not an HLL. */
const NOT_AN_HLL = new ReplyError('WRONGTYPE Key is not a valid HyperLogLog string value.')
/** A sparse HLL whose opcodes do not cover exactly 16384 registers. */
const CORRUPTED = new ReplyError('INVALIDOBJ Corrupted HLL object detected')
const PFDEBUG_NO_KEY = new ReplyError('ERR The specified key does not exist')
const NOT_SPARSE = new ReplyError('ERR HLL encoding is not sparse')
const DENSE_STATUS = new Status('dense')
const SPARSE_STATUS = new Status('sparse')

/** Default of `hll-sparse-max-bytes`, the largest sparse value before it goes dense. */
const DEFAULT_SPARSE_MAX_BYTES = 3000

/** Merged registers of PFCOUNT (several keys) and PFMERGE, one byte each; reused. */
const maxRegisters = new Uint8Array(REGISTER_COUNT)

/** The HLL at `key`: its string, undefined when missing, or the error Redis gives for it. */
function readHll(ctx: CommandContext, key: string): string | undefined | ReplyError {
  const value = ctx.db.read(key, ctx)
  if (value === undefined) return undefined
  if (typeof value !== 'string') return WRONGTYPE
  return isHyperLogLog(value) ? value : NOT_AN_HLL
}

/** `hll-sparse-max-bytes` from CONFIG (the server family's parameters), else Redis's default. */
function sparseMaxBytes(ctx: CommandContext): number {
  const configured = Number(ctx.engine.config.get('hll-sparse-max-bytes') ?? DEFAULT_SPARSE_MAX_BYTES)
  return Number.isFinite(configured) ? configured : DEFAULT_SPARSE_MAX_BYTES
}

/** Stores a written HLL: a new key, or in place (an existing key keeps its TTL). */
function store(ctx: CommandContext, key: string, buffer: HllBuffer, created: boolean): void {
  if (created) ctx.db.set(key, buffer.toString())
  else ctx.db.update(key, buffer.toString())
  ctx.db.setStringEncoding(key, 'raw') // HLLs are raw strings: created raw, unshared before writes
}

/**
 * PFADD key [element ...]: 1 when a register changed (or the key was created), else 0.
 *
 * A dense HLL is read from the stored string and copied only when an element raises a register
 * (at high cardinalities most elements raise none). A corrupted sparse payload stops the command
 * with INVALIDOBJ, keeping what earlier elements changed, as Redis's in-place writes do.
 */
function pfadd(ctx: CommandContext, argv: readonly string[]): Out {
  const key = argv[1]
  const stored = readHll(ctx, key)
  if (stored instanceof ReplyError) return stored
  const created = stored === undefined
  // Redis unshares an existing HLL before adding (`dbUnshareStringValue`), so an embstr value
  // becomes raw even when no register changes.
  if (!created) ctx.db.setStringEncoding(key, 'raw')
  const value = stored ?? EMPTY_HLL
  const maxBytes = sparseMaxBytes(ctx)
  let buffer = created ? HllBuffer.from(value) : null
  let updated = created ? 1 : 0
  for (let i = 2; i < argv.length; i++) {
    hashElement(argv[i])
    const { index, runLength } = pattern
    if ((buffer === null ? value.charCodeAt(ENCODING_OFFSET) : buffer.encoding) === DENSE) {
      if (buffer === null) {
        if (runLength <= denseRegisterOf(value, index)) continue
        buffer = HllBuffer.from(value)
      }
      updated += denseSet(buffer.bytes, index, runLength)
      continue
    }
    buffer ??= HllBuffer.from(value)
    const result = sparseSet(buffer, index, runLength, maxBytes)
    if (result < 0) {
      if (updated > 0) store(ctx, key, buffer, created)
      return CORRUPTED
    }
    updated += result
  }
  if (updated === 0 || buffer === null) return 0
  buffer.bytes[CACHE_FLAG_OFFSET] |= STALE_CACHE
  store(ctx, key, buffer, created)
  notify(ctx, NOTIFY_STRING, 'pfadd', key)
  return 1
}

/**
 * PFCOUNT key [key ...]. One key: its cached cardinality, or a fresh estimate written back into
 * the header (the value changes, the TTL stays). Several keys: the estimate of their union,
 * nothing written; missing keys count as empty HLLs.
 */
function pfcount(ctx: CommandContext, argv: readonly string[]): Out {
  if (argv.length > 2) {
    maxRegisters.fill(0)
    for (let i = 1; i < argv.length; i++) {
      const value = readHll(ctx, argv[i])
      if (value === undefined) continue
      if (value instanceof ReplyError) return value
      if (!mergeInto(value, maxRegisters)) return CORRUPTED
    }
    return cardinalityReply(estimateRegisters(maxRegisters))
  }
  const key = argv[1]
  const value = readHll(ctx, key)
  if (value === undefined) return 0
  if (value instanceof ReplyError) return value
  ctx.db.setStringEncoding(key, 'raw') // single-key PFCOUNT unshares the value first, as Redis
  if (hasValidCache(value)) return cachedCardinality(value)
  const estimate = estimateValue(value)
  if (estimate === null) return CORRUPTED
  ctx.db.update(key, value.slice(0, CARDINALITY_OFFSET) + cardinalityBytes(estimate) + value.slice(HEADER_SIZE))
  ctx.db.setStringEncoding(key, 'raw')
  return cardinalityReply(estimate)
}

/** Raises `max` to the registers of a stored HLL (`hllMerge`); false when it is corrupted. */
function mergeInto(value: string, max: Uint8Array): boolean {
  if (value.charCodeAt(ENCODING_OFFSET) !== DENSE) return sparseMergeInto(value, max)
  denseMergeInto(value, max)
  return true
}

/**
 * PFMERGE destkey [sourcekey ...]: the union of every key named (the destination included) into
 * the destination, created when missing. The result is dense when any input was dense; from
 * sparse inputs it is built by sparse register writes, so it stays sparse while it fits, as in
 * Redis 7.0. The cache is marked stale even when nothing changed.
 */
function pfmerge(ctx: CommandContext, argv: readonly string[]): Out {
  maxRegisters.fill(0)
  let anyDense = false
  for (let i = 1; i < argv.length; i++) {
    const value = readHll(ctx, argv[i])
    if (value === undefined) continue
    if (value instanceof ReplyError) return value
    if (value.charCodeAt(ENCODING_OFFSET) === DENSE) anyDense = true
    if (!mergeInto(value, maxRegisters)) return CORRUPTED
  }
  const key = argv[1]
  // The destination was checked in the loop above: missing, or a valid HLL.
  const destination = ctx.db.read(key, ctx) as string | undefined
  const created = destination === undefined
  const buffer = HllBuffer.from(destination ?? EMPTY_HLL)
  // Unreachable failure: the merge above rejects exactly the payloads the conversion rejects.
  if (anyDense && !sparseToDense(buffer)) return CORRUPTED
  const maxBytes = sparseMaxBytes(ctx)
  for (let index = 0; index < REGISTER_COUNT; index++) {
    const register = maxRegisters[index]
    if (register === 0) continue
    if (buffer.encoding === DENSE) denseSet(buffer.bytes, index, register)
    else sparseSet(buffer, index, register, maxBytes)
  }
  buffer.bytes[CACHE_FLAG_OFFSET] |= STALE_CACHE
  store(ctx, key, buffer, created)
  notify(ctx, NOTIFY_STRING, 'pfadd', key)
  return OK
}

/**
 * PFDEBUG subcommand key: GETREG (the 16384 registers; converts a sparse HLL to dense first),
 * DECODE (a sparse HLL's opcodes), ENCODING, TODENSE (1 when it converted). The key is checked
 * before the subcommand name.
 */
function pfdebug(ctx: CommandContext, argv: readonly string[]): Out {
  const [, subcommand, key] = argv
  const value = readHll(ctx, key)
  if (value === undefined) return PFDEBUG_NO_KEY
  if (value instanceof ReplyError) return value
  ctx.db.setStringEncoding(key, 'raw') // PFDEBUG unshares the value whatever the subcommand
  const sparse = value.charCodeAt(ENCODING_OFFSET) !== DENSE
  switch (subcommand.toLowerCase()) {
    case 'getreg': {
      const dense = sparse ? convertToDense(ctx, key, value) : value
      return dense === null ? CORRUPTED : denseRegisters(dense)
    }
    case 'decode':
      return sparse ? sparseDecode(value) : NOT_SPARSE
    case 'encoding':
      return sparse ? SPARSE_STATUS : DENSE_STATUS
    case 'todense':
      if (!sparse) return 0
      return convertToDense(ctx, key, value) === null ? CORRUPTED : 1
    default:
      return new ReplyError(`ERR Unknown PFDEBUG subcommand '${subcommand}'`)
  }
}

/** Stores the dense form of the sparse HLL at `key` and returns it; null when corrupted. */
function convertToDense(ctx: CommandContext, key: string, value: string): string | null {
  const buffer = HllBuffer.from(value, 0)
  if (!sparseToDense(buffer)) return null
  const dense = buffer.toString()
  ctx.db.update(key, dense)
  ctx.db.setStringEncoding(key, 'raw')
  return dense
}

/** PFSELFTEST: OK when the implementation passes Redis's self-test checks (see `hll/selftest.ts`). */
function pfselftest(ctx: CommandContext): Out {
  const failure = runSelfTest(sparseMaxBytes(ctx))
  return failure === null ? OK : new ReplyError(`ERR ${failure}`)
}

/** HyperLogLog commands. */
export const hyperLogLogCommands: CommandTable = {
  pfadd,
  pfcount,
  pfdebug,
  pfmerge,
  pfselftest,
}
