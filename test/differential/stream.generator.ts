/**
 * Random stream commands, two ways:
 *
 * - {@link streamSpecs}: the stream family's catalogue for the shared random generator
 *   (`generator.ts`, `random.test.ts`): commands over its shared key space whose replies are
 *   deterministic (explicit IDs, never `*`; min-idle times of 0 or an hour; XPENDING's summary and
 *   XINFO STREAM / GROUPS, which carry no time).
 * - {@link streamSequence}: seeded sequences focused on streams (`stream.sequences.test.ts`):
 *   growing IDs on a few keys, small node limits so that trimming, deletions and node boundaries
 *   meet, consumer groups with XREADGROUP / XACK / XCLAIM / XAUTOCLAIM mixes, checked through
 *   XINFO (including the time-bearing forms, compared under the timing relaxations).
 */
import type { Command } from '../../src/reply.js'
import type { CommandSpec, Draw } from './generator.js'
import { Random } from './random-source.js'

// ---- catalogue for the shared random generator ----

/** IDs over the shared key space: small, so they collide with each other and with the trims. */
const CATALOGUE_IDS: readonly string[] = ['1-1', '1-2', '2-0', '3', '5-5', '5-*', '10-1', '0-1', '0-0', '7-7', '18446744073709551615-18446744073709551615', 'x']
const CATALOGUE_BOUNDS: readonly string[] = ['-', '+', '0', '1', '(1-1', '2-0', '(5-5', '10', '3-0']
const GROUP_NAMES: readonly string[] = ['g1', 'g2']
const CONSUMER_NAMES: readonly string[] = ['c1', 'c2', 'c3']

const stream = (name: string, build: CommandSpec['build'], weight = 1): CommandSpec => ({ family: 'stream', name, build, weight })

/** Optional trimming for XADD / the strategy of XTRIM. */
function trimArgs(d: Draw, required: boolean): string[] {
  if (!required && !d.chance(0.25)) return []
  const strategy = d.pick(['MAXLEN', 'MINID'])
  const modifier = d.pick(['', '=', '~'])
  const threshold = strategy === 'MAXLEN' ? d.pick(['0', '1', '2', '5', '-1']) : d.pick(['2-0', '5', '0', '+'])
  const out = [strategy, ...(modifier === '' ? [] : [modifier]), threshold]
  if (d.chance(0.15)) out.push('LIMIT', d.pick(['0', '1', '100', '-1']))
  return out
}

