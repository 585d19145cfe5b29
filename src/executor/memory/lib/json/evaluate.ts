import { JsonFloat, JsonObject, integersEqual, isJsonInteger, toDouble, type JsonValue } from '../../types/json.js'
import type { Filter, Segment, Term } from './path.js'
import { compileRustRegex, regexMatches } from './regex.js'

/**
 * JSONPath evaluation as RedisJSON 2.x's `json_path` calculator does it, match order included:
 * `..x` applies `x` at the node, then at each child in document order, depth first; a filter
 * tests each element of an array or each value of an object (a scalar is tested itself); an
 * index past the end matches nothing while a negative index before the start means 0; `@.x` in a
 * filter stands for a value only when it names exactly one.
 */

/** A step of a concrete location: an object key or an array index. */
export type PathElement = string | number

/** Matches of a path with their concrete locations (for commands that write). */
export interface Locations {
  readonly values: JsonValue[]
  readonly paths: PathElement[][]
}

interface Walk {
  readonly root: JsonValue
  readonly values: JsonValue[]
  /** Null when locations are not needed (reads). */
  readonly paths: PathElement[][] | null
  readonly trail: PathElement[]
}

/** The values `segments` select in `root`, in RedisJSON's order. */
export function selectValues(segments: readonly Segment[], root: JsonValue): JsonValue[] {
  if (segments.length === 0) return [root]
  const walk: Walk = { root, values: [], paths: null, trail: [] }
  visit(walk, segments, 0, root)
  return walk.values
}

/** The values `segments` select in `root` and where they are. */
export function selectLocations(segments: readonly Segment[], root: JsonValue): Locations {
  const walk = { root, values: [] as JsonValue[], paths: [] as PathElement[][], trail: [] as PathElement[] }
  visit(walk, segments, 0, root)
  return walk
}

/** RedisJSON's index normalization in paths: `[-10]` of 3 elements is 0, `[10]` is past the end. */
function absoluteIndex(index: number, length: number): number {
  return index >= 0 ? Math.min(index, length) : Math.max(0, index + length)
}

function visit(walk: Walk, segments: readonly Segment[], i: number, node: JsonValue): void {
  if (i === segments.length) {
    walk.values.push(node)
    walk.paths?.push(walk.trail.slice())
    return
  }
  const segment = segments[i]
  switch (segment.kind) {
    case 'key':
      if (node instanceof JsonObject) {
        const child = node.get(segment.key)
        if (child !== undefined) descend(walk, segments, i + 1, child, segment.key)
      }
      return
    case 'keys':
      if (node instanceof JsonObject) {
        for (const key of segment.keys) {
          const child = node.get(key)
          if (child !== undefined) descend(walk, segments, i + 1, child, key)
        }
      }
      return
    case 'indexes':
      if (Array.isArray(node)) {
        for (const index of segment.indexes) {
          const at = absoluteIndex(index, node.length)
          if (at < node.length) descend(walk, segments, i + 1, node[at], at)
        }
      }
      return
    case 'range':
      if (Array.isArray(node)) {
        const length = node.length
        const start = segment.start === null ? 0 : absoluteIndex(segment.start, length)
        const end = segment.end === null ? length : absoluteIndex(segment.end, length)
        for (let at = start; at < end; at += segment.step) descend(walk, segments, i + 1, node[at], at)
      }
      return
    case 'all':
      if (Array.isArray(node)) for (let at = 0; at < node.length; at++) descend(walk, segments, i + 1, node[at], at)
      else if (node instanceof JsonObject) {
        for (let slot = 0; slot < node.keys.length; slot++) descend(walk, segments, i + 1, node.values[slot], node.keys[slot])
      }
      return
    case 'scan':
      visit(walk, segments, i + 1, node)
      scan(walk, segments, i + 1, node)
      return
    case 'filter':
      if (Array.isArray(node)) {
        for (let at = 0; at < node.length; at++) {
          if (testFilter(segment.filter, node[at], walk.root)) descend(walk, segments, i + 1, node[at], at)
        }
      } else if (node instanceof JsonObject) {
        for (let slot = 0; slot < node.keys.length; slot++) {
          if (testFilter(segment.filter, node.values[slot], walk.root)) descend(walk, segments, i + 1, node.values[slot], node.keys[slot])
        }
      } else if (testFilter(segment.filter, node, walk.root)) visit(walk, segments, i + 1, node)
      return
  }
}

function descend(walk: Walk, segments: readonly Segment[], i: number, child: JsonValue, key: PathElement): void {
  if (walk.paths === null) {
    visit(walk, segments, i, child)
    return
  }
  walk.trail.push(key)
  visit(walk, segments, i, child)
  walk.trail.pop()
}

/** `..`: the rest of the path at every descendant, parents before children. */
function scan(walk: Walk, segments: readonly Segment[], i: number, node: JsonValue): void {
  if (Array.isArray(node)) {
    for (let at = 0; at < node.length; at++) scanChild(walk, segments, i, node[at], at)
  } else if (node instanceof JsonObject) {
    for (let slot = 0; slot < node.keys.length; slot++) scanChild(walk, segments, i, node.values[slot], node.keys[slot])
  }
}

