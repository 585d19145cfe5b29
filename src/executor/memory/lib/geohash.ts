/**
 * Redis's geohash arithmetic (geohash.c, geohash_helper.c), reproduced operation for operation
 * in doubles so that scores, decoded positions, distances and search areas come out bit for bit
 * as Redis computes them.
 *
 * A position is stored as a sorted-set score: the 26-bit cell indexes of its longitude (range
 * -180..180) and latitude (Web Mercator's -85.05112878..85.05112878) interleaved into 52 bits,
 * latitude in the even bits. 64-bit values are handled as two unsigned 32-bit halves.
 *
 * Trigonometry uses the correctly rounded functions of `libm.ts`, which give what glibc's libm
 * gives Redis (V8's `Math.sin` and friends differ in the last bit on a few percent of inputs).
 */

import { asin } from './libm/asin.js'
import { cos, sin } from './libm/sincos.js'

/** Bits per axis of a stored position (`GEO_STEP_MAX`). */
export const GEO_STEP_MAX = 26
export const GEO_LAT_MIN = -85.05112878
export const GEO_LAT_MAX = 85.05112878
export const GEO_LONG_MIN = -180
export const GEO_LONG_MAX = 180

/** Earth's quadratic mean radius for WGS-84, as Redis uses it. */
const EARTH_RADIUS_IN_METERS = 6372797.560856
const MERCATOR_MAX = 20037726.37
/** `D_R` of geohash_helper.c: degrees to radians is `angle * D_R`, radians to degrees `angle / D_R`. */
const D_R = Math.PI / 180.0

interface Range {
  readonly min: number
  readonly max: number
}

const LONG_RANGE: Range = { min: GEO_LONG_MIN, max: GEO_LONG_MAX }
const LAT_RANGE: Range = { min: GEO_LAT_MIN, max: GEO_LAT_MAX }
/** The ranges of standard geohash strings (GEOHASH re-encodes with these). */
const STANDARD_LAT_RANGE: Range = { min: -90, max: 90 }

/** A geohash cell: its index along each axis with `step` bits per axis (`GeoHashBits`). */
export interface GeoCell {
  readonly lon: number
  readonly lat: number
  readonly step: number
}

/** The bounds of a cell in degrees (`GeoHashArea`). */
export interface GeoArea {
  readonly lonMin: number
  readonly lonMax: number
  readonly latMin: number
  readonly latMax: number
}

// ---- bit interleaving on 32-bit halves ----

/** The 16 low bits of `x` spread to the even bit positions of a 32-bit value. */
function spread16(x: number): number {
  x &= 0xffff
  x = (x | (x << 8)) & 0x00ff00ff
  x = (x | (x << 4)) & 0x0f0f0f0f
  x = (x | (x << 2)) & 0x33333333
  return (x | (x << 1)) & 0x55555555
}

/** The even bits of a 32-bit value packed into 16 bits. */
function squash16(x: number): number {
  x &= 0x55555555
  x = (x | (x >>> 1)) & 0x33333333
  x = (x | (x >>> 2)) & 0x0f0f0f0f
  x = (x | (x >>> 4)) & 0x00ff00ff
  return (x | (x >>> 8)) & 0x0000ffff
}

/** `interleave64(lat, lon)` as `[high, low]` 32-bit halves: latitude bits even, longitude odd. */
function interleave(lat: number, lon: number): [number, number] {
  const low = (spread16(lat) | (spread16(lon) << 1)) >>> 0
  const high = (spread16(lat >>> 16) | (spread16(lon >>> 16) << 1)) >>> 0
  return [high, low]
}

/** A 64-bit value given as halves, as the nearest double (a single rounding, as C's conversion). */
function halvesToNumber(high: number, low: number): number {
  return high * 4294967296 + low
}

// ---- encoding and decoding ----

/**
 * `geohashEncode`: the cell of a position at `step` bits per axis, or null when the position is
 * outside Redis's limits or the given ranges. An offset is truncated to an integer the way C
 * converts a double to `uint32_t`; a coordinate at the top of its range gives index `2^step`.
 */