/** The stream family's specs for `generator.ts`'s CATALOGUE. */
export function streamSpecs(): CommandSpec[] {
  return [
    stream('xadd', (d) => ['XADD', d.key(), ...d.maybe(0.1, 'NOMKSTREAM'), ...trimArgs(d, false), d.pick(CATALOGUE_IDS), d.field(), d.value(), ...d.maybe(0.3, d.field(), d.value())], 4),
    stream('xlen', (d) => ['XLEN', d.key()]),
    stream('xrange', (d) => ['XRANGE', d.key(), d.pick(CATALOGUE_BOUNDS), d.pick(CATALOGUE_BOUNDS), ...d.maybe(0.3, 'COUNT', d.pick(['0', '1', '2', '-1']))]),
    stream('xrevrange', (d) => ['XREVRANGE', d.key(), d.pick(CATALOGUE_BOUNDS), d.pick(CATALOGUE_BOUNDS), ...d.maybe(0.3, 'COUNT', d.pick(['1', '3']))]),
    stream('xdel', (d) => ['XDEL', d.key(), d.pick(CATALOGUE_IDS), ...d.maybe(0.3, d.pick(CATALOGUE_IDS))]),
    stream('xtrim', (d) => ['XTRIM', d.key(), ...trimArgs(d, true)]),
    stream('xread', (d) => {
      const keys = d.chance(0.3) ? [d.key(), d.key()] : [d.key()]
      return ['XREAD', ...d.maybe(0.3, 'COUNT', d.pick(['1', '2'])), 'STREAMS', ...keys, ...keys.map(() => d.pick(['0', '1-1', '$', '5']))]
    }),
    stream('xsetid', (d) => ['XSETID', d.key(), d.pick(['10-1', '20', '0-0', '5-5']), ...d.maybe(0.3, 'ENTRIESADDED', d.pick(['0', '10', '100'])), ...d.maybe(0.2, 'MAXDELETEDID', d.pick(['0-0', '1-1', '9-9']))], 0.5),
    stream('xgroup|create', (d) => ['XGROUP', 'CREATE', d.key(), d.pick(GROUP_NAMES), d.pick(['0', '$', '2-0', '10-1']), ...d.maybe(0.4, 'MKSTREAM'), ...d.maybe(0.2, 'ENTRIESREAD', d.pick(['0', '2', '-1', '-2']))]),
    stream('xgroup|setid', (d) => ['XGROUP', 'SETID', d.key(), d.pick(GROUP_NAMES), d.pick(['0', '$', '-', '+', '3']), ...d.maybe(0.2, 'ENTRIESREAD', d.pick(['0', '3']))], 0.5),
    stream('xgroup|destroy', (d) => ['XGROUP', 'DESTROY', d.key(), d.pick(GROUP_NAMES)], 0.3),
    stream('xgroup|createconsumer', (d) => ['XGROUP', 'CREATECONSUMER', d.key(), d.pick(GROUP_NAMES), d.pick(CONSUMER_NAMES)], 0.3),
    stream('xgroup|delconsumer', (d) => ['XGROUP', 'DELCONSUMER', d.key(), d.pick(GROUP_NAMES), d.pick(CONSUMER_NAMES)], 0.3),
    stream('xreadgroup', (d) => [
      'XREADGROUP', 'GROUP', d.pick(GROUP_NAMES), d.pick(CONSUMER_NAMES), ...d.maybe(0.3, 'COUNT', d.pick(['1', '2'])), ...d.maybe(0.2, 'NOACK'),
      'STREAMS', d.key(), d.pick(['>', '>', '0', '2-0']),
    ], 2),
    stream('xack', (d) => ['XACK', d.key(), d.pick(GROUP_NAMES), d.pick(CATALOGUE_IDS), ...d.maybe(0.3, d.pick(CATALOGUE_IDS))]),
    stream('xclaim', (d) => [
      'XCLAIM', d.key(), d.pick(GROUP_NAMES), d.pick(CONSUMER_NAMES), d.pick(['0', '3600000']), d.pick(CATALOGUE_IDS),
      ...d.maybe(0.3, 'FORCE'), ...d.maybe(0.4, 'JUSTID'), ...d.maybe(0.2, 'RETRYCOUNT', d.pick(['0', '5'])), ...d.maybe(0.1, 'LASTID', d.pick(['9-9', '1-1'])),
    ]),
    stream('xautoclaim', (d) => ['XAUTOCLAIM', d.key(), d.pick(GROUP_NAMES), d.pick(CONSUMER_NAMES), d.pick(['0', '3600000']), d.pick(['0', '-', '(1-1', '5']), ...d.maybe(0.4, 'COUNT', d.pick(['1', '2', '0'])), ...d.maybe(0.4, 'JUSTID')]),
    stream('xpending', (d) => ['XPENDING', d.key(), d.pick(GROUP_NAMES)]),
    stream('xinfo|stream', (d) => ['XINFO', 'STREAM', d.key()], 0.5),
    stream('xinfo|groups', (d) => ['XINFO', 'GROUPS', d.key()], 0.5),
  ]
}

// ---- focused sequences ----

const SEQUENCE_KEYS = ['s1', 's2', 's3'] as const
const FIELD_NAMES: readonly string[] = ['f', 'g', 'name', 'n', '1', '']
const GROUPS: readonly string[] = ['g1', 'g2']
const CONSUMERS: readonly string[] = ['alice', 'bob', 'carol']

/** A value: mostly short, sometimes an integer (stored as one by listpacks) or long. */
function value(random: Random): string {
  const kind = random.int(0, 9)
  if (kind < 4) return `v${random.int(0, 99)}`
  if (kind < 7) return String(random.int(-100000, 100000) * (random.chance(0.2) ? 100000 : 1))
  if (kind < 9) return 'x'.repeat(random.int(0, 70))
  return 'y'.repeat(random.int(100, 1500))
}

/** Per-key ID bookkeeping so that most XADDs succeed and the other commands hit real entries. */
class KeyState {
  ms = 0
  seq = 0
  readonly issued: string[] = []
}

