/**
 * Where a command runs in a cluster, decided from the command table: the key specifications give
 * the keys and so the slot, and the command tips (`request_policy`, `response_policy`) say which
 * keyless commands speak for the whole cluster and how their replies combine.
 *
 */

import { ReplyError, type Arg, type Command } from '../../reply.js'
import { commandKeys, resolveCommand, type CommandInfo } from '../../commands/lookup.js'
import { keySlot } from './slot.js'

/** How the replies of a command sent to several nodes become one reply (`response_policy`). */
export type Combine = 'all_succeeded' | 'one_succeeded' | 'agg_sum' | 'agg_min' | 'agg_max' | 'agg_logical_and' | 'agg_logical_or' | 'concat'

/** Multi-key commands that run as one command per slot, their replies put back together. */
export type Split = 'mget' | 'mset' | 'sum'

export type Route =
  /** Every key hashes to this slot; runs on the slot's node. */
  | { readonly kind: 'slot'; readonly slot: number; readonly readOnly: boolean; readonly publish?: 'channel' | 'shard' }
  /** No key: any master answers. */
  | { readonly kind: 'keyless'; readonly readOnly: boolean }
  /** The command speaks for the whole cluster: every master (or every node), replies combined. */
  | { readonly kind: 'fanout'; readonly nodes: 'masters' | 'all'; readonly combine: Combine }
  /** Keys in several slots, split into one command per slot. */
  | { readonly kind: 'split'; readonly split: Split; readonly keys: readonly number[] }
  /** Commands with an answer of their own on a cluster. */
  | { readonly kind: 'scan' | 'randomkey' | 'info' }
  /** Refused before it is sent (`CROSSSLOT`). */
  | { readonly kind: 'refused'; readonly error: ReplyError }

/** Redis's own text for keys in several slots. */
export const CROSSSLOT = new ReplyError("CROSSSLOT Keys in request don't hash to the same slot")

/**
 * The multi-key commands split per slot when their keys span slots, and how their replies
 * combine: MGET's values in key order, MSET's OK, and the counts of DEL, UNLINK, EXISTS and
 * TOUCH summed. Each part is atomic on its own node, the whole is not. Every other multi-key
 * command (MSETNX, RENAME, SUNIONSTORE, EVAL …) answers CROSSSLOT, as Redis does.
 */
const SPLITS: ReadonlyMap<string, Split> = new Map<string, Split>([
  ['mget', 'mget'],
  ['mset', 'mset'],
  ['del', 'sum'],
  ['unlink', 'sum'],
  ['exists', 'sum'],
  ['touch', 'sum'],
])

/** Cluster-wide commands whose answer is not a plain combination of the nodes' replies. */
const SPECIAL: ReadonlyMap<string, 'scan' | 'randomkey' | 'info'> = new Map([
  ['scan', 'scan'],
  ['randomkey', 'randomkey'],
  ['info', 'info'],
])

/**
 * Keyless commands that the table sends to every shard but that mean the same on any node:
 * PING checks the connection; WAIT counts the replicas of the connection it runs on.
 */
const ONE_NODE_ENOUGH: ReadonlySet<string> = new Set(['ping', 'wait'])

/**
 * Keyless commands the table gives no request policy but whose effect must reach every node:
 * each node of a cluster keeps its own ACL users.
 */
const EVERY_NODE: ReadonlyMap<string, Combine> = new Map<string, Combine>([
  ['acl|setuser', 'all_succeeded'],
  ['acl|deluser', 'all_succeeded'],
  ['acl|load', 'all_succeeded'],
  ['acl|save', 'all_succeeded'],
])

const COMBINES: ReadonlySet<string> = new Set(['all_succeeded', 'one_succeeded', 'agg_sum', 'agg_min', 'agg_max', 'agg_logical_and', 'agg_logical_or'])

/** The tip value of `name:` (`request_policy` → `all_shards`), or undefined. */
function tip(info: CommandInfo, name: string): string | undefined {
  for (const entry of info.tips) if (entry.startsWith(`${name}:`)) return entry.slice(name.length + 1)
  return undefined
}

function fanout(info: CommandInfo): Route | undefined {
  const everyNode = EVERY_NODE.get(info.name)
  if (everyNode !== undefined) return { kind: 'fanout', nodes: 'all', combine: everyNode }
  const request = tip(info, 'request_policy')
  if (request !== 'all_shards' && request !== 'all_nodes') return undefined
  const response = tip(info, 'response_policy')
  // `special` replies (MEMORY STATS, LATENCY DOCTOR …) have no general combination: one node answers.
  if (response === 'special') return undefined
  const combine: Combine = response !== undefined && COMBINES.has(response) ? (response as Combine) : 'concat'
  return { kind: 'fanout', nodes: request === 'all_nodes' ? 'all' : 'masters', combine }
}

/** Where `command` runs. `info` is its table entry (undefined for a command the table lacks). */
export function route(command: Command, info: CommandInfo | undefined = resolveCommand(command)): Route {
  if (info === undefined) return { kind: 'keyless', readOnly: false }
  const readOnly = info.flags.has('readonly')
  const root = info.parent?.name ?? info.name
  if (root === 'publish' && command.length === 3) return { kind: 'slot', slot: keySlot(command[1]), readOnly: false, publish: 'channel' }
  if (root === 'spublish' && command.length === 3) return { kind: 'slot', slot: keySlot(command[1]), readOnly: false, publish: 'shard' }
  const keys = commandKeys(command, info)
  if (keys.length === 0) {
    const special = SPECIAL.get(info.name)
    if (special !== undefined) return { kind: special }
    if (!ONE_NODE_ENOUGH.has(info.name)) {
      const wide = fanout(info)
      if (wide !== undefined) return wide
    }
    return { kind: 'keyless', readOnly }
  }
  const slot = keySlot(command[keys[0]])
  for (let i = 1; i < keys.length; i++) {
    if (keySlot(command[keys[i]]) === slot) continue
    const split = SPLITS.get(info.name)
    return split === undefined ? { kind: 'refused', error: CROSSSLOT } : { kind: 'split', split, keys }
  }
  return { kind: 'slot', slot, readOnly }
}

/**
 * The slot shared by every keyed command of a transaction, `undefined` for none, or the refusal:
 * CROSSSLOT, or a cluster-wide command, which a transaction on one node cannot run for the whole
 * cluster.
 */
export function transactionSlot(commands: readonly Command[]): number | undefined | ReplyError {
  let slot: number | undefined
  for (const command of commands) {
    const info = resolveCommand(command)
    if (info === undefined) continue
    const kind = route(command, info).kind
    if (kind === 'fanout' || kind === 'scan' || kind === 'info' || kind === 'randomkey') {
      return new ReplyError(`ERR '${info.name}' speaks for the whole cluster and cannot run in a transaction on a cluster`)
    }
    const root = info.parent?.name ?? info.name
    // A shard channel routes like a key (Redis checks it); PUBLISH's channel does not constrain.
    const keys: readonly Arg[] = root === 'spublish' ? command.slice(1, 2) : commandKeys(command, info).map((at) => command[at])
    for (const key of keys) {
      const next = keySlot(key)
      if (slot === undefined) slot = next
      else if (slot !== next) return CROSSSLOT
    }
  }
  return slot
}
