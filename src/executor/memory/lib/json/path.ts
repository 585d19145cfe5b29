import { JsonFloat, type JsonValue } from '../../types/json.js'
import { parseJsonPath } from './grammar.js'
import type { ParseNode } from './peg.js'
import { compileRustRegex } from './regex.js'

/**
 * Paths as RedisJSON 2.x reads them: a JSONPath (`$…`) or a legacy path (anything else, turned
 * into a JSONPath by RedisJSON's `Path::new`), compiled once into segments and cached.
 */

/** One step of a compiled path. Index and range bounds are as written (negatives count from the end). */
export type Segment =
  | { readonly kind: 'key'; readonly key: string }
  | { readonly kind: 'keys'; readonly keys: readonly string[] }
  | { readonly kind: 'indexes'; readonly indexes: readonly number[] }
  | { readonly kind: 'range'; readonly start: number | null; readonly end: number | null; readonly step: number }
  | { readonly kind: 'all' }
  | { readonly kind: 'scan' }
  | { readonly kind: 'filter'; readonly filter: Filter }

export type Operator = 'gt' | 'ge' | 'lt' | 'le' | 'eq' | 'ne' | 're'

/** A filter operand: `@…` (the candidate), `$…` (the document) or a literal. */
export type Term =
  | { readonly kind: 'current'; readonly segments: readonly Segment[] }
  | { readonly kind: 'root'; readonly segments: readonly Segment[] }
  | { readonly kind: 'literal'; readonly value: JsonValue }

/** `[?(…)]`: `&&` binds tighter than `||` (RedisJSON's evaluator, 2.x and later), `!` tightest. */
export type Filter =
  | { readonly kind: 'or'; readonly operands: readonly Filter[] }
  | { readonly kind: 'and'; readonly operands: readonly Filter[] }
  | { readonly kind: 'not'; readonly operand: Filter }
  | {
      readonly kind: 'test'
      readonly left: Term
      readonly op: Operator | null
      readonly right: Term | null
      /** For `=~` against a literal: the pattern compiled once (null when invalid). */
      readonly pattern?: RegExp | null
    }

export interface CompiledPath {
  readonly segments: readonly Segment[]
  /** RedisJSON's `is_static`: only names and single indexes, so at most one location. */
  readonly isStatic: boolean
}

/** A path argument: what the client wrote and the JSONPath it stands for. */
export interface PathArgument {
  readonly original: string
  /** The JSONPath evaluated (the original when it starts with `$`). */
  readonly path: string
  /** A legacy path answers a single value (the first match) and errors where JSONPath answers nil. */
  readonly legacy: boolean
}

/** The legacy root `.`, every command's default path. */
export const LEGACY_ROOT: PathArgument = { original: '.', path: '$', legacy: true }

/**
 * RedisJSON's `Path::new` (2.6+): `$`, `$.…` and `$[…` are JSONPath; anything else is legacy,
 * made a JSONPath by prefixing: `.` is `$`, `.a` is `$.a`, `a.b` and `$a` are `$.a.b` and `$.$a`.
 */
export function pathArgument(original: string): PathArgument {
  const second = original.charCodeAt(1)
  if (original.charCodeAt(0) === 36 /* $ */ && (original.length < 2 || second === 46 /* . */ || second === 91 /* [ */)) {
    return { original, path: original, legacy: false }
  }
  const path = original === '.' ? '$' : original.charCodeAt(0) === 46 /* . */ ? '$' + original : '$.' + original
  return { original, path, legacy: true }
}

/** True for `$` and `.`, which JSON.SET / DEL / MERGE treat as "the whole document". */
export function isRootPath(path: PathArgument): boolean {
  return path.path === '$'
}

const CACHE_LIMIT = 1024
const cache = new Map<string, CompiledPath | string>()

/** The compiled JSONPath, or RedisJSON's compilation error text (sent without an `ERR` prefix). */
export function compilePath(path: string): CompiledPath | string {
  let compiled = cache.get(path)
  if (compiled !== undefined) return compiled
  const nodes = parseJsonPath(path)
  if (typeof nodes === 'string') compiled = nodes
  else {
    const segments = nodes.map((node) => segment(path, node))
    compiled = { segments, isStatic: segments.every(isStaticSegment) }
  }
  if (cache.size >= CACHE_LIMIT) cache.clear()
  cache.set(path, compiled)
  return compiled
}

function isStaticSegment(segment: Segment): boolean {
  return (
    segment.kind === 'key' ||
    (segment.kind === 'keys' && segment.keys.length === 1) ||
    (segment.kind === 'indexes' && segment.indexes.length === 1)
  )
}

