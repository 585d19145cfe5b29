import { ReplyError } from '../../../../reply.js'
import type { CommandContext, CommandTable, Out } from '../../command.js'
import { compileGlob, type GlobMatcher } from '../../lib/glob.js'
import { typeOf, type Database } from '../../keyspace.js'
import { CursorTable } from '../../scan-cursor.js'
import { INVALID_CURSOR, parseScanCursor, parseScanOptions } from './scan-options.js'

/**
 * Walking the keyspace: KEYS, SCAN, RANDOMKEY. None of them ever returns a key whose TTL has
 * passed. Order is the keyspace's (insertion order), not Redis's hash order, which Redis does
 * not promise either.
 */

/** True when `key` has a deadline at or before `now` (without deleting it, as KEYS does). */
function isExpired(db: Database, key: string, now: number): boolean {
  const at = db.getExpire(key)
  return at !== undefined && at <= now
}

/** KEYS pattern. The pattern `*` alone takes every key, the empty one included (Redis's fast path). */
function keys(ctx: CommandContext, argv: readonly string[]): Out {
  const db = ctx.db
  const pattern = argv[1]
  const matches: GlobMatcher | null = pattern === '*' ? null : compileGlob(pattern)
  const found: string[] = []
  for (const key of db.data.keys()) {
    if (matches !== null && !matches(key)) continue
    if (isExpired(db, key, ctx.now)) continue
    found.push(key)
  }
  return found
}

/** SCAN cursors, one table per database. */
const scanCursors = new WeakMap<Database, CursorTable<string>>()

function cursorsOf(db: Database): CursorTable<string> {
  let table = scanCursors.get(db)
  if (table === undefined) scanCursors.set(db, (table = new CursorTable<string>()))
  return table
}

/**
 * SCAN cursor [MATCH pattern] [COUNT count] [TYPE type]. COUNT is how many keys one call looks
 * at (default 10); MATCH and TYPE filter those afterwards, so a call may return fewer, even none,
 * with a non-zero cursor. See `scan-cursor.ts` for how cursors keep Redis's guarantee. An
 * unknown TYPE name matches nothing, as in Redis 7.0 (later versions have answered an error).
 */
function scan(ctx: CommandContext, argv: readonly string[]): Out {
  const cursor = parseScanCursor(argv[1])
  if (cursor === null) return INVALID_CURSOR
  const options = parseScanOptions(argv, 2, 'type')
  if (options instanceof ReplyError) return options
  const { count, type: typeName } = options
  const matches: GlobMatcher | null = options.match === null ? null : compileGlob(options.match)
  const db = ctx.db
  const step = cursorsOf(db).step(cursor, count, () => db.data.keys())
  const found: string[] = []
  for (const key of step.items) {
    // Redis's order: pattern, then type, then expiry; the lookup also drops an expired key.
    if (matches !== null && !matches(key)) continue
    const value = db.read(key, ctx)
    if (value === undefined) continue
    if (typeName !== null && typeOf(value).toLowerCase() !== typeName) continue
    found.push(key)
  }
  return [String(step.cursor), found]
}

/**
 * A sample of the keyspace's keys for RANDOMKEY: picking from an array is O(1), which a `Map`
 * cannot do. The sample is refreshed when the keyspace has drifted far from it (doubled or
 * halved); keys deleted since are dropped when picked, and keys added since become candidates
 * at the next refresh. Each refresh is O(n) after Ω(n) changes, so O(1) amortized.
 */
interface KeySample {
  keys: string[]
}

const samples = new WeakMap<Database, KeySample>()

function sampleOf(db: Database): KeySample {
  let sample = samples.get(db)
  const size = db.data.size
  if (sample === undefined || size > 2 * sample.keys.length || sample.keys.length > 2 * size) {
    sample = { keys: [...db.data.keys()] }
    samples.set(db, sample)
  }
  return sample
}

/**
 * RANDOMKEY: a random live key, or nil for an empty database. A picked key that expired is
 * deleted and another one is drawn, as in Redis's `dbRandomKey`.
 */
function randomkey(ctx: CommandContext): Out {
  const db = ctx.db
  for (;;) {
    const sample = sampleOf(db)
    const pool = sample.keys
    if (pool.length === 0) return null
    const index = Math.floor(Math.random() * pool.length)
    const key = pool[index]
    if (db.read(key, ctx) !== undefined) return key
    // Gone (deleted or just expired): drop it from the sample by swapping in the last one.
    pool[index] = pool[pool.length - 1]
    pool.pop()
  }
}

/** Keyspace walking commands. */
export const scanCommands: CommandTable = { keys, scan, randomkey }
