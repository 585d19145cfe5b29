import type { TypedValue } from '../keyspace.js'

/**
 * The JSON type of RedisJSON 2.x (`ReJSON-RL`), with the value model its `ijson` store has:
 *
 * - integers and floats stay apart: `1` is an integer, `1.0` and `1e3` are floats (serialized
 *   `1.0`, `1000.0`), and JSON.TYPE says `integer` or `number` accordingly;
 * - objects keep insertion order, replace a value in place, and remove a member by moving the
 *   last member into its slot (ijson's `IObject::remove`), so `{"a":1,"b":2,"c":3}` without `a`
 *   serializes as `{"c":3,"b":2}`;
 * - strings are binary strings of their UTF-8 bytes, the engine's own string form, so lengths
 *   are byte counts (JSON.STRLEN answers Rust's `str::len`) and bytes go out unchanged.
 */

/** A JSON number written with a fraction or an exponent: a float, even when its value is whole. */
export class JsonFloat {
  constructor(readonly value: number) {}
}

/**
 * A JSON value. Integers are `number` when safe and `bigint` beyond 2^53 (RedisJSON keeps them in
 * the i64/u64 range exactly); floats are {@link JsonFloat}.
 */
export type JsonValue = null | boolean | string | number | bigint | JsonFloat | JsonValue[] | JsonObject

/** JSON.TYPE names, in RedisJSON's words. */
export type JsonTypeName = 'null' | 'boolean' | 'integer' | 'number' | 'string' | 'array' | 'object'

/** Objects up to this size find keys by scanning, as ijson's small objects do (no hash table). */
const SMALL_OBJECT = 8

/** A JSON object: members in insertion order, O(1) lookup once past {@link SMALL_OBJECT} members. */
export class JsonObject {
  readonly keys: string[] = []
  readonly values: JsonValue[] = []
  /** Key → slot; built on demand for large objects, dropped when the object shrinks back. */
  private index: Map<string, number> | null = null

  get size(): number {
    return this.keys.length
  }

  /** The slot of `key`, or -1. */
  slotOf(key: string): number {
    const keys = this.keys
    if (keys.length <= SMALL_OBJECT) {
      for (let i = 0; i < keys.length; i++) if (keys[i] === key) return i
      return -1
    }
    let index = this.index
    if (index === null) {
      index = new Map()
      for (let i = 0; i < keys.length; i++) index.set(keys[i], i)
      this.index = index
    }
    return index.get(key) ?? -1
  }

  get(key: string): JsonValue | undefined {
    const slot = this.slotOf(key)
    return slot === -1 ? undefined : this.values[slot]
  }

  has(key: string): boolean {
    return this.slotOf(key) !== -1
  }

  /** Sets `key`: replaced in place when present, appended otherwise. */
  set(key: string, value: JsonValue): void {
    const slot = this.slotOf(key)
    if (slot !== -1) {
      this.values[slot] = value
      return
    }
    this.keys.push(key)
    this.values.push(value)
    if (this.index !== null) this.index.set(key, this.keys.length - 1)
  }

  /** Removes `key`, the last member taking its slot (ijson's order); true when it was present. */
  delete(key: string): boolean {
    const slot = this.slotOf(key)
    if (slot === -1) return false
    const last = this.keys.length - 1
    const index = this.index
    if (slot !== last) {
      this.keys[slot] = this.keys[last]
      this.values[slot] = this.values[last]
      index?.set(this.keys[slot], slot)
    }
    this.keys.pop()
    this.values.pop()
    if (index !== null) {
      index.delete(key)
      if (this.keys.length <= SMALL_OBJECT) this.index = null
    }
    return true
  }

  clear(): void {
    this.keys.length = 0
    this.values.length = 0
    this.index = null
  }
}

/** True for a JSON integer (`number` or `bigint`). */
export function isJsonInteger(value: JsonValue): value is number | bigint {
  return typeof value === 'number' || typeof value === 'bigint'
}

/** JSON.TYPE's name for `value`. */
export function jsonTypeName(value: JsonValue): JsonTypeName {
  if (value === null) return 'null'
  switch (typeof value) {
    case 'boolean':
      return 'boolean'
    case 'string':
      return 'string'
    case 'number':
    case 'bigint':
      return 'integer'
  }
  if (value instanceof JsonFloat) return 'number'
  return Array.isArray(value) ? 'array' : 'object'
}

/** A deep copy: containers are new, scalars (immutable) are shared. */
export function cloneJson(value: JsonValue): JsonValue {
  if (Array.isArray(value)) return value.map(cloneJson)
  if (value instanceof JsonObject) {
    const copy = new JsonObject()
    for (let i = 0; i < value.keys.length; i++) copy.set(value.keys[i], cloneJson(value.values[i]))
    return copy
  }
  return value
}

/** The numeric value of a JSON number as a double (u64/i64 integers rounded, as Rust's `as f64`). */
export function toDouble(value: number | bigint | JsonFloat): number {
  return value instanceof JsonFloat ? value.value : Number(value)
}

/** Exact equality of two JSON integers, whichever of `number` / `bigint` holds each. */
export function integersEqual(a: number | bigint, b: number | bigint): boolean {
  return typeof a === typeof b ? a === b : BigInt(a) === BigInt(b)
}

/**
 * RedisJSON's `is_equal` (JSON.ARRINDEX): same type and same value, recursively; an integer never
 * equals a float (`1` is not `1.0`); objects compare member by member whatever their order.
 */
export function jsonEquals(a: JsonValue, b: JsonValue): boolean {
  if (a === b) return true
  if (a === null || b === null) return false
  if (isJsonInteger(a)) return isJsonInteger(b) && integersEqual(a, b)
  if (a instanceof JsonFloat) return b instanceof JsonFloat && a.value === b.value
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false
    for (let i = 0; i < a.length; i++) if (!jsonEquals(a[i], b[i])) return false
    return true
  }
  if (a instanceof JsonObject) {
    if (!(b instanceof JsonObject) || a.size !== b.size) return false
    for (let i = 0; i < a.keys.length; i++) {
      const other = b.get(a.keys[i])
      if (other === undefined || !jsonEquals(a.values[i], other)) return false
    }
    return true
  }
  return false // distinct strings or booleans
}

/**
 * A JSON document stored at a key (RedisJSON's module type `ReJSON-RL`). Commands change the
 * tree in place, so a key keeps its TTL across updates, as with the module.
 */
export class JsonDocument implements TypedValue {
  readonly type = 'ReJSON-RL'

  constructor(public root: JsonValue) {}

  /** OBJECT ENCODING: Redis reports `raw` for every module value. */
  get encoding(): string {
    return 'raw'
  }

  /** An independent copy (COPY). */
  clone(): JsonDocument {
    return new JsonDocument(cloneJson(this.root))
  }
}