function tokenText(path: string, node: ParseNode): string {
  return path.slice(node.start, node.end)
}

function segment(path: string, node: ParseNode): Segment {
  switch (node.rule) {
    case 'literal':
      return { kind: 'key', key: tokenText(path, node) }
    case 'string_list':
      return { kind: 'keys', keys: node.children.map((child) => stringValue(path, child)) }
    case 'numbers_list':
      return { kind: 'indexes', indexes: node.children.map((child) => Number(tokenText(path, child))) }
    case 'numbers_range':
      return range(path, node.children[0])
    case 'all':
      return { kind: 'all' }
    case 'full_scan':
      return { kind: 'scan' }
    case 'filter':
      return { kind: 'filter', filter: filter(path, node) }
  }
  throw new Error(`unexpected path token ${node.rule}`)
}

/** `[start:end:step]` in its four spellings; a missing bound means the array's start / end. */
function range(path: string, node: ParseNode): Segment {
  const numbers = node.children.map((child) => Number(tokenText(path, child)))
  const hasStep = node.children.length > 0 && node.children[node.children.length - 1].rule === 'pos_number'
  const step = hasStep ? numbers[numbers.length - 1] : 1
  switch (node.rule) {
    case 'full_range':
      return { kind: 'range', start: numbers[0], end: numbers[1], step }
    case 'left_range':
      return { kind: 'range', start: numbers[0], end: null, step }
    case 'right_range':
      return { kind: 'range', start: null, end: numbers[0], step }
    default:
      return { kind: 'range', start: null, end: null, step }
  }
}

/** A quoted string's content: `'…'`/`"…"` verbatim, or with `\\` and the quote unescaped. */
function stringValue(path: string, node: ParseNode): string {
  const raw = tokenText(path, node)
  if (node.rule === 'string_value') return raw
  const quote = node.rule === 'string_value_escape_1' ? '"' : "'"
  let out = ''
  for (let i = 0; i < raw.length; i++) {
    const char = raw[i]
    if (char === '\\' && (raw[i + 1] === '\\' || raw[i + 1] === quote)) out += raw[++i]
    else out += char
  }
  return out
}

/** `filter = { inner_filter ~ (relation ~ inner_filter)* }`, grouped as ORs of ANDs. */
function filter(path: string, node: ParseNode): Filter {
  const groups: Filter[][] = [[]]
  for (const child of node.children) {
    if (child.rule === 'or') groups.push([])
    else if (child.rule !== 'and') groups[groups.length - 1].push(operand(path, child))
  }
  const ands = groups.map((group): Filter => (group.length === 1 ? group[0] : { kind: 'and', operands: group }))
  return ands.length === 1 ? ands[0] : { kind: 'or', operands: ands }
}

function operand(path: string, node: ParseNode): Filter {
  switch (node.rule) {
    case 'filter':
      return filter(path, node)
    case 'negation':
      return { kind: 'not', operand: operand(path, node.children[0]) }
  }
  // single_filter: term (op term)?
  const [leftNode, opNode, rightNode] = node.children
  const left = term(path, leftNode)
  if (opNode === undefined) return { kind: 'test', left, op: null, right: null }
  const op = opNode.rule as Operator
  const right = term(path, rightNode)
  if (op === 're' && right.kind === 'literal' && typeof right.value === 'string') {
    return { kind: 'test', left, op, right, pattern: compileRustRegex(right.value) }
  }
  return { kind: 'test', left, op, right }
}

function term(path: string, node: ParseNode): Term {
  switch (node.rule) {
    case 'from_current':
      return { kind: 'current', segments: node.children.length === 0 ? [] : node.children[0].children.map((n) => segment(path, n)) }
    case 'from_root':
      return { kind: 'root', segments: node.children.length === 0 ? [] : node.children[0].children.map((n) => segment(path, n)) }
    case 'decimal':
      return { kind: 'literal', value: decimal(tokenText(path, node)) }
    case 'boolean_true':
      return { kind: 'literal', value: true }
    case 'boolean_false':
      return { kind: 'literal', value: false }
    case 'null':
      return { kind: 'literal', value: null }
  }
  return { kind: 'literal', value: stringValue(path, node) }
}

/** A filter number: an i64 when it reads as one (Rust's `parse::<i64>`), a float otherwise. */
function decimal(lexeme: string): JsonValue {
  if (lexeme.includes('.')) return new JsonFloat(Number(lexeme))
  const value = BigInt(lexeme)
  if (value >= -(2n ** 63n) && value < 2n ** 63n) return Number.isSafeInteger(Number(value)) ? Number(value) : value
  return new JsonFloat(Number(lexeme))
}
