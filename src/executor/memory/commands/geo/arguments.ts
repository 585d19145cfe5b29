import { ReplyError } from '../../../../reply.js'
import { NOT_FLOAT } from '../../errors.js'
import { GEO_LAT_MAX, GEO_LAT_MIN, GEO_LONG_MAX, GEO_LONG_MIN, decodeScore } from '../../lib/geohash.js'
import type { ZSetValue } from '../../types/zset.js'
import { formatFixed, readScore } from '../zset/score.js'

/** Argument parsing and number formatting shared by the geo commands (geo.c's helpers). */

const UNSUPPORTED_UNIT = new ReplyError('ERR unsupported unit provided. please use M, KM, FT, MI')
export const UNDECODABLE_MEMBER = new ReplyError('ERR could not decode requested zset member')

/** `extractLongLatOrReply`: a longitude and a latitude within Redis's limits. */
export function readLonLat(lonText: string, latText: string): [number, number] | ReplyError {
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
export function readUnit(text: string): number | ReplyError {
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
export function readNumber(text: string, error: ReplyError): number | ReplyError {
  const value = readScore(text)
  return value === null ? error : value
}

/** The position of `member` in `zset` (`longLatFromMember`), or null when it is not there. */
export function memberPosition(zset: ZSetValue, member: string): [number, number] | null {
  const score = zset.score(member)
  return score === undefined ? null : decodeScore(score)
}

/**
 * A coordinate as `addReplyHumanLongDouble` writes it: the double as a long double, `%.17Lf`,
 * trailing zeros (and a bare point) removed.
 */
export function formatCoordinate(value: number): string {
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
export function formatDistance(value: number): string {
  if (value === 0) return '0.0000'
  const scaled = value * 10000
  let units = Math.round(scaled)
  // Math.round breaks ties upwards; llrint breaks them to the even neighbour.
  if (units - scaled === 0.5 && units % 2 !== 0) units -= 1
  const digits = String(Math.abs(units)).padStart(5, '0')
  return `${units < 0 ? '-' : ''}${digits.slice(0, -4)}.${digits.slice(-4)}`
}

