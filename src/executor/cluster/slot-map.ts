/**
 * Which node serves which slot: the cluster's shards (a master and its replicas) and, per slot,
 * the shard that owns it. Built from `CLUSTER SHARDS` (Redis 7) or, on servers without it, from
 * `CLUSTER SLOTS`; patched slot by slot when a `MOVED` redirection says a slot moved.
 *
 */

import { ReplyError, type Reply } from '../../reply.js'
import { asBuffer } from '../../resp/protocol.js'
import { SLOT_COUNT } from './slot.js'

/** `host:port` of a node, as MOVED and ASK redirections name it. */
export type NodeAddress = string

/** A master and the replicas that serve its slots. */
export interface Shard {
  readonly master: NodeAddress
  /** Replicas that are up, for reads when the executor reads from replicas. */
  readonly replicas: readonly NodeAddress[]
}

const NO_SHARD = -1

function text(reply: Reply | undefined): string | undefined {
  return reply instanceof Uint8Array ? asBuffer(reply).toString('utf8') : undefined
}

function integer(reply: Reply | undefined): number | undefined {
  if (typeof reply === 'number') return reply
  if (typeof reply === 'bigint') return Number(reply)
  return undefined
}

/** A `key value key value …` array as a map of its text keys. */
function fields(reply: Reply | undefined): Map<string, Reply> {
  const map = new Map<string, Reply>()
  if (!Array.isArray(reply)) return map
  for (let i = 0; i + 1 < reply.length; i += 2) {
    const key = text(reply[i] as Reply)
    if (key !== undefined) map.set(key, reply[i + 1] as Reply)
  }
  return map
}

/** Formats an address; IPv6 hosts stay bare, as Redis writes them in redirections. */
export function address(host: string, port: number): NodeAddress {
  return `${host}:${port}`
}

/** Splits `host:port` at the last colon (IPv6 hosts contain colons). */
export function parseAddress(node: NodeAddress): { host: string; port: number } {
  const at = node.lastIndexOf(':')
  return { host: node.slice(0, at), port: Number(node.slice(at + 1)) }
}

/**
 * The host a node announces, or the host we asked when it announces none: Redis reports an
 * empty or `?` endpoint when it does not know how it is reached.
 */
function announcedHost(endpoint: string | undefined, fallback: string): string {
  return endpoint === undefined || endpoint === '' || endpoint === '?' ? fallback : endpoint
}

export class SlotMap {
  readonly #shards: Shard[]
  readonly #owner: Int32Array

  private constructor(shards: Shard[], owner: Int32Array) {
    this.#shards = shards
    this.#owner = owner
  }

  /** An empty map: every slot unknown. */
  static empty(): SlotMap {
    return new SlotMap([], new Int32Array(SLOT_COUNT).fill(NO_SHARD))
  }

  /**
   * From a `CLUSTER SHARDS` reply, asked of the node at `askedHost`. A shard's master is its
   * node of role `master` that is not failed (a failed one only while no replica took over).
   */
  static fromShards(reply: Reply, askedHost: string): SlotMap | ReplyError {
    if (reply instanceof ReplyError) return reply
    if (!Array.isArray(reply)) return new ReplyError('ERR unexpected CLUSTER SHARDS reply')
    const map = SlotMap.empty()
    for (const entry of reply as readonly Reply[]) {
      const shard = fields(entry)
      const slots = shard.get('slots')
      const nodes = shard.get('nodes')
      if (!Array.isArray(slots) || slots.length === 0 || !Array.isArray(nodes)) continue
      const described = (nodes as readonly Reply[]).map((node) => {
        const info = fields(node)
        const host = announcedHost(text(info.get('endpoint')) ?? text(info.get('ip')), askedHost)
        return { at: address(host, integer(info.get('port')) ?? 0), role: text(info.get('role')), health: text(info.get('health')) }
      })
      const masters = described.filter((node) => node.role === 'master')
      const master = masters.find((node) => node.health !== 'fail') ?? masters[0]
      if (master === undefined) continue
      // Redis 7.0 reports a replica `loading` until its replication offset moves off 0, even when
      // it is in sync: only `fail` excludes one (a replica still loading answers LOADING, and the
      // read goes to the master).
      const replicas = described.filter((node) => node.role !== 'master' && node.health !== 'fail').map((node) => node.at)
      const ranges: [number, number][] = []
      for (let i = 0; i + 1 < slots.length; i += 2) ranges.push([integer(slots[i] as Reply) ?? 0, integer(slots[i + 1] as Reply) ?? -1])
      map.#assign({ master: master.at, replicas }, ranges)
    }
    return map
  }

  /** From a `CLUSTER SLOTS` reply: `[start, end, master, replica…]` per range, node as `[ip, port, …]`. */
  static fromSlots(reply: Reply, askedHost: string): SlotMap | ReplyError {
    if (reply instanceof ReplyError) return reply
    if (!Array.isArray(reply)) return new ReplyError('ERR unexpected CLUSTER SLOTS reply')
    const map = SlotMap.empty()
    for (const range of reply as readonly Reply[]) {
      if (!Array.isArray(range) || range.length < 3) continue
      const nodes = (range.slice(2) as readonly Reply[]).map((node) => {
        const parts = Array.isArray(node) ? (node as readonly Reply[]) : []
        return address(announcedHost(text(parts[0]), askedHost), integer(parts[1]) ?? 0)
      })
      map.#assign({ master: nodes[0], replicas: nodes.slice(1) }, [[integer(range[0] as Reply) ?? 0, integer(range[1] as Reply) ?? -1]])
    }
    return map
  }

  /** Gives `ranges` to the shard of `shard.master`, merging with what it already has. */
  #assign(shard: Shard, ranges: readonly (readonly [number, number])[]): void {
    let index = this.#shards.findIndex((known) => known.master === shard.master)
    if (index === -1) index = this.#shards.push(shard) - 1
    for (const [start, end] of ranges) {
      for (let slot = Math.max(0, start); slot <= Math.min(end, SLOT_COUNT - 1); slot++) this.#owner[slot] = index
    }
  }

  /** The shard serving `slot`, if known. */
  shard(slot: number): Shard | undefined {
    const index = this.#owner[slot]
    return index === NO_SHARD ? undefined : this.#shards[index]
  }

  /** Whether every slot has an owner. */
  get complete(): boolean {
    return !this.#owner.includes(NO_SHARD)
  }

  /**
   * Masters that own at least one slot, ordered by the lowest slot they own: the order SCAN's
   * cursor walks them in, stable as long as the first slot of each master stays where it is.
   */
  masters(): NodeAddress[] {
    const order: NodeAddress[] = []
    const seen = new Set<number>()
    for (let slot = 0; slot < SLOT_COUNT; slot++) {
      const index = this.#owner[slot]
      if (index === NO_SHARD || seen.has(index)) continue
      seen.add(index)
      order.push(this.#shards[index].master)
    }
    return order
  }

  /** Every node named by the map, masters first. */
  nodes(): NodeAddress[] {
    const masters = this.masters()
    const replicas = this.#shards.flatMap((shard) => (masters.includes(shard.master) ? shard.replicas : []))
    return [...masters, ...replicas]
  }

  /** `MOVED <slot> <node>`: the slot is now served by `node`, a master (a new shard if unknown). */
  moved(slot: number, node: NodeAddress): void {
    let index = this.#shards.findIndex((shard) => shard.master === node)
    if (index === -1) {
      // A replica promoted since the last refresh: it serves alone until the next refresh says more.
      index = this.#shards.push({ master: node, replicas: [] }) - 1
    }
    this.#owner[slot] = index
  }
}
