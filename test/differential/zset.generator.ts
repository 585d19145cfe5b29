/**
 * Sorted-set and geo commands for the random differential generator (`generator.ts`): add the
 * results of {@link sortedSetSpecs} and {@link geoSpecs} to its CATALOGUE (they complement its
 * own zset and geo entries with the forms below).
 *
 * Everything here is compared exactly, with no relaxation:
 * - ZSCAN and the lexicographic ranges over mixed scores run on keys of their own
 *   ({@link MIXED_KEYS}), which hold at most eight short members and which SORT never sees, so
 *   they stay listpacks: ZSCAN returns them whole, in order, and lex ranges follow the listpack
 *   scan (on a skip list, which SORT makes of any sorted set it sorts, they follow its random
 *   levels);
 * - ZRANDMEMBER is only asked for counts covering the set (Redis then returns the whole set,
 *   highest score first) or 0;
 * - GEOSEARCH and GEORADIUS answer in Redis's cell-by-cell scan order, which the engine
 *   reproduces, so even unsorted searches are compared as they come;
 * - distances reach at most 1500 km where STOREDIST keeps them at full precision (see
 *   geo.sequences.ts for why).
 */
import type { CommandSpec, Draw } from './generator.js'

const SCORES: readonly string[] = ['0', '-0', '1', '-1', '2.5', '1e-320', '0x10', 'inf', '-inf', '1.1', '3', 'x', '1e400', '']
const SCORE_BOUNDS: readonly string[] = ['-inf', '+inf', '(0', '0', '1', '(1', '2.5', '', ' 1', '(', '1e400', 'nan']
const LEX_BOUNDS: readonly string[] = ['-', '+', '[m1', '(m2', '[1', '(', '[', '[', '(m3', 'x', '-\0']
const INDEXES: readonly string[] = ['0', '1', '-1', '2', '-3', '10', '-9223372036854775808']

const LONGITUDES: readonly string[] = ['13.361389', '15.087269', '13.5', '14', '-180', '180', '0', '179.9999', '181', 'x']
const LATITUDES: readonly string[] = ['38.115556', '37.502669', '37.2', '38', '85.05112878', '-85.05112878', '0', '-33.5', '86', 'nan']
const UNITS: readonly string[] = ['m', 'km', 'mi', 'ft', 'KM', 'yd']

/**
 * Sorted sets with mixed scores for ZSCAN and the lex ranges: only the specs here touch them
 * (adds, removals, stores, a SET or DEL now and then for WRONGTYPE), never SORT, which converts
 * the sorted sets it sorts to skip lists (`zsetConvert` in sortCommandGeneric).
 */
const MIXED_KEYS: readonly string[] = ['M0', 'M1']

function zset(name: string, build: (draw: Draw) => ReturnType<CommandSpec['build']>, weight = 1): CommandSpec {
  return { name, family: 'zset', weight, build }
}

function geo(name: string, build: (draw: Draw) => ReturnType<CommandSpec['build']>, weight = 1): CommandSpec {
  return { name, family: 'geo', weight, build }
}

/** One of {@link MIXED_KEYS}. */
function mixed(d: Draw): string {
  return d.pick(MIXED_KEYS)
}

