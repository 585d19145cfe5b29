import { JsonObject, cloneJson, type JsonDocument, type JsonValue } from '../../types/json.js'
import type { PathElement } from '../../lib/json/evaluate.js'

/**
 * Writes at concrete locations, as RedisJSON's `update` / `replace` do: each write walks its path
 * again from the root, so a location that an earlier write of the same command removed or moved
 * is simply skipped.
 */

/** Where the value at a location lives: its container and its key there. */
interface Slot {
  readonly container: JsonValue[] | JsonObject
  readonly key: PathElement
}

function child(node: JsonValue, key: PathElement): JsonValue | undefined {
  if (node instanceof JsonObject) return typeof key === 'string' ? node.get(key) : undefined
  if (Array.isArray(node) && typeof key === 'number') return key < node.length ? node[key] : undefined
  return undefined
}

/** The slot of the value at `path` (not the root), or undefined when nothing is there now. */
function slotAt(root: JsonValue, path: readonly PathElement[]): Slot | undefined {
  let node = root
  for (let i = 0; i < path.length - 1; i++) {
    const next = child(node, path[i])
    if (next === undefined) return undefined
    node = next
  }
  const key = path[path.length - 1]
  if (child(node, key) === undefined) return undefined
  return { container: node as JsonValue[] | JsonObject, key }
}

/** The value at `path` now, or undefined. */
export function valueAt(document: JsonDocument, path: readonly PathElement[]): JsonValue | undefined {
  let node: JsonValue = document.root
  for (const key of path) {
    const next = child(node, key)
    if (next === undefined) return undefined
    node = next
  }
  return node
}

/** Replaces the value at `path` (the root for an empty path); false when nothing is there. */
export function replaceAt(document: JsonDocument, path: readonly PathElement[], value: JsonValue): boolean {
  if (path.length === 0) {
    document.root = value
    return true
  }
  const slot = slotAt(document.root, path)
  if (slot === undefined) return false
  if (slot.container instanceof JsonObject) slot.container.set(slot.key as string, value)
  else slot.container[slot.key as number] = value
  return true
}

/** Removes the value at `path` (never the root); false when nothing is there. */
export function deleteAt(document: JsonDocument, path: readonly PathElement[]): boolean {
  if (path.length === 0) return false
  const slot = slotAt(document.root, path)
  if (slot === undefined) return false
  if (slot.container instanceof JsonObject) slot.container.delete(slot.key as string)
  else slot.container.splice(slot.key as number, 1)
  return true
}

const USIZE = /^\+?[0-9]+$/

/** A path element as Rust's `parse::<usize>()` sees the string RedisJSON keeps it as. */
function asIndex(element: PathElement): number | undefined {
  if (typeof element === 'number') return element
  return USIZE.test(element) ? Number(element) : undefined
}

/**
 * RedisJSON's `prepare_paths_for_updating` (JSON.DEL): longer paths first and higher indexes
 * before lower ones in the same array, so earlier deletions do not shift later targets; a path
 * under another one of the set is dropped (deleting the ancestor removes it).
 */
export function orderForDeletion(paths: PathElement[][]): PathElement[][] {
  if (paths.length < 2) return paths
  paths.sort(comparePaths)
  const encoded = new Set(paths.map(encodePath))
  return paths.filter((path) => {
    for (let length = path.length - 1; length >= 0; length--) if (encoded.has(encodePath(path.slice(0, length)))) return false
    return true
  })
}

function comparePaths(a: readonly PathElement[], b: readonly PathElement[]): number {
  const length = Math.max(a.length, b.length)
  for (let i = 0; i < length; i++) {
    if (i >= b.length) return -1 // longer paths first
    if (i >= a.length) return 1
    const x = asIndex(a[i])
    const y = asIndex(b[i])
    if (x === undefined && y === undefined) {
      const p = String(a[i])
      const q = String(b[i])
      if (p !== q) return p < q ? -1 : 1
    } else if (x === undefined) return -1 // keys before indexes
    else if (y === undefined) return 1
    else if (x !== y) return y - x // higher indexes first
  }
  return 0
}

/** An unambiguous text for a path (keys length-prefixed), for set lookups. */
function encodePath(path: readonly PathElement[]): string {
  let out = ''
  for (const element of path) out += typeof element === 'number' ? `#${element};` : `$${element.length}:${element}`
  return out
}

/**
 * RedisJSON's merge (JSON.MERGE, after RFC 7396): a non-object patch replaces the target; an
 * object patch turns the target into an object, removes the members it sets to `null` (ijson
 * moves the last member into the hole), merges the others recursively and appends new ones.
 * Returns the merged value; `target` is changed in place when it is an object.
 */
export function mergePatch(target: JsonValue, patch: JsonValue): JsonValue {
  if (!(patch instanceof JsonObject)) return cloneJson(patch)
  const object = target instanceof JsonObject ? target : new JsonObject()
  for (let i = 0; i < patch.keys.length; i++) {
    const key = patch.keys[i]
    const value = patch.values[i]
    if (value === null) object.delete(key)
    else object.set(key, mergePatch(object.get(key) ?? null, value))
  }
  return object
}
