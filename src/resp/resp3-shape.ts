/**
 * Each command's RESP3 reply, as Redis 7.0.15 shapes it, made from the RESP2 reply the executor
 * gave.
 *
 * The engines answer in RESP2 only (the REST protocol and the socket executor's upstream speak
 * it), so the listener reshapes a reply when its connection said `HELLO 3`. Done here, per
 * command, it serves the memory engine and the socket executor alike; the engine's Lua runtime
 * uses the same rules for `redis.call` after `redis.setresp(3)`. The table follows Redis's
 * own call sites of `addReplyMapLen`, `addReplySetLen`, `addReplyDouble`,
 * `addReplyHumanLongDouble`, `addReplyVerbatim` and the `c->resp` tests in its sources; both
 * nulls need nothing here, as the RESP3 encoder writes them `_`.
 */

import { ReplyDouble, ReplyError, ReplyMap, ReplySet, VerbatimString, type Command, type Reply } from '../reply.js'
import { asBuffer } from './protocol.js'

/** Turns one RESP2 reply (never an error: those pass as they are) into its RESP3 form. */
type Shape = (reply: Reply) => Reply

const same: Shape = (reply) => reply

/** A bulk string holding a double (`%.17g`, `inf`, `-inf`): a RESP3 double of the same text. */
const double: Shape = (reply) => (reply instanceof Uint8Array ? new ReplyDouble(asBuffer(reply).toString('latin1')) : reply)

const set: Shape = (reply) => (Array.isArray(reply) ? new ReplySet(reply as readonly Reply[]) : reply)

const verbatim: Shape = (reply) => (reply instanceof Uint8Array ? new VerbatimString('txt', reply) : reply)

/** Every element of an array through `item`. */
function arrayOf(item: Shape): Shape {
  return (reply) => (Array.isArray(reply) ? (reply as readonly Reply[]).map(item) : reply)
}

function setOf(item: Shape): Shape {
  return (reply) => (Array.isArray(reply) ? new ReplySet((reply as readonly Reply[]).map(item)) : reply)
}

/** An array whose element `index` goes through `item`. */
function at(index: number, item: Shape): Shape {
  return (reply) => {
    if (!Array.isArray(reply) || index >= reply.length) return reply
    const items = [...(reply as readonly Reply[])]
    items[index] = item(items[index])
    return items
  }
}

/**
 * A flat key/value array as a map; the value of a key named in `fields` goes through its shape,
 * others through `rest`.
 */
function map(fields: Readonly<Record<string, Shape>> = {}, rest: Shape = same): Shape {
  return (reply) => {
    if (!Array.isArray(reply) || reply.length % 2 !== 0) return reply
    const entries = [...(reply as readonly Reply[])]
    for (let i = 0; i < entries.length; i += 2) {
      const key = entries[i]
      const name = key instanceof Uint8Array ? asBuffer(key).toString('latin1') : String(key)
      entries[i + 1] = (Object.hasOwn(fields, name) ? fields[name] : rest)(entries[i + 1])
    }
    return new ReplyMap(entries)
  }
}

/** An array of [key, value] arrays as one map (XREAD's streams). */
function mapOfPairs(value: Shape = same): Shape {
  return (reply) => {
    if (!Array.isArray(reply)) return reply
    const entries: Reply[] = []
    for (const pair of reply as readonly Reply[]) {
      if (!Array.isArray(pair) || pair.length !== 2) return reply
      entries.push(pair[0] as Reply, value(pair[1] as Reply))
    }
    return new ReplyMap(entries)
  }
}

/** A flat key/value array as an array of [key, value] pairs, the value through `value`. */
function pairs(value: Shape): Shape {
  return (reply) => {
    if (!Array.isArray(reply)) return reply
    const items = reply as readonly Reply[]
    const out: Reply[] = []
    for (let i = 0; i + 1 < items.length; i += 2) out.push([items[i], value(items[i + 1])])
    return out
  }
}

/** Whether `word` (any case) is among the arguments from `from` on. */
function hasWord(argv: Command, word: string, from: number): boolean {
  for (let i = from; i < argv.length; i++) if (text(argv[i]).toLowerCase() === word) return true
  return false
}

function text(arg: Command[number]): string {
  return typeof arg === 'string' ? arg : asBuffer(arg).toString('latin1')
}