export function encodeCell(lon: number, lat: number, step: number, lonRange: Range = LONG_RANGE, latRange: Range = LAT_RANGE): GeoCell | null {
  if (lon > GEO_LONG_MAX || lon < GEO_LONG_MIN || lat > GEO_LAT_MAX || lat < GEO_LAT_MIN) return null
  if (lat < latRange.min || lat > latRange.max || lon < lonRange.min || lon > lonRange.max) return null
  let latOffset = (lat - latRange.min) / (latRange.max - latRange.min)
  let lonOffset = (lon - lonRange.min) / (lonRange.max - lonRange.min)
  latOffset *= 2 ** step
  lonOffset *= 2 ** step
  return { lon: Math.trunc(lonOffset) >>> 0, lat: Math.trunc(latOffset) >>> 0, step }
}

/**
 * The sorted-set score of a position: its 52-bit hash (`geohashAlign52Bits` of the step-26
 * cell). GEOADD passes it to ZADD as an integer text, which reads back as this double.
 */
export function positionScore(lon: number, lat: number): number | null {
  const cell = encodeCell(lon, lat, GEO_STEP_MAX)
  return cell === null ? null : cellScoreRange(cell)[0]
}

/**
 * The scores a cell covers, `[min, max)` (`scoresOfGeoHashBox`): its bits aligned to 52 bits,
 * and those of the next cell.
 */
export function cellScoreRange(cell: GeoCell): [number, number] {
  const [high, low] = interleave(cell.lat, cell.lon)
  const scale = 2 ** (52 - cell.step * 2)
  const bits = halvesToNumber(high, low)
  // bits + 1 in 64-bit arithmetic: a carry out of the low half moves into the high one.
  const next = low === 0xffffffff ? halvesToNumber(high + 1, 0) : halvesToNumber(high, low + 1)
  return [bits * scale, next * scale]
}

const TWO_POW_63 = 2 ** 63
const UINT64_SIGN = 1n << 63n
const UINT64_MASK = (1n << 64n) - 1n

/**
 * A score as C's `(uint64_t)score` evaluates on x86-64 (the conversion `decodeGeohash` makes):
 * truncation for ordinary values; for scores that are no geo hash (negative, too large, inf) the
 * results of the `cvttsd2si` sequence compilers emit, so GEOPOS of such members answers as Redis.
 */
function scoreToHalves(score: number): [number, number] {
  if (score >= 0 && score < 2 ** 53) {
    const bits = Math.trunc(score)
    const high = Math.floor(bits / 4294967296)
    return [high, bits - high * 4294967296]
  }
  let bits: bigint
  if (score >= TWO_POW_63) {
    const reduced = score - TWO_POW_63
    bits = (reduced >= TWO_POW_63 ? UINT64_SIGN : BigInt(Math.trunc(reduced))) ^ UINT64_SIGN
  } else if (score >= -TWO_POW_63) {
    bits = BigInt(Math.trunc(score)) & UINT64_MASK
  } else {
    bits = UINT64_SIGN
  }
  return [Number(bits >> 32n), Number(bits & 0xffffffffn)]
}

/** `geohashDecode` of a cell: its bounds in degrees. */
export function cellArea(cell: GeoCell): GeoArea {
  const latScale = LAT_RANGE.max - LAT_RANGE.min
  const lonScale = LONG_RANGE.max - LONG_RANGE.min
  const cells = 2 ** cell.step
  // `(index + 1)` is uint32_t arithmetic in C: it wraps to 0 for index 2^32-1.
  return {
    latMin: LAT_RANGE.min + (cell.lat / cells) * latScale,
    latMax: LAT_RANGE.min + (((cell.lat + 1) >>> 0) / cells) * latScale,
    lonMin: LONG_RANGE.min + (cell.lon / cells) * lonScale,
    lonMax: LONG_RANGE.min + (((cell.lon + 1) >>> 0) / cells) * lonScale,
  }
}

/**
 * The position a score stands for (`decodeGeohash`): the centre of its step-26 cell, clamped to
 * Redis's limits, as `[longitude, latitude]`.
 */
