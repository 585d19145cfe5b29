import { NULL_ARRAY, ReplyError } from '../../../reply.js'
import type { CommandContext, CommandTable, Out } from '../command.js'
import { NOT_FLOAT, NOT_INTEGER, SYNTAX } from '../errors.js'
import {
  GEO_LAT_MAX,
  GEO_LAT_MIN,
  GEO_LONG_MAX,
  GEO_LONG_MIN,
  cellScoreRange,
  decodeScore,
  distanceWithinShape,
  geoDistance,
  geohashString,
  positionScore,
  searchCells,
  type GeoCell,
  type GeoShape,
} from '../geohash.js'
import { integerReply, readInteger } from '../numbers.js'
import { ZSetValue } from '../types/zset.js'
import { partialSort } from './generic/pqsort.js'
import { readZSet, storeResult, zsetLimits } from './zset/access.js'
import { zaddGeneric } from './zset/add.js'
import { formatFixed, readScore } from './zset/score.js'

/**
 * Geo commands (geo.c): positions stored in sorted sets as 52-bit geohash scores (`geohash.ts`),
 * with Redis 7.0.15's argument parsing, error texts, search order and number formatting.
 */

const UNSUPPORTED_UNIT = new ReplyError('ERR unsupported unit provided. please use M, KM, FT, MI')
const NEED_NUMERIC_RADIUS = new ReplyError('ERR need numeric radius')
const RADIUS_NEGATIVE = new ReplyError('ERR radius cannot be negative')
const NEED_NUMERIC_WIDTH = new ReplyError('ERR need numeric width')
const NEED_NUMERIC_HEIGHT = new ReplyError('ERR need numeric height')
const BOX_NEGATIVE = new ReplyError('ERR height or width cannot be negative')
const COUNT_NOT_POSITIVE = new ReplyError('ERR COUNT must be > 0')
const ANY_NEEDS_COUNT = new ReplyError('ERR the ANY argument requires COUNT argument')
const UNDECODABLE_MEMBER = new ReplyError('ERR could not decode requested zset member')

// ---- argument helpers ----

/** `extractLongLatOrReply`: a longitude and a latitude within Redis's limits. */
function readLonLat(lonText: string, latText: string): [number, number] | ReplyError {
  const lon = readScore(lonText)
  if (lon === null) return NOT_FLOAT
  const lat = readScore(latText)
  if (lat === null) return NOT_FLOAT
  if (lon < GEO_LONG_MIN || lon > GEO_LONG_MAX || lat < GEO_LAT_MIN || lat > GEO_LAT_MAX) {
    return new ReplyError(`ERR invalid longitude,latitude pair ${formatFixed(lon, 6)},${formatFixed(lat, 6)}`)
  }
  return [lon, lat]
}

/** `extractUnitOrReply`: meters per unit. */
function readUnit(text: string): number | ReplyError {
  switch (text.toLowerCase()) {
    case 'm':
      return 1
    case 'km':
      return 1000
    case 'ft':
      return 0.3048
    case 'mi':
      return 1609.34
    default:
      return UNSUPPORTED_UNIT
  }
}

/** A number read like a score, with the error text the geo command gives for it. */
function readNumber(text: string, error: ReplyError): number | ReplyError {
  const value = readScore(text)
  return value === null ? error : value
}

/** The position of `member` in `zset` (`longLatFromMember`), or null when it is not there. */
function memberPosition(zset: ZSetValue, member: string): [number, number] | null {
  const score = zset.score(member)
  return score === undefined ? null : decodeScore(score)
}

/**
 * A coordinate as `addReplyHumanLongDouble` writes it: the double as a long double, `%.17Lf`,
 * trailing zeros (and a bare point) removed.
 */
function formatCoordinate(value: number): string {
  const text = formatFixed(value, 17)
  let end = text.length
  while (text.charCodeAt(end - 1) === 48 /* 0 */) end--
  if (text.charCodeAt(end - 1) === 46 /* . */) end--
  const trimmed = text.slice(0, end)
  return trimmed === '-0' ? '0' : trimmed
}