/** WITHSCORES among the options of a ZRANGE-family command: member/score pairs with double scores. */
function scoredIf(from: number): (argv: Command) => Shape {
  return (argv) => (hasWord(argv, 'withscores', from) ? pairs(double) : same)
}

/** ZUNION / ZINTER / ZDIFF: the options follow `numkeys` keys. */
function scoredAfterKeys(argv: Command): Shape {
  const numkeys = Number.parseInt(text(argv[1] ?? ''), 10)
  return Number.isSafeInteger(numkeys) && numkeys >= 0 ? scoredIf(2 + numkeys)(argv) : same
}

/** A stream's groups, as XINFO STREAM FULL writes them. */
const fullGroup = map({ consumers: arrayOf(map()) })

/** COMMAND INFO's key specs: maps, with their flags a set and the search specs maps of maps. */
const keySpec = map({ flags: set, begin_search: map({ spec: map() }), find_keys: map({ spec: map() }) })

/** One command in COMMAND / COMMAND INFO: an array with flags, categories, tips and key specs as sets. */
const commandInfo: Shape = (reply) => {
  if (!Array.isArray(reply) || reply.length !== 10) return reply
  const items = [...(reply as readonly Reply[])]
  items[2] = set(items[2])
  items[6] = set(items[6])
  items[7] = set(items[7])
  items[8] = setOf(keySpec)(items[8])
  // A command without subcommands has an empty set there, one with them an array.
  const subcommands = items[9] as readonly Reply[]
  items[9] = subcommands.length === 0 ? new ReplySet([]) : subcommands.map(commandInfo)
  return items
}

/** An argument in COMMAND DOCS: a map; its flags a set, nested arguments likewise. */
const docArgument: Shape = (reply) => map({ flags: set, arguments: arrayOf(docArgument) })(reply)

/** One command's documentation in COMMAND DOCS. */
const commandDocs: Shape = (reply) =>
  map({ doc_flags: set, history: set, arguments: arrayOf(docArgument), subcommands: map({}, commandDocs) })(reply)

const functionLibrary = map({ functions: arrayOf(map({ flags: set })) })

/** What a command's argv makes of its RESP2 reply in RESP3. */
type Rule = (argv: Command) => Shape

const always = (shape: Shape): Rule => () => shape

