import type { Command } from '../../src/reply.js'
import { Random } from './generator.js'
import type { DiffCase } from './harness.js'

/**
 * Thousands of seeded random points (mulberry32) against redis-server 7.0: every position, hash
 * and many distances, then searches of every shape, size, unit and option, stores included. All
 * replies are compared exactly: same members, same order (Redis's cell-by-cell scan, or its
 * sorts), same digits.
 *
 * One limit, named here: STOREDIST scores (a distance with 17 significant digits) are only asked
 * of searches reaching at most 1500 km. Beyond ~1600 km the haversine's asin argument leaves the
 * range where this engine reproduces glibc's asin bit for bit (see src/executor/memory/lib/libm/asin.ts):
 * there it is correctly rounded, and glibc's differs in the last bit for about 0.1% of inputs.
 * Distances are still compared everywhere with GEODIST and WITHDIST (`%.4f`), where a last-bit
 * difference would only show at a rounding boundary of the fourth decimal.
 */

const UNITS: readonly [string, number][] = [
  ['m', 1],
  ['km', 1000],
  ['mi', 1609.34],
  ['ft', 0.3048],
]

/** A coordinate with up to 7 decimals, as clients usually send them. */
function coordinate(value: number, decimals: number): string {
  return value.toFixed(decimals)
}

/** GEOADD of `count` points: clusters, uniform over the map, duplicates and the limits. */
function points(random: Random, count: number): { command: Command; members: string[] } {
  const clusters = Array.from({ length: 4 }, () => [random.next() * 340 - 170, random.next() * 160 - 80])
  const words: string[] = ['GEOADD', 'g']
  const members: string[] = []
  for (let i = 0; i < count; i++) {
    const member = `p${i}`
    const kind = random.int(0, 9)
    if (kind === 8) {
      // The limits and their neighbourhood, written exactly.
      words.push(random.pick(['-180', '180', '0', '179.999999', '-179.999999']), random.pick(['85.05112878', '-85.05112878', '0', '85', '-85']), member)
    } else if (kind === 9 && i > 0) {
      // Same position as an earlier point: equal distances, ordered by member.
      const earlier = random.int(0, i - 1) * 3 + 2
      words.push(words[earlier], words[earlier + 1], member)
    } else {
      let lon: number
      let lat: number
      if (kind < 5) {
        const [cLon, cLat] = random.pick(clusters)
        lon = Math.max(-180, Math.min(180, cLon + (random.next() - 0.5) * 6))
        lat = Math.max(-85, Math.min(85, cLat + (random.next() - 0.5) * 6))
      } else {
        lon = random.next() * 360 - 180
        lat = random.next() * 170 - 85
      }
      words.push(coordinate(lon, random.int(0, 7)), coordinate(lat, random.int(0, 7)), member)
    }
    members.push(member)
  }
  return { command: words, members }
}

/** A random search around a random centre or member. */
function search(random: Random, members: readonly string[]): Command {
  const [unit, toMeters] = random.pick(UNITS)
  const small = random.chance(0.75)
  // Reach in meters: up to 1500 km for small searches, up to 25000 km otherwise.
  const reach = small ? random.next() ** 3 * 1_500_000 : random.next() * 25_000_000
  const size = (meters: number) => String(Number((meters / toMeters).toPrecision(random.int(1, 8))))
  const centre: string[] = random.chance(0.3)
    ? ['FROMMEMBER', random.pick(members)]
    : ['FROMLONLAT', coordinate(random.next() * 360 - 180, 4), coordinate(random.next() * 170 - 85, 4)]
  // A box's half diagonal stays within the reach: its sides are at most reach × √2.
  const shape = random.chance(0.5)
    ? ['BYRADIUS', size(reach), unit]
    : ['BYBOX', size(reach * Math.SQRT2 * random.next()), size(reach * Math.SQRT2 * random.next()), unit]
  const order = random.pick([[], ['ASC'], ['DESC']])
  const count = random.chance(0.35) ? ['COUNT', String(random.int(1, 30)), ...(random.chance(0.3) ? ['ANY'] : [])] : []
  if (random.chance(0.2)) {
    const storeDist = small && random.chance(0.6) ? ['STOREDIST'] : []
    return ['GEOSEARCHSTORE', 'dst', 'g', ...centre, ...shape, ...order, ...count, ...storeDist]
  }
  const options = (['WITHDIST', 'WITHHASH', 'WITHCOORD'] as const).filter(() => random.chance(0.4))
  if (random.chance(0.25) && centre[0] === 'FROMLONLAT' && shape[0] === 'BYRADIUS') {
    return ['GEORADIUS', 'g', centre[1], centre[2], shape[1], shape[2], ...options, ...order, ...count]
  }
  return ['GEOSEARCH', 'g', ...centre, ...shape, ...options, ...order, ...count]
}

function sequence(seed: number, count: number, searches: number): Command[] {
  const random = new Random(seed)
  const { command, members } = points(random, count)
  const commands: Command[] = [command, ['ZCARD', 'g'], ['ZRANGE', 'g', '0', '-1', 'WITHSCORES'], ['GEOPOS', 'g', ...members], ['GEOHASH', 'g', ...members]]
  for (let i = 0; i < 200; i++) {
    commands.push(['GEODIST', 'g', random.pick(members), random.pick(members), random.pick(UNITS)[0]])
  }
  for (let i = 0; i < searches; i++) {
    const query = search(random, members)
    commands.push(query)
    if (query[0] === 'GEOSEARCHSTORE') commands.push(['ZRANGE', 'dst', '0', '-1', 'WITHSCORES'])
  }
  return commands
}

export const geoSequenceCases: DiffCase[] = [
  ...Array.from({ length: 6 }, (_, i) => ({
    name: `seeded geo sequence ${i + 1} (seed ${2000 + i}): 1500 points, 200 distances, 150 searches`,
    commands: sequence(2000 + i, 1500, 150),
  })),
  ...Array.from({ length: 10 }, (_, i) => ({
    name: `seeded geo sequence ${i + 7} (seed ${3000 + i}): 60 points, 200 distances, 100 searches`,
    commands: sequence(3000 + i, 60, 100),
  })),
]