/**
 * `addReplyDoubleDistance` (GEODIST, WITHDIST): four decimals by `fixedpoint_d2string`, which
 * scales by 10^4 in double arithmetic and rounds with `llrint` (to nearest, ties to even). That
 * is not `%.4f`: 11052919.07874999940… prints as "11052919.0788", because the product rounds up
 * to …787.5 before it is rounded to an integer.
 */
function formatDistance(value: number): string {
  if (value === 0) return '0.0000'
  const scaled = value * 10000
  let units = Math.round(scaled)
  // Math.round breaks ties upwards; llrint breaks them to the even neighbour.
  if (units - scaled === 0.5 && units % 2 !== 0) units -= 1
  const digits = String(Math.abs(units)).padStart(5, '0')
  return `${units < 0 ? '-' : ''}${digits.slice(0, -4)}.${digits.slice(-4)}`
}

// ---- GEOADD, GEOPOS, GEOHASH, GEODIST ----

/**
 * `GEOADD key [NX|XX] [CH] longitude latitude member [...]`: validated here, then run as the ZADD
 * Redis rewrites it into (scores are the positions' 52-bit hashes).
 */
function geoadd(ctx: CommandContext, argv: readonly string[]): Out {
  let nx = false
  let xx = false
  let longIndex = 2
  for (; longIndex < argv.length; longIndex++) {
    const option = argv[longIndex].toLowerCase()
    if (option === 'nx') nx = true
    else if (option === 'xx') xx = true
    else if (option !== 'ch') break
  }
  if ((argv.length - longIndex) % 3 !== 0 || (xx && nx)) return SYNTAX
  const zaddArgv = ['zadd', ...argv.slice(1, longIndex)]
  for (let i = longIndex; i < argv.length; i += 3) {
    const position = readLonLat(argv[i], argv[i + 1])
    if (position instanceof ReplyError) return position
    const score = positionScore(position[0], position[1])!
    zaddArgv.push(BigInt(score).toString(), argv[i + 2])
  }
  return zaddGeneric(ctx, zaddArgv, false)
}

/** `GEOPOS key member [...]`: `[longitude, latitude]` per member, the null array for a missing one. */
function geopos(ctx: CommandContext, argv: readonly string[]): Out {
  const zset = readZSet(ctx, argv[1])
  if (zset instanceof ReplyError) return zset
  const replies: Out[] = []
  for (let i = 2; i < argv.length; i++) {
    const position = zset === undefined ? null : memberPosition(zset, argv[i])
    replies.push(position === null ? NULL_ARRAY : [formatCoordinate(position[0]), formatCoordinate(position[1])])
  }
  return replies
}

/** `GEOHASH key member [...]`: standard 11-character geohashes, nil for a missing member. */
function geohash(ctx: CommandContext, argv: readonly string[]): Out {
  const zset = readZSet(ctx, argv[1])
  if (zset instanceof ReplyError) return zset
  const replies: (string | null)[] = []
  for (let i = 2; i < argv.length; i++) {
    const score = zset?.score(argv[i])
    replies.push(score === undefined ? null : geohashString(score))
  }
  return replies
}

/** `GEODIST key member1 member2 [M|KM|FT|MI]`: the unit is checked before the key. */
function geodist(ctx: CommandContext, argv: readonly string[]): Out {
  let toMeters = 1
  if (argv.length === 5) {
    const unit = readUnit(argv[4])
    if (unit instanceof ReplyError) return unit
    toMeters = unit
  } else if (argv.length > 5) {
    return SYNTAX
  }
  const zset = readZSet(ctx, argv[1])
  if (zset instanceof ReplyError) return zset
  if (zset === undefined) return null
  const first = memberPosition(zset, argv[2])
  const second = memberPosition(zset, argv[3])
  if (first === null || second === null) return null
  return formatDistance(geoDistance(first[0], first[1], second[0], second[1]) / toMeters)
}

// ---- GEORADIUS, GEORADIUSBYMEMBER, GEOSEARCH, GEOSEARCHSTORE ----

