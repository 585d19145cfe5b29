import { NULL_ARRAY, ReplyError } from '../../../../reply.js'
import type { CommandContext, CommandTable, Out } from '../../command.js'
import { SYNTAX } from '../../errors.js'
import { geoDistance, geohashString, positionScore } from '../../lib/geohash.js'
import { formatCoordinate, formatDistance, memberPosition, readLonLat, readUnit } from './arguments.js'
import { georadius, georadiusRo, georadiusbymember, georadiusbymemberRo, geosearch, geosearchstore } from './search.js'
import { readZSet } from '../zset/access.js'
import { zaddGeneric } from '../zset/add.js'

/**
 * Geo commands (geo.c): positions stored in sorted sets as 52-bit geohash scores (`geohash.ts`),
 * with Redis 7.0.15's argument parsing, error texts, search order and number formatting. The
 * searches are in `geo/search.ts`, the shared argument helpers in `geo/arguments.ts`.
 */

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
