import { ReplyError } from '../../../../reply.js'
import { NOTIFY_GENERIC, notify } from '../../notify.js'
import type { CommandContext, Out } from '../../command.js'
import { SYNTAX, WRONGTYPE } from '../../errors.js'
import { xxh3_64 } from '../../lib/xxh3.js'
import { readString } from './value.js'

/**
 * Redis 8.4's compare-and-set / compare-and-delete on strings (redis.io/commands/digest,
 * /delex, /set): DIGEST, DELEX and the IFEQ / IFNE / IFDEQ / IFDNE conditions SET shares with
 * DELEX. A digest is XXH3-64 (seed 0) of the value's bytes, written as 16 lowercase hex digits.
 */

export type ConditionKind = 'IFEQ' | 'IFNE' | 'IFDEQ' | 'IFDNE'

export interface ValueCondition {
  readonly kind: ConditionKind
  /** The value (IFEQ / IFNE) or the digest as a number (IFDEQ / IFDNE). */
  readonly operand: string | bigint
}

/**
 * The engine's refusal of a digest operand that is no 64-bit hex number. Redis 8.4's own text
 * for this case could not be checked against its source (see docs/compatibility.md).
 */
export const INVALID_DIGEST = new ReplyError('ERR digest must be a hexadecimal number of 1 to 16 digits')

const HEX_DIGEST = /^[0-9a-fA-F]{1,16}$/

export function isConditionKind(option: string): option is ConditionKind {
  return option === 'IFEQ' || option === 'IFNE' || option === 'IFDEQ' || option === 'IFDNE'
}

/** A condition from its (upper-cased) option and operand; a digest is read as hex, any case. */
export function readCondition(kind: ConditionKind, operand: string): ValueCondition | ReplyError {
  if (kind === 'IFEQ' || kind === 'IFNE') return { kind, operand }
  if (!HEX_DIGEST.test(operand)) return INVALID_DIGEST
  return { kind, operand: BigInt(`0x${operand}`) }
}

/** XXH3-64 of an engine string (one char per byte). */
export function digestOf(value: string): bigint {
  return xxh3_64(Buffer.from(value, 'latin1'))
}

export function digestHex(value: string): string {
  return digestOf(value).toString(16).padStart(16, '0')
}

/**
 * Whether `condition` holds for the string at `key`: a missing key fails IFEQ and IFDEQ (it
 * holds no such value) and passes IFNE and IFDNE; a key of another type is WRONGTYPE.
 */
export function conditionHolds(ctx: CommandContext, key: string, condition: ValueCondition): boolean | ReplyError {
  const current = readString(ctx, key)
  if (current instanceof ReplyError) return current
  const wantsEqual = condition.kind === 'IFEQ' || condition.kind === 'IFDEQ'
  if (current === undefined) return !wantsEqual
  const equal =
    typeof condition.operand === 'string' ? current === condition.operand : digestOf(current) === condition.operand
  return equal === wantsEqual
}

/** DIGEST key: the hex digest of the string value, nil when missing, WRONGTYPE otherwise. */
export function digest(ctx: CommandContext, argv: readonly string[]): Out {
  const value = readString(ctx, argv[1])
  if (value === undefined) return null
  if (value instanceof ReplyError) return value
  return digestHex(value)
}

/**
 * DELEX key [IFEQ value | IFNE value | IFDEQ digest | IFDNE digest]: 1 when the key was deleted,
 * 0 when it was missing or the condition failed. Without a condition it deletes a key of any
 * type, as DEL; with one the key must hold a string. A deletion is reported `del`.
 */
export function delex(ctx: CommandContext, argv: readonly string[]): Out {
  const key = argv[1]
  if (argv.length !== 2 && argv.length !== 4) return SYNTAX
  if (argv.length === 4) {
    const kind = argv[2].toUpperCase()
    if (!isConditionKind(kind)) return SYNTAX
    const condition = readCondition(kind, argv[3])
    if (condition instanceof ReplyError) return condition
    const value = readString(ctx, key)
    if (value instanceof ReplyError) return WRONGTYPE
    if (value === undefined) return 0
    const holds = conditionHolds(ctx, key, condition)
    if (holds !== true) return holds === false ? 0 : holds
  }
  if (!ctx.db.delete(key, ctx.now)) return 0
  notify(ctx, NOTIFY_GENERIC, 'del', key)
  return 1
}