/** Which command is parsing: it decides where the options start and which ones exist. */
type SearchForm = 'radius' | 'radius_ro' | 'bymember' | 'bymember_ro' | 'search' | 'searchstore'

/** One point found (`geoPoint`). */
interface GeoPoint {
  readonly member: string
  readonly score: number
  readonly lon: number
  readonly lat: number
  /** Meters while searching; in the request's unit once the search is done. */
  dist: number
}

/** Everything a search asks for, once its arguments are read. */
interface SearchRequest {
  shape: GeoShape | null
  withDist: boolean
  withHash: boolean
  withCoord: boolean
  sort: 'none' | 'asc' | 'desc'
  any: boolean
  /** 0: no COUNT. */
  count: number
  storeKey: string | null
  storeDist: boolean
}

/**
 * `georadiusGeneric` of geo.c, argument handling: the source key is looked up and type-checked
 * first; GEORADIUS and GEORADIUSBYMEMBER then read their centre and radius (the latter only when
 * the key exists), and all forms read their options in any order.
 */
function parseSearch(argv: readonly string[], form: SearchForm, zset: ZSetValue | undefined): SearchRequest | ReplyError {
  const request: SearchRequest = {
    shape: null,
    withDist: false,
    withHash: false,
    withCoord: false,
    sort: 'none',
    any: false,
    count: 0,
    storeKey: null,
    storeDist: false,
  }
  let base: number
  let centre: [number, number] | null = null
  const isSearch = form === 'search' || form === 'searchstore'
  const noStore = form === 'radius_ro' || form === 'bymember_ro'
  if (form === 'radius' || form === 'radius_ro') {
    base = 6
    const position = readLonLat(argv[2], argv[3])
    if (position instanceof ReplyError) return position
    const radius = readRadius(argv[4], argv[5], position)
    if (radius instanceof ReplyError) return radius
    request.shape = radius
  } else if (!isSearch) {
    base = 5
    if (zset !== undefined) {
      const position = memberPosition(zset, argv[2])
      if (position === null) return UNDECODABLE_MEMBER
      const radius = readRadius(argv[3], argv[4], position)
      if (radius instanceof ReplyError) return radius
      request.shape = radius
    }
  } else {
    base = form === 'searchstore' ? 3 : 2
    if (form === 'searchstore') request.storeKey = argv[1]
  }

  let fromMember = false
  let fromLonLat = false
  let byRadius: [number, number] | null = null
  let byBox: [number, number, number] | null = null
  for (let i = base; i < argv.length; i++) {
    const option = argv[i].toLowerCase()
    const left = argv.length - i - 1
    if (option === 'withdist') request.withDist = true
    else if (option === 'withhash') request.withHash = true
    else if (option === 'withcoord') request.withCoord = true
    else if (option === 'any') request.any = true
    else if (option === 'asc') request.sort = 'asc'
    else if (option === 'desc') request.sort = 'desc'
    else if (option === 'count' && left >= 1) {
      const count = readInteger(argv[++i])
      if (count === null) return NOT_INTEGER
      if (count <= 0) return COUNT_NOT_POSITIVE
      request.count = count
    } else if ((option === 'store' || option === 'storedist') && left >= 1 && !noStore && !isSearch) {
      request.storeKey = argv[++i]
      request.storeDist = option === 'storedist'
    } else if (option === 'storedist' && form === 'searchstore') {
      request.storeDist = true
    } else if (option === 'frommember' && left >= 1 && isSearch && !fromLonLat) {
      const member = argv[++i]
      fromMember = true
      // Without a source key there is nothing to decode; parsing goes on to pick the reply.
      if (zset !== undefined) {
        centre = memberPosition(zset, member)
        if (centre === null) return UNDECODABLE_MEMBER
      }
    } else if (option === 'fromlonlat' && left >= 2 && isSearch && !fromMember) {
      const position = readLonLat(argv[i + 1], argv[i + 2])
      if (position instanceof ReplyError) return position
      centre = position
      fromLonLat = true
      i += 2
    } else if (option === 'byradius' && left >= 2 && isSearch && byBox === null) {
      const radius = readNumber(argv[i + 1], NEED_NUMERIC_RADIUS)
      if (radius instanceof ReplyError) return radius
      if (radius < 0) return RADIUS_NEGATIVE
      const unit = readUnit(argv[i + 2])
      if (unit instanceof ReplyError) return unit
      byRadius = [radius, unit]
      i += 2
    } else if (option === 'bybox' && left >= 3 && isSearch && byRadius === null) {
      const width = readNumber(argv[i + 1], NEED_NUMERIC_WIDTH)
      if (width instanceof ReplyError) return width
      const height = readNumber(argv[i + 2], NEED_NUMERIC_HEIGHT)
      if (height instanceof ReplyError) return height
      if (height < 0 || width < 0) return BOX_NEGATIVE
      const unit = readUnit(argv[i + 3])
      if (unit instanceof ReplyError) return unit
      byBox = [width, height, unit]
      i += 3
    } else {
      return SYNTAX
    }
  }

  if (request.storeKey !== null && (request.withDist || request.withHash || request.withCoord)) {
    const what = form === 'searchstore' ? 'GEOSEARCHSTORE' : 'STORE option in GEORADIUS'
    return new ReplyError(`ERR ${what} is not compatible with WITHDIST, WITHHASH and WITHCOORD options`)
  }
  if (isSearch && !fromMember && !fromLonLat) {
    return new ReplyError(`ERR exactly one of FROMMEMBER or FROMLONLAT can be specified for ${argv[0]}`)
  }
  if (isSearch && byRadius === null && byBox === null) {
    return new ReplyError(`ERR exactly one of BYRADIUS and BYBOX can be specified for ${argv[0]}`)
  }
  if (request.any && request.count === 0) return ANY_NEEDS_COUNT
  if (isSearch && centre !== null) {
    const [lon, lat] = centre
    if (byRadius !== null) request.shape = { kind: 'radius', lon, lat, radius: byRadius[0], conversion: byRadius[1] }
    else if (byBox !== null) request.shape = { kind: 'box', lon, lat, width: byBox[0], height: byBox[1], conversion: byBox[2] }
  }
  return request
}