export function decodeScore(score: number): [number, number] {
  const [high, low] = scoreToHalves(score)
  const lat = (squash16(low) | (squash16(high) << 16)) >>> 0
  const lon = (squash16(low >>> 1) | (squash16(high >>> 1) << 16)) >>> 0
  const area = cellArea({ lon, lat, step: GEO_STEP_MAX })
  let x = (area.lonMin + area.lonMax) / 2
  if (x > GEO_LONG_MAX) x = GEO_LONG_MAX
  if (x < GEO_LONG_MIN) x = GEO_LONG_MIN
  let y = (area.latMin + area.latMax) / 2
  if (y > GEO_LAT_MAX) y = GEO_LAT_MAX
  if (y < GEO_LAT_MIN) y = GEO_LAT_MIN
  return [x, y]
}

const GEOHASH_ALPHABET = '0123456789bcdefghjkmnpqrstuvwxyz'

/**
 * The 11-character standard geohash of a stored score (GEOHASH): the decoded position re-encoded
 * with latitude range -90..90; the 52 bits give ten characters and the eleventh is always '0'.
 */
export function geohashString(score: number): string {
  const [lon, lat] = decodeScore(score)
  const cell = encodeCell(lon, lat, GEO_STEP_MAX, LONG_RANGE, STANDARD_LAT_RANGE)!
  const [high, low] = interleave(cell.lat, cell.lon)
  let text = ''
  for (let i = 0; i < 10; i++) {
    const shift = 52 - (i + 1) * 5
    const index = shift >= 32 ? (high >>> (shift - 32)) & 0x1f : ((low >>> shift) | (high << (32 - shift))) & 0x1f
    text += GEOHASH_ALPHABET[index]
  }
  return text + '0'
}

// ---- distances ----

const degreesToRadians = (angle: number): number => angle * D_R
const radiansToDegrees = (angle: number): number => angle / D_R

/**
 * `geohashGetDistance`: the haversine great-circle distance in meters. Redis 7.0 evaluates the
 * full formula even for points on one meridian; Redis 7.2 shortcuts that case to
 * `R × |Δlatitude|` (`geohashGetLatDistance`), which can differ in the last bits.
 */
export function geoDistance(lon1: number, lat1: number, lon2: number, lat2: number): number {
  const lat1r = degreesToRadians(lat1)
  const lon1r = degreesToRadians(lon1)
  const lat2r = degreesToRadians(lat2)
  const lon2r = degreesToRadians(lon2)
  const u = sin((lat2r - lat1r) / 2)
  const v = sin((lon2r - lon1r) / 2)
  return 2.0 * EARTH_RADIUS_IN_METERS * asin(Math.sqrt(u * u + cos(lat1r) * cos(lat2r) * v * v))
}

// ---- search areas ----

/** What GEOSEARCH / GEORADIUS look for: a circle or an axis-aligned box around a centre. */
export type GeoShape =
  | { readonly kind: 'radius'; readonly lon: number; readonly lat: number; readonly radius: number; readonly conversion: number }
  | { readonly kind: 'box'; readonly lon: number; readonly lat: number; readonly width: number; readonly height: number; readonly conversion: number }

/**
 * The distance of a point from the shape's centre in meters when the point is inside the shape
 * (`geoWithinShape`), else null. In a box, a point qualifies by its north-south distance and its
 * east-west distance along its own parallel.
 */
export function distanceWithinShape(shape: GeoShape, lon: number, lat: number): number | null {
  if (shape.kind === 'radius') {
    const distance = geoDistance(shape.lon, shape.lat, lon, lat)
    return distance > shape.radius * shape.conversion ? null : distance
  }
  const width = shape.width * shape.conversion
  const height = shape.height * shape.conversion
  // Redis 7.0's `geohashGetDistanceIfInRectangle`: both offsets measured with the full formula.
  const lonDistance = geoDistance(lon, lat, shape.lon, lat)
  const latDistance = geoDistance(lon, lat, lon, shape.lat)
  if (lonDistance > width / 2 || latDistance > height / 2) return null
  return geoDistance(shape.lon, shape.lat, lon, lat)
}