/**
 * A seeded command sequence over a few streams. It starts by setting small node limits (restored
 * by the last two commands) so a few hundred entries span many nodes.
 */
export function streamSequence(seed: number, length: number): Command[] {
  const random = new Random(seed)
  const state = new Map<string, KeyState>(SEQUENCE_KEYS.map((key) => [key, new KeyState()]))
  const pick = <T>(items: readonly T[]): T => random.pick(items)
  const key = (): string => pick(SEQUENCE_KEYS)
  const issuedId = (name: string): string => {
    const ids = state.get(name)!.issued
    return ids.length === 0 || random.chance(0.15) ? `${random.int(0, 40)}-${random.int(0, 3)}` : pick(ids)
  }
  const bound = (name: string, low: boolean): string => {
    const roll = random.int(0, 9)
    if (roll === 0) return low ? '-' : '+'
    if (roll === 1) return `(${issuedId(name)}`
    if (roll === 2) return String(random.int(0, 40))
    return issuedId(name)
  }
  const commands: Command[] = [
    ['CONFIG', 'SET', 'stream-node-max-entries', String(pick([3, 5, 10, 100]))],
    ['CONFIG', 'SET', 'stream-node-max-bytes', String(pick([120, 300, 1000, 4096]))],
  ]
  // Most sequences start with a group on each stream, so reads and claims find one.
  if (random.chance(0.7)) for (const name of SEQUENCE_KEYS) commands.push(['XGROUP', 'CREATE', name, 'g1', '0', 'MKSTREAM'])
  for (let i = 0; i < length; i++) {
    const name = key()
    const keyState = state.get(name)!
    const roll = random.next() * 100
    if (roll < 30) {
      // XADD: the next ID most of the time, sometimes <ms>-*, a stale ID or a trim.
      if (random.chance(0.5)) keyState.seq += random.int(1, 2)
      else {
        keyState.ms += random.int(1, 3)
        keyState.seq = random.int(0, 2)
      }
      let id = `${keyState.ms}-${keyState.seq}`
      const kind = random.int(0, 19)
      if (kind === 0) id = `${keyState.ms}-*`
      else if (kind === 1) id = `${Math.max(0, keyState.ms - 3)}-0`
      else if (kind === 2) id = '0-0'
      const pairs: string[] = []
      for (let p = random.int(1, 3); p > 0; p--) pairs.push(pick(FIELD_NAMES), value(random))
      const trim: string[] = []
      if (random.chance(0.08)) {
        const byLength = random.chance(0.5)
        const modifier = pick(['~', '=', ''])
        trim.push(byLength ? 'MAXLEN' : 'MINID', ...(modifier === '' ? [] : [modifier]))
        trim.push(byLength ? String(random.int(5, 60)) : String(Math.max(0, keyState.ms - random.int(5, 40))))
        if (modifier === '~' && random.chance(0.3)) trim.push('LIMIT', String(random.int(0, 30)))
      }
      commands.push(['XADD', name, ...(random.chance(0.05) ? ['NOMKSTREAM'] : []), ...trim, id, ...pairs])
      if (kind > 2) keyState.issued.push(id)
    } else if (roll < 33) {
      const strategy = random.chance(0.5) ? 'MAXLEN' : 'MINID'
      const modifier = pick(['~', '=', ''])
      const threshold = strategy === 'MAXLEN' ? String(random.int(0, 60)) : issuedId(name)
      commands.push(['XTRIM', name, strategy, ...(modifier ? [modifier] : []), threshold, ...(modifier === '~' && random.chance(0.3) ? ['LIMIT', String(random.int(0, 40))] : [])])
    } else if (roll < 40) {
      commands.push(['XDEL', name, ...Array.from({ length: random.int(1, 3) }, () => issuedId(name))])
    } else if (roll < 45) {
      commands.push([random.chance(0.5) ? 'XRANGE' : 'XREVRANGE', name, bound(name, true), bound(name, false), ...(random.chance(0.4) ? ['COUNT', String(random.int(0, 5))] : [])])
    } else if (roll < 47) {
      commands.push(['XREAD', ...(random.chance(0.4) ? ['COUNT', String(random.int(1, 3))] : []), 'STREAMS', name, issuedId(name)])
    } else if (roll < 51) {
      const id = pick(['0', '$', issuedId(name)])
      commands.push(['XGROUP', 'CREATE', name, pick(GROUPS), id, ...(random.chance(0.3) ? ['MKSTREAM'] : []), ...(random.chance(0.2) ? ['ENTRIESREAD', String(random.int(-1, 10))] : [])])
    } else if (roll < 53) {
      commands.push(['XGROUP', 'SETID', name, pick(GROUPS), pick(['0', '$', '-', issuedId(name)]), ...(random.chance(0.2) ? ['ENTRIESREAD', String(random.int(0, 10))] : [])])
    } else if (roll < 54) {
      const subcommand = pick(['DESTROY', 'CREATECONSUMER', 'DELCONSUMER'])
      commands.push(['XGROUP', subcommand, name, pick(GROUPS), ...(subcommand === 'DESTROY' ? [] : [pick(CONSUMERS)])])
    } else if (roll < 68) {
      const history = random.chance(0.25)
      commands.push([
        'XREADGROUP', 'GROUP', pick(GROUPS), pick(CONSUMERS),
        ...(random.chance(0.5) ? ['COUNT', String(random.int(1, 4))] : []),
        ...(random.chance(0.1) ? ['NOACK'] : []),
        'STREAMS', name, history ? pick(['0', issuedId(name)]) : '>',
      ])
    } else if (roll < 76) {
      commands.push(['XACK', name, pick(GROUPS), ...Array.from({ length: random.int(1, 3) }, () => issuedId(name))])
    } else if (roll < 81) {
      commands.push([
        'XCLAIM', name, pick(GROUPS), pick(CONSUMERS), pick(['0', '3600000']), ...Array.from({ length: random.int(1, 3) }, () => issuedId(name)),
        ...(random.chance(0.2) ? ['FORCE'] : []), ...(random.chance(0.4) ? ['JUSTID'] : []),
        ...(random.chance(0.2) ? ['RETRYCOUNT', String(random.int(0, 9))] : []),
        ...(random.chance(0.2) ? ['IDLE', pick(['0', '7200000'])] : []),
        ...(random.chance(0.1) ? ['LASTID', issuedId(name)] : []),
      ])
    } else if (roll < 85) {
      commands.push([
        'XAUTOCLAIM', name, pick(GROUPS), pick(CONSUMERS), pick(['0', '3600000']), bound(name, true),
        ...(random.chance(0.5) ? ['COUNT', String(random.int(1, 5))] : []), ...(random.chance(0.4) ? ['JUSTID'] : []),
      ])
    } else if (roll < 88) {
      commands.push(['XPENDING', name, pick(GROUPS), ...(random.chance(0.5) ? [] : ['-', '+', String(random.int(1, 10)), ...(random.chance(0.4) ? [pick(CONSUMERS)] : [])])])
    } else if (roll < 93) {
      commands.push(['XINFO', 'STREAM', name])
    } else if (roll < 96) {
      commands.push(['XINFO', 'GROUPS', name])
    } else if (roll < 97) {
      commands.push(['XINFO', 'CONSUMERS', name, pick(GROUPS)])
    } else if (roll < 98.5) {
      commands.push(['XINFO', 'STREAM', name, 'FULL', ...(random.chance(0.5) ? ['COUNT', String(random.int(0, 4))] : [])])
    } else if (roll < 99.3) {
      if (random.chance(0.3)) {
        // Back to an earlier ID: refused below the last live entry, else allowed by Redis 7.0 even
        // below tombstones, after which the next XADDs (which carry on from there) append IDs out
        // of order inside a node.
        const back = issuedId(name)
        commands.push(['XSETID', name, back])
        const [ms, seq] = back.split('-').map(Number)
        keyState.ms = ms
        keyState.seq = seq
      } else {
        keyState.ms += 3
        commands.push(['XSETID', name, `${keyState.ms}-0`, ...(random.chance(0.3) ? ['ENTRIESADDED', String(random.int(0, 500))] : [])])
      }
    } else {
      commands.push(['XLEN', name])
    }
  }
  for (const name of SEQUENCE_KEYS) commands.push(['XINFO', 'STREAM', name, 'FULL', 'COUNT', '0'], ['XINFO', 'GROUPS', name])
  commands.push(['CONFIG', 'SET', 'stream-node-max-entries', '100'], ['CONFIG', 'SET', 'stream-node-max-bytes', '4096'])
  return commands
}