/** Commands whose reply differs in RESP3; those not here answer alike in both. */
const RULES: Readonly<Record<string, Rule>> = {
  // Hashes.
  hgetall: always(map()),
  hrandfield: (argv) => (argv.length === 4 && hasWord(argv, 'withvalues', 3) ? pairs(same) : same),
  // Sets.
  smembers: always(set),
  sinter: always(set),
  sunion: always(set),
  sdiff: always(set),
  spop: (argv) => (argv.length === 3 ? set : same),
  // Sorted sets.
  zscore: always(double),
  zincrby: always(double),
  zadd: always(double), // a bulk only with INCR
  zmscore: always(arrayOf(double)),
  zrange: scoredIf(4),
  zrevrange: scoredIf(4),
  zrangebyscore: scoredIf(4),
  zrevrangebyscore: scoredIf(4),
  zunion: scoredAfterKeys,
  zinter: scoredAfterKeys,
  zdiff: scoredAfterKeys,
  zrandmember: (argv) => (argv.length === 4 && hasWord(argv, 'withscores', 3) ? pairs(double) : same),
  zpopmin: (argv) => (argv.length === 3 ? pairs(double) : at(1, double)),
  zpopmax: (argv) => (argv.length === 3 ? pairs(double) : at(1, double)),
  bzpopmin: always(at(2, double)),
  bzpopmax: always(at(2, double)),
  zmpop: always(at(1, arrayOf(at(1, double)))),
  bzmpop: always(at(1, arrayOf(at(1, double)))),
  // Geo: coordinates are doubles in RESP3 (distances stay bulk strings).
  geopos: always(arrayOf(arrayOf(double))),
  georadius: geoSearch,
  georadius_ro: geoSearch,
  georadiusbymember: geoSearch,
  georadiusbymember_ro: geoSearch,
  geosearch: geoSearch,
  // Streams.
  xread: always(mapOfPairs()),
  xreadgroup: always(mapOfPairs()),
  xinfo: (argv) => {
    const sub = text(argv[1] ?? '').toLowerCase()
    if (sub === 'stream') return hasWord(argv, 'full', 3) ? map({ groups: arrayOf(fullGroup) }) : map()
    if (sub === 'groups' || sub === 'consumers') return arrayOf(map())
    return same
  },
  // Strings.
  lcs: (argv) => (hasWord(argv, 'idx', 3) ? map() : same),
  // Server and introspection.
  config: (argv) => (text(argv[1] ?? '').toLowerCase() === 'get' ? map() : same),
  info: always(verbatim),
  lolwut: always(verbatim),
  client: (argv) => {
    const sub = text(argv[1] ?? '').toLowerCase()
    if (sub === 'list' || sub === 'info') return verbatim
    if (sub === 'trackinginfo') return map({ flags: set })
    return same
  },
  memory: (argv) => {
    const sub = text(argv[1] ?? '').toLowerCase()
    if (sub === 'doctor' || sub === 'malloc-stats') return verbatim
    if (sub === 'stats') return memoryStats
    return same
  },
  latency: (argv) => {
    const sub = text(argv[1] ?? '').toLowerCase()
    if (sub === 'doctor' || sub === 'graph') return verbatim
    if (sub === 'histogram') return map({}, map({ histogram_usec: map() }))
    return same
  },
  command: (argv) => {
    const sub = text(argv[1] ?? '').toLowerCase()
    if (argv.length === 1 || sub === 'info') return arrayOf(commandInfo)
    if (sub === 'docs') return map({}, commandDocs)
    if (sub === 'getkeysandflags') return arrayOf(at(1, set))
    return same
  },
  function: (argv) => {
    const sub = text(argv[1] ?? '').toLowerCase()
    if (sub === 'list') return arrayOf(functionLibrary)
    if (sub === 'stats') return map({ running_script: map(), engines: map({}, map()) })
    return same
  },
  acl: (argv) => {
    const sub = text(argv[1] ?? '').toLowerCase()
    if (sub === 'getuser') return map({ flags: set, selectors: arrayOf(map()) })
    if (sub === 'log' && !hasWord(argv, 'reset', 2)) return arrayOf(map({ 'age-seconds': double }))
    return same
  },
}

/** GEORADIUS & co.: with WITHCOORD, each match's last element is its [longitude, latitude]. */
function geoSearch(argv: Command): Shape {
  if (!hasWord(argv, 'withcoord', 2)) return same
  return arrayOf((item) => (Array.isArray(item) && item.length > 0 ? at(item.length - 1, arrayOf(double))(item) : item))
}

/** MEMORY STATS: a map with a map per database and its ratios as doubles. */
const memoryStats: Shape = (reply) => {
  const ratio = double
  const shaped = map(
    {
      'dataset.percentage': ratio,
      'peak.percentage': ratio,
      'allocator-fragmentation.ratio': ratio,
      'allocator-rss.ratio': ratio,
      'rss-overhead.ratio': ratio,
      'fragmentation': ratio,
    },
    (value) => value,
  )(reply)
  if (!(shaped instanceof ReplyMap)) return shaped
  const entries = [...shaped.entries]
  for (let i = 0; i < entries.length; i += 2) {
    const key = entries[i]
    if (key instanceof Uint8Array && asBuffer(key).toString('latin1').startsWith('db.')) entries[i + 1] = map()(entries[i + 1])
  }
  return new ReplyMap(entries)
}

/**
 * The RESP3 form of `reply`, the RESP2 answer to `argv`. Errors, and replies the table does not
 * reshape, are returned as they are.
 */
export function resp3Reply(argv: Command, reply: Reply): Reply {
  if (reply instanceof ReplyError || argv.length === 0) return reply
  const rule = RULES[text(argv[0]).toLowerCase()]
  return rule === undefined ? reply : rule(argv)(reply)
}

/** EXEC's replies in RESP3: each as its own queued command shapes it. */
export function resp3Transaction(commands: readonly Command[], replies: Reply): Reply {
  if (!Array.isArray(replies)) return replies
  return (replies as readonly Reply[]).map((reply, i) => (i < commands.length ? resp3Reply(commands[i], reply) : reply))
}