/** `geohashBoundingBox`: `[minLon, minLat, maxLon, maxLat]` of the shape. */
function boundingBox(shape: GeoShape): [number, number, number, number] {
  const { lon, lat, conversion } = shape
  const height = conversion * (shape.kind === 'radius' ? shape.radius : shape.height / 2)
  const width = conversion * (shape.kind === 'radius' ? shape.radius : shape.width / 2)
  const latDelta = radiansToDegrees(height / EARTH_RADIUS_IN_METERS)
  const lonDeltaTop = radiansToDegrees(width / EARTH_RADIUS_IN_METERS / cos(degreesToRadians(lat + latDelta)))
  const lonDeltaBottom = radiansToDegrees(width / EARTH_RADIUS_IN_METERS / cos(degreesToRadians(lat - latDelta)))
  // The wider edge of the box is towards the equator.
  const southern = lat < 0
  return [southern ? lon - lonDeltaBottom : lon - lonDeltaTop, lat - latDelta, southern ? lon + lonDeltaBottom : lon + lonDeltaTop, lat + latDelta]
}

/** `geohashEstimateStepsByRadius`: the cell size (bits per axis) for a search of this radius. */
function estimateSteps(rangeMeters: number, lat: number): number {
  if (rangeMeters === 0) return 26
  let step = 1
  while (rangeMeters < MERCATOR_MAX) {
    rangeMeters *= 2
    step++
  }
  step -= 2
  // Cells shrink towards the poles.
  if (lat > 66 || lat < -66) {
    step--
    if (lat > 80 || lat < -80) step--
  }
  if (step < 1) step = 1
  if (step > 26) step = 26
  return step
}

/** A cell moved by `dLon`, `dLat` cells, wrapping around each axis (`geohash_move_x/y`). */
function neighbour(cell: GeoCell, dLon: number, dLat: number): GeoCell {
  const mask = 2 ** cell.step - 1
  const lon = dLon === 0 ? cell.lon : (cell.lon + dLon) & mask
  const lat = dLat === 0 ? cell.lat : (cell.lat + dLat) & mask
  return { lon, lat, step: cell.step }
}

/**
 * The cells to search for a shape, in Redis's order: the centre's cell, then north, south, east,
 * west, north-east, north-west, south-east, south-west; null for the neighbours Redis leaves out
 * because the shape's bounding box does not reach them (`geohashCalculateAreasByShapeWGS84`).
 */
export function searchCells(shape: GeoShape): (GeoCell | null)[] {
  const [minLon, minLat, maxLon, maxLat] = boundingBox(shape)
  const radiusMeters =
    (shape.kind === 'radius' ? shape.radius : Math.sqrt((shape.width / 2) * (shape.width / 2) + (shape.height / 2) * (shape.height / 2))) *
    shape.conversion
  let steps = estimateSteps(radiusMeters, shape.lat)
  let centre = encodeCell(shape.lon, shape.lat, steps)!
  // A step whose neighbours do not reach the bounding box's edges is one too fine.
  const north = cellArea(neighbour(centre, 0, 1))
  const south = cellArea(neighbour(centre, 0, -1))
  const east = cellArea(neighbour(centre, 1, 0))
  const west = cellArea(neighbour(centre, -1, 0))
  if (steps > 1 && (north.latMax < maxLat || south.latMin > minLat || east.lonMax < maxLon || west.lonMin > minLon)) {
    steps--
    centre = encodeCell(shape.lon, shape.lat, steps)!
  }
  const cells: (GeoCell | null)[] = [
    centre,
    neighbour(centre, 0, 1),
    neighbour(centre, 0, -1),
    neighbour(centre, 1, 0),
    neighbour(centre, -1, 0),
    neighbour(centre, 1, 1),
    neighbour(centre, -1, 1),
    neighbour(centre, 1, -1),
    neighbour(centre, -1, -1),
  ]
  if (steps >= 2) {
    const area = cellArea(centre)
    const drop = (...indexes: number[]) => indexes.forEach((i) => (cells[i] = null))
    if (area.latMin < minLat) drop(2, 8, 7)
    if (area.latMax > maxLat) drop(1, 5, 6)
    if (area.lonMin < minLon) drop(4, 8, 6)
    if (area.lonMax > maxLon) drop(3, 7, 5)
  }
  return cells
}