/** `extractDistanceOrReply` for GEORADIUS*: a circle around `centre`. */
function readRadius(radiusText: string, unitText: string, centre: [number, number]): GeoShape | ReplyError {
  const radius = readNumber(radiusText, NEED_NUMERIC_RADIUS)
  if (radius instanceof ReplyError) return radius
  if (radius < 0) return RADIUS_NEGATIVE
  const conversion = readUnit(unitText)
  if (conversion instanceof ReplyError) return conversion
  return { kind: 'radius', lon: centre[0], lat: centre[1], radius, conversion }
}

/**
 * The points inside the shape, in Redis's order: cell by cell (`membersOfAllNeighbors`, which
 * skips a cell equal to the one searched just before it), each cell's score range in score
 * order. With `limit` (ANY) the search stops once that many points are found.
 */
function findPoints(zset: ZSetValue, shape: GeoShape, limit: number): GeoPoint[] {
  const points: GeoPoint[] = []
  let previous: GeoCell | null = null
  for (const cell of searchCells(shape)) {
    if (cell === null) continue
    if (previous !== null && cell.lon === previous.lon && cell.lat === previous.lat && cell.step === previous.step) continue
    if (limit > 0 && points.length >= limit) break
    const [min, max] = cellScoreRange(cell)
    const cursor = zset.cursorAt(zset.countBefore((score) => score >= min))
    for (; cursor.valid && cursor.score < max; cursor.next()) {
      const [lon, lat] = decodeScore(cursor.score)
      const dist = distanceWithinShape(shape, lon, lat)
      if (dist !== null) points.push({ member: cursor.member, score: cursor.score, lon, lat, dist })
      if (limit > 0 && points.length >= limit) break
    }
    previous = cell
  }
  return points
}

/** `(long long)score`, as WITHHASH replies it: out-of-range values give x86's INT64_MIN. */
function hashReply(score: number): number | bigint {
  const truncated = Math.trunc(score)
  if (truncated >= -(2 ** 63) && truncated < 2 ** 63) return integerReply(BigInt(truncated))
  return -(2n ** 63n)
}

