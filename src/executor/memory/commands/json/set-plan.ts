import { ReplyError } from '../../../../reply.js'
import { JsonObject, cloneJson, type JsonDocument, type JsonValue } from '../../types/json.js'
import { compiled } from './access.js'
import { selectLocations, type PathElement } from '../../lib/json/evaluate.js'
import type { PathArgument } from '../../lib/json/path.js'
import { replaceAt, valueAt } from './update.js'

/**
 * Where JSON.SET, JSON.MSET and JSON.MERGE write (RedisJSON's `find_paths` / `find_add_paths`):
 * every existing match is replaced; when nothing matches (or NX asks for new members only), a
 * static path (names and single indexes only) may add one member to an existing object. An
 * index never adds: past the end is an error.
 */

export type SetCondition = 'always' | 'nx' | 'xx'

/** Replace the value at `path`, or add member `key` to the object at `parent`. */
export type SetUpdate =
  | { readonly kind: 'replace'; readonly path: PathElement[] }
  | { readonly kind: 'add'; readonly parent: PathElement[]; readonly key: string }

const WRONG_STATIC_PATH = new ReplyError('Err wrong static path')
const MUST_END_WITH_KEY = new ReplyError('Err path must end with object key to set')
const INDEX_OUT_OF_RANGE = new ReplyError('ERR array index out of range')

/** The writes `path` calls for in `document` (none: the reply is nil), or an error. */
export function planSet(document: JsonDocument, path: PathArgument, condition: SetCondition): SetUpdate[] | ReplyError {
  const query = compiled(path)
  if (query instanceof ReplyError) return query
  if (condition !== 'nx') {
    const found = selectLocations(query.segments, document.root).paths
    if (found.length > 0) return found.map((location) => ({ kind: 'replace', path: location }))
  }
  if (condition === 'xx') return []
  if (!query.isStatic) return WRONG_STATIC_PATH
  const segments = query.segments
  if (segments.length === 0) return MUST_END_WITH_KEY
  const last = segments[segments.length - 1]
  if (last.kind === 'key' || last.kind === 'keys') {
    const key = last.kind === 'key' ? last.key : last.keys[0]
    if (segments.length === 1) return [{ kind: 'add', parent: [], key }]
    const parents = selectLocations(segments.slice(0, -1), document.root).paths
    return parents.map((parent) => ({ kind: 'add', parent, key }))
  }
  // A trailing index: either past the end, or present and NX declines to replace it.
  return selectLocations(segments, document.root).paths.length === 0 ? INDEX_OUT_OF_RANGE : []
}

/** Adds member `key` to the object at `parent` when it has none; false otherwise. */
export function addMember(document: JsonDocument, parent: readonly PathElement[], key: string, value: JsonValue): boolean {
  const target = valueAt(document, parent)
  if (!(target instanceof JsonObject) || target.has(key)) return false
  target.set(key, value)
  return true
}

/**
 * Applies JSON.SET's writes. The reply follows RedisJSON's `apply_updates`, which keeps the
 * outcome of the *last* write: OK, or nil when that one found nothing (an earlier write of the
 * same command replaced its parent).
 */
export function applySet(document: JsonDocument, updates: readonly SetUpdate[], value: JsonValue): boolean {
  let written = false
  for (let i = 0; i < updates.length; i++) {
    const update = updates[i]
    const copy = i === updates.length - 1 ? value : cloneJson(value)
    written = update.kind === 'replace' ? replaceAt(document, update.path, copy) : addMember(document, update.parent, update.key, copy)
  }
  return written
}