function scanChild(walk: Walk, segments: readonly Segment[], i: number, child: JsonValue, key: PathElement): void {
  walk.trail.push(key)
  visit(walk, segments, i, child)
  scan(walk, segments, i, child)
  walk.trail.pop()
}

/** A filter operand that names no value, or several (RedisJSON's `TermEvaluationResult::Invalid`). */
const INVALID = Symbol('invalid')
type Operand = JsonValue | typeof INVALID

export function testFilter(filter: Filter, candidate: JsonValue, root: JsonValue): boolean {
  switch (filter.kind) {
    case 'or':
      for (const operand of filter.operands) if (testFilter(operand, candidate, root)) return true
      return false
    case 'and':
      for (const operand of filter.operands) if (!testFilter(operand, candidate, root)) return false
      return true
    case 'not':
      return !testFilter(filter.operand, candidate, root)
  }
  const left = operandValue(filter.left, candidate, root)
  if (filter.op === null || filter.right === null) return left !== INVALID
  const right = operandValue(filter.right, candidate, root)
  const leftFromDocument = filter.left.kind !== 'literal'
  const rightFromDocument = filter.right.kind !== 'literal'
  switch (filter.op) {
    case 'eq':
      return equal(left, leftFromDocument, right, rightFromDocument)
    case 'ne':
      return !equal(left, leftFromDocument, right, rightFromDocument)
    case 're': {
      // Only a document string on the left matches, against a literal or a document string.
      if (!leftFromDocument || typeof left !== 'string' || typeof right !== 'string') return false
      const pattern = filter.pattern !== undefined ? filter.pattern : rightFromDocument ? compileRustRegex(right) : null
      return pattern !== null && regexMatches(pattern, left)
    }
  }
  const order = compare(left, right)
  if (order === undefined) return false
  switch (filter.op) {
    case 'gt':
      return order > 0
    case 'ge':
      return order >= 0
    case 'lt':
      return order < 0
    default:
      return order <= 0
  }
}

function operandValue(term: Term, candidate: JsonValue, root: JsonValue): Operand {
  if (term.kind === 'literal') return term.value
  const start = term.kind === 'current' ? candidate : root
  const segments = term.segments
  if (segments.length === 0) return start
  let node: JsonValue = start
  let i = 0
  // Plain `@.a.b`: follow the keys without building a walk.
  for (; i < segments.length; i++) {
    const segment = segments[i]
    if (segment.kind !== 'key') break
    if (!(node instanceof JsonObject)) return INVALID
    const child = node.get(segment.key)
    if (child === undefined) return INVALID
    node = child
  }
  if (i === segments.length) return node
  const walk: Walk = { root, values: [], paths: null, trail: [] }
  visit(walk, segments, i, node)
  return walk.values.length === 1 ? walk.values[0] : INVALID
}

/** `==`: two document values compare structurally; otherwise as ordered scalars. */
function equal(left: Operand, leftFromDocument: boolean, right: Operand, rightFromDocument: boolean): boolean {
  if (left === INVALID || right === INVALID) return false
  if (leftFromDocument && rightFromDocument) return looseEquals(left, right)
  if (left === null || right === null) return left === right // the `null` literal (RedisJSON 8)
  return compare(left, right) === 0
}

/** Order of two comparable scalars (numbers, strings byte-wise, booleans), or undefined. */
function compare(left: Operand, right: Operand): number | undefined {
  if (isNumber(left) && isNumber(right)) {
    if (isJsonInteger(left) && isJsonInteger(right)) return left < right ? -1 : left > right ? 1 : 0
    const a = toDouble(left)
    const b = toDouble(right)
    return a > b ? 1 : a < b ? -1 : 0
  }
  if (typeof left === 'string' && typeof right === 'string') return left < right ? -1 : left > right ? 1 : 0
  if (typeof left === 'boolean' && typeof right === 'boolean') return Number(left) - Number(right)
  return undefined
}

function isNumber(value: Operand): value is number | bigint | JsonFloat {
  return typeof value === 'number' || typeof value === 'bigint' || value instanceof JsonFloat
}

/** ijson's `IValue ==`: numbers by value whatever their kind, containers recursively. */
function looseEquals(a: JsonValue, b: JsonValue): boolean {
  if (a === b) return true
  if (isNumber(a) && isNumber(b)) {
    return isJsonInteger(a) && isJsonInteger(b) ? integersEqual(a, b) : toDouble(a) === toDouble(b)
  }
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false
    for (let i = 0; i < a.length; i++) if (!looseEquals(a[i], b[i])) return false
    return true
  }
  if (a instanceof JsonObject) {
    if (!(b instanceof JsonObject) || a.size !== b.size) return false
    for (let i = 0; i < a.keys.length; i++) {
      const other = b.get(a.keys[i])
      if (other === undefined || !looseEquals(a.values[i], other)) return false
    }
    return true
  }
  return false
}
