/**
 * The command table: metadata of every Redis command (generated from a real server), lookups,
 * key positions, Redis's own classifications, and `COMMAND INFO` / `COMMAND DOCS` replies.
 *
 * @packageDocumentation
 */

export * from './lookup.js'
export * from './introspection.js'
export type * from './types.js'
export { ACL_CATEGORIES } from './table.js'
