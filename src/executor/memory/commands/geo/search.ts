import { ReplyError } from '../../../../reply.js'
import type { CommandContext, Out } from '../../command.js'
import { NOT_INTEGER, SYNTAX } from '../../errors.js'
import { cellScoreRange, decodeScore, distanceWithinShape, searchCells, type GeoCell, type GeoShape } from '../../lib/geohash.js'
import { integerReply, readInteger } from '../../lib/numbers.js'
import { ZSetValue } from '../../types/zset.js'
import { partialSort } from '../../lib/pqsort.js'
import { readZSet, storeResult, zsetLimits } from '../zset/access.js'
import { UNDECODABLE_MEMBER, formatCoordinate, formatDistance, memberPosition, readLonLat, readNumber, readUnit } from './arguments.js'

/**
 * GEORADIUS, GEORADIUSBYMEMBER (and their _RO forms), GEOSEARCH and GEOSEARCHSTORE: geo.c's
 * `georadiusGeneric`, from argument parsing to the cell-by-cell search, the sorts and the store.
 */

const NEED_NUMERIC_RADIUS = new ReplyError('ERR need numeric radius')
const RADIUS_NEGATIVE = new ReplyError('ERR radius cannot be negative')
const NEED_NUMERIC_WIDTH = new ReplyError('ERR need numeric width')
const NEED_NUMERIC_HEIGHT = new ReplyError('ERR need numeric height')
const BOX_NEGATIVE = new ReplyError('ERR height or width cannot be negative')
const COUNT_NOT_POSITIVE = new ReplyError('ERR COUNT must be > 0')
const ANY_NEEDS_COUNT = new ReplyError('ERR the ANY argument requires COUNT argument')

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

/** The event a STORE of this form reports (GEOSEARCHSTORE, or the GEORADIUS forms' STORE). */
function storeEvent(form: SearchForm): string {
  return form === 'searchstore' ? 'geosearchstore' : 'georadiusstore'
}

function searchGeneric(ctx: CommandContext, argv: readonly string[], form: SearchForm): Out {
  const sourceKey = argv[form === 'searchstore' ? 2 : 1]
  const zset = readZSet(ctx, sourceKey)
  if (zset instanceof ReplyError) return zset
  const request = parseSearch(argv, form, zset)
  if (request instanceof ReplyError) return request
  if (zset === undefined) return request.storeKey === null ? [] : storeResult(ctx, request.storeKey, new ZSetValue(), storeEvent(form))
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
    return storeResult(ctx, request.storeKey, ZSetValue.fromResult(entries, zsetLimits(ctx)), storeEvent(form))
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
export function georadius(ctx: CommandContext, argv: readonly string[]): Out {
  return searchGeneric(ctx, argv, 'radius')
}

export function georadiusRo(ctx: CommandContext, argv: readonly string[]): Out {
  return searchGeneric(ctx, argv, 'radius_ro')
}

/** `GEORADIUSBYMEMBER key member radius unit [options] [STORE key | STOREDIST key]` */
export function georadiusbymember(ctx: CommandContext, argv: readonly string[]): Out {
  return searchGeneric(ctx, argv, 'bymember')
}

export function georadiusbymemberRo(ctx: CommandContext, argv: readonly string[]): Out {
  return searchGeneric(ctx, argv, 'bymember_ro')
}

/** `GEOSEARCH key FROMMEMBER m | FROMLONLAT lon lat  BYRADIUS r unit | BYBOX w h unit  [options]` */
export function geosearch(ctx: CommandContext, argv: readonly string[]): Out {
  return searchGeneric(ctx, argv, 'search')
}

/** `GEOSEARCHSTORE destination source … [STOREDIST]` */
export function geosearchstore(ctx: CommandContext, argv: readonly string[]): Out {
  return searchGeneric(ctx, argv, 'searchstore')
}