/** Sorted-set forms beyond the generator's own: odd scores, stores by score and lex, scans, whole-set ZRANDMEMBER. */
export function sortedSetSpecs(): CommandSpec[] {
  return [
    zset('zadd', (d) => ['ZADD', d.key(), ...d.maybe(0.3, d.pick(['GT', 'LT', 'NX', 'XX', 'CH', 'INCR'])), d.pick(SCORES), d.member()], 2),
    zset('zincrby', (d) => ['ZINCRBY', d.key(), d.pick(SCORES), d.member()]),
    zset('zrangestore', (d) => [
      'ZRANGESTORE', d.key(), d.key(), d.pick(SCORE_BOUNDS), d.pick(SCORE_BOUNDS), 'BYSCORE',
      ...d.maybe(0.3, 'REV'), ...d.maybe(0.3, 'LIMIT', d.pick(['0', '1', '-1']), d.pick(['1', '-1', '0'])),
    ]),
    zset('zrangestore', (d) => ['ZRANGESTORE', d.key(), mixed(d), d.pick(LEX_BOUNDS), d.pick(LEX_BOUNDS), 'BYLEX', ...d.maybe(0.3, 'REV')]),
    zset('zrange', (d) => ['ZRANGE', d.key(), d.pick(INDEXES), d.pick(INDEXES), ...d.maybe(0.2, d.pick(['REV', 'BYSCORE', 'BYLEX', 'LIMIT', 'WITHSCORES']))]),
    zset('zadd', (d) => ['ZADD', mixed(d), ...d.maybe(0.2, d.pick(['GT', 'LT', 'NX', 'XX', 'CH'])), d.pick(SCORES), d.member(), ...d.maybe(0.5, d.pick(SCORES), d.member())], 2),
    zset('zrem', (d) => ['ZREM', mixed(d), ...d.members(2)]),
    zset('zunionstore', (d) => ['ZUNIONSTORE', mixed(d), '2', mixed(d), d.pick([...MIXED_KEYS, 'a'])], 0.3),
    zset('set', (d) => ['SET', mixed(d), d.value()], 0.05),
    zset('del', (d) => ['DEL', mixed(d)], 0.1),
    zset('zrangebylex', (d) => ['ZRANGEBYLEX', mixed(d), d.pick(LEX_BOUNDS), d.pick(LEX_BOUNDS), ...d.maybe(0.3, 'LIMIT', '1', '2')]),
    zset('zrevrangebylex', (d) => ['ZREVRANGEBYLEX', mixed(d), d.pick(LEX_BOUNDS), d.pick(LEX_BOUNDS), ...d.maybe(0.3, 'LIMIT', '0', '2')]),
    zset('zrange', (d) => ['ZRANGE', mixed(d), d.pick(LEX_BOUNDS), d.pick(LEX_BOUNDS), 'BYLEX', ...d.maybe(0.3, 'REV'), ...d.maybe(0.3, 'LIMIT', '1', '-1')]),
    zset('zlexcount', (d) => ['ZLEXCOUNT', mixed(d), d.pick(LEX_BOUNDS), d.pick(LEX_BOUNDS)]),
    zset('zremrangebylex', (d) => ['ZREMRANGEBYLEX', mixed(d), d.pick(LEX_BOUNDS), d.pick(LEX_BOUNDS)]),
    zset('zscan', (d) => ['ZSCAN', mixed(d), d.pick(['0', '0', '7', 'x']), ...d.maybe(0.3, 'MATCH', d.pick(['m*', '*', '1?'])), ...d.maybe(0.2, 'COUNT', d.pick(['1', '0']))]),
    zset('zrandmember', (d) => ['ZRANDMEMBER', d.key(), d.pick(['100', '0', '9223372036854775807', 'x']), ...d.maybe(0.5, 'WITHSCORES')]),
    zset('zrank', (d) => [d.pick(['ZRANK', 'ZREVRANK']), d.key(), d.member()]),
    zset('zunion', (d) => {
      const keys = d.keys(3)
      return ['ZUNION', String(keys.length), ...keys, 'WEIGHTS', ...keys.map(() => d.pick(['inf', '-inf', '0', '-0', '1e308'])), 'WITHSCORES']
    }),
  ]
}

/** Geo commands over the generator's key space, every search compared exactly. */
export function geoSpecs(): CommandSpec[] {
  const position = (d: Draw) => [d.pick(LONGITUDES), d.pick(LATITUDES)]
  const shape = (d: Draw) =>
    d.chance(0.5) ? ['BYRADIUS', d.pick(['0', '10', '150', '1500', '-1', 'x']), d.pick(UNITS)] : ['BYBOX', d.pick(['10', '300', '2000']), d.pick(['20', '400', '0']), d.pick(UNITS)]
  const options = (d: Draw) => [
    ...d.maybe(0.3, 'WITHDIST'), ...d.maybe(0.3, 'WITHCOORD'), ...d.maybe(0.3, 'WITHHASH'),
    ...d.maybe(0.4, d.pick(['ASC', 'DESC'])), ...d.maybe(0.3, 'COUNT', d.pick(['1', '2', '0']), ...d.maybe(0.3, 'ANY')),
  ]
  return [
    geo('geoadd', (d) => ['GEOADD', d.key(), ...d.maybe(0.2, d.pick(['NX', 'XX', 'CH'])), ...position(d), d.member(), ...d.maybe(0.5, ...position(d), d.member())], 3),
    geo('geopos', (d) => ['GEOPOS', d.key(), ...d.members(3)]),
    geo('geohash', (d) => ['GEOHASH', d.key(), ...d.members(3)]),
    geo('geodist', (d) => ['GEODIST', d.key(), d.member(), d.member(), ...d.maybe(0.6, d.pick(UNITS))]),
    geo('geosearch', (d) => ['GEOSEARCH', d.key(), ...(d.chance(0.5) ? ['FROMMEMBER', d.member()] : ['FROMLONLAT', ...position(d)]), ...shape(d), ...options(d)], 2),
    geo('geosearchstore', (d) => [
      'GEOSEARCHSTORE', d.key(), d.key(), ...(d.chance(0.5) ? ['FROMMEMBER', d.member()] : ['FROMLONLAT', ...position(d)]), ...shape(d),
      ...d.maybe(0.4, 'STOREDIST'), ...d.maybe(0.3, 'COUNT', '2'),
    ]),
    geo('georadius', (d) => ['GEORADIUS', d.key(), ...position(d), d.pick(['100', '1500', '-1']), d.pick(UNITS), ...options(d), ...d.maybe(0.2, d.pick(['STORE', 'STOREDIST']), d.key())]),
    geo('georadiusbymember', (d) => [
      'GEORADIUSBYMEMBER', d.key(), d.member(), d.pick(['100', '1500', 'x']), d.pick(UNITS), ...options(d), ...d.maybe(0.2, d.pick(['STORE', 'STOREDIST']), d.key()),
    ]),
    geo('georadiusbymember_ro', (d) => ['GEORADIUSBYMEMBER_RO', d.key(), d.member(), d.pick(['100', '1500']), d.pick(UNITS), ...options(d)]),
    geo('georadius_ro', (d) => ['GEORADIUS_RO', d.key(), ...position(d), '1500', 'km', ...options(d)]),
  ]
}