function searchGeneric(ctx: CommandContext, argv: readonly string[], form: SearchForm): Out {
  const sourceKey = argv[form === 'searchstore' ? 2 : 1]
  const zset = readZSet(ctx, sourceKey)
  if (zset instanceof ReplyError) return zset
  const request = parseSearch(argv, form, zset)
  if (request instanceof ReplyError) return request
  if (zset === undefined) return request.storeKey === null ? [] : storeResult(ctx, request.storeKey, new ZSetValue())
  const shape = request.shape!
  // COUNT needs the closest points, so it implies ASC, unless ANY takes the first ones found.
  const sort = request.count !== 0 && request.sort === 'none' && !request.any ? 'asc' : request.sort
  const points = findPoints(zset, shape, request.any ? request.count : 0)
  const returned = request.count === 0 || points.length < request.count ? points.length : request.count
  if (sort !== 'none') {
    const ascending = (a: GeoPoint, b: GeoPoint) => (a.dist > b.dist ? 1 : a.dist === b.dist ? 0 : -1)
    const compare = sort === 'asc' ? ascending : (a: GeoPoint, b: GeoPoint) => -ascending(a, b)
    // A full sort is glibc's qsort (a stable merge sort); a partial one Redis's pqsort.
    if (returned === points.length) points.sort(compare)
    else partialSort(points, compare, 0, returned - 1)
  }
  for (let i = 0; i < returned; i++) points[i].dist /= shape.conversion

  if (request.storeKey !== null) {
    const entries = new Map<string, number>()
    for (let i = 0; i < returned; i++) entries.set(points[i].member, request.storeDist ? points[i].dist : points[i].score)
    return storeResult(ctx, request.storeKey, ZSetValue.fromResult(entries, zsetLimits(ctx)))
  }
  const options = Number(request.withDist) + Number(request.withHash) + Number(request.withCoord)
  const reply: Out[] = []
  for (let i = 0; i < returned; i++) {
    const point = points[i]
    if (options === 0) {
      reply.push(point.member)
      continue
    }
    const item: Out[] = [point.member]
    if (request.withDist) item.push(formatDistance(point.dist))
    if (request.withHash) item.push(hashReply(point.score))
    if (request.withCoord) item.push([formatCoordinate(point.lon), formatCoordinate(point.lat)])
    reply.push(item)
  }
  return reply
}

/** `GEORADIUS key longitude latitude radius unit [options] [STORE key | STOREDIST key]` */
function georadius(ctx: CommandContext, argv: readonly string[]): Out {
  return searchGeneric(ctx, argv, 'radius')
}

function georadiusRo(ctx: CommandContext, argv: readonly string[]): Out {
  return searchGeneric(ctx, argv, 'radius_ro')
}

/** `GEORADIUSBYMEMBER key member radius unit [options] [STORE key | STOREDIST key]` */
function georadiusbymember(ctx: CommandContext, argv: readonly string[]): Out {
  return searchGeneric(ctx, argv, 'bymember')
}

function georadiusbymemberRo(ctx: CommandContext, argv: readonly string[]): Out {
  return searchGeneric(ctx, argv, 'bymember_ro')
}

/** `GEOSEARCH key FROMMEMBER m | FROMLONLAT lon lat  BYRADIUS r unit | BYBOX w h unit  [options]` */
function geosearch(ctx: CommandContext, argv: readonly string[]): Out {
  return searchGeneric(ctx, argv, 'search')
}

/** `GEOSEARCHSTORE destination source … [STOREDIST]` */
function geosearchstore(ctx: CommandContext, argv: readonly string[]): Out {
  return searchGeneric(ctx, argv, 'searchstore')
}

/** Geo commands. */
export const geoCommands: CommandTable = {
  geoadd,
  geodist,
  geohash,
  geopos,
  georadius,
  georadius_ro: georadiusRo,
  georadiusbymember,
  georadiusbymember_ro: georadiusbymemberRo,
  geosearch,
  geosearchstore,
}
