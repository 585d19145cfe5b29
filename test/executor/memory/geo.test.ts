import { afterEach, describe, expect, test } from 'vitest'
import { MemoryExecutor } from '../../../src/executor/memory/memory-executor.js'
import { decodeScore, geohashString, positionScore } from '../../../src/executor/memory/lib/geohash.js'
import { asin } from '../../../src/executor/memory/lib/libm/asin.js'
import { fma } from '../../../src/executor/memory/lib/libm/double-double.js'
import { cos, sin } from '../../../src/executor/memory/lib/libm/sincos.js'
import { ReplyError, type Reply } from '../../../src/reply.js'
import { geoSequenceCases } from '../../differential/geo.sequences.js'

/**
 * Geo pieces the differential suite does not isolate: the geohash arithmetic, the libm ports
 * against glibc's own results, and the seeded point sets (which must really add their points).
 *
 * The libm vectors were produced on the reference machine by CPython's `math` module, which calls
 * glibc 2.36 (the x86-64 build selects its FMA variants on CPUs with FMA, as Redis's libm calls
 * do there). They are written as C hexadecimal floats so that no digit is lost.
 */

/** A C99 hexadecimal float (`-0x1.8p+3`) as a number. */
function hex(text: string): number {
  const parts = /^(-?)0x([01])\.([0-9a-f]+)p([+-]\d+)$/.exec(text)
  if (parts === null) throw new Error(`not a hex float: ${text}`)
  const value = (Number(parts[2]) + parseInt(parts[3], 16) / 16 ** parts[3].length) * 2 ** Number(parts[4])
  return parts[1] === '-' ? -value : value
}

const SIN_COS_VECTORS: readonly (readonly [string, string, string])[] = [
  ['0x1.141e81ba16200p-3', '0x1.13488d15057c2p-3', '0x1.fb5a8680e091cp-1'],
  ['0x1.afb2acc518502p+2', '0x1.c88636f92d260p-2', '0x1.ca4d387f5759dp-1'],
  ['-0x1.16a5527018820p-3', '-0x1.15c971587c7e0p-3', '0x1.fb44b0e7729f6p-1'],
  ['-0x1.05243b1276f12p-3', '-0x1.046f386804ceep-3', '0x1.fbd7e5cdfa5f3p-1'],
  ['-0x1.226896cac3a9cp+2', '0x1.f833a7d67991ep-1', '-0x1.64148216870c2p-3'],
  ['-0x1.c9979172424bap+0', '-0x1.f4074be7ab623p-1', '-0x1.b8481c03ccf35p-3'],
  ['0x1.12e0be826d695p-30', '0x1.12e0be826d695p-30', '0x1.0000000000000p+0'],
  ['0x1.0000000000000p-1', '0x1.eaee8744b05f0p-2', '0x1.c1528065b7d50p-1'],
  ['0x1.b5f6fd21ff2e5p-1', '0x1.82798415a7adcp-1', '0x1.4fd44debe8cccp-1'],
  ['0x1.b600000000000p-1', '0x1.827f6d2325578p-1', '0x1.4fcd8091b8f24p-1'],
  ['0x1.921fb54442d18p+0', '0x1.0000000000000p+0', '0x1.1a62633145c07p-54'],
  ['0x1.368fd9fd36f7ep+1', '0x1.4fcd8283b01acp-1', '-0x1.827f6b727efdbp-1'],
  ['0x1.8000000000000p+1', '0x1.210386db6d55bp-3', '-0x1.fae04be85e5d2p-1'],
  ['-0x1.f99999999999ap+2', '-0x1.ff753d53a5fa9p-1', '-0x1.78d9732562aabp-5'],
  ['0x1.c8dfacfa66b50p-1', '0x1.8e9c6aac58fadp-1', '0x1.4154996f33cb8p-1'],
  ['-0x1.851c76e743e62p+1', '-0x1.9fb0456661a11p-4', '-0x1.fd5b43c8fb538p-1'],
  ['-0x1.70978b010bd07p+0', '-0x1.fb9d37fb88917p-1', '0x1.0b7d1eba4e364p-3'],
  ['-0x1.c57dd4b038feap+0', '-0x1.f5ba343e4ddb3p-1', '-0x1.983075fcfeb1ep-3'],
  ['0x1.836f374830e60p+0', '0x1.ff2847b295ef3p-1', '0x1.d5cdb9617759dp-5'],
  ['0x1.218122fe16b88p+0', '0x1.cf40190c2b932p-1', '0x1.b416685927339p-2'],
  ['0x1.41460437d874ep+1', '0x1.2e5254e638201p-1', '-0x1.9d36bbaa08417p-1'],
  ['-0x1.526134905564cp+1', '-0x1.e9227193199b1p-2', '-0x1.c1cfe03bdf57cp-1'],
  ['-0x1.ffb1731929e40p-2', '-0x1.eaa9969a4ace4p-2', '0x1.c165536f90909p-1'],
  ['-0x1.8130ab90016f8p+1', '-0x1.0e26759c1d0afp-3', '-0x1.fb86aa5cc3936p-1'],
  ['-0x1.ccfbc969f3780p+0', '-0x1.f286c5dbab81bp-1', '-0x1.d2bd5d65db7a3p-3'],
  ['0x1.18c575cfca380p-5', '0x1.18b7637f6c8edp-5', '0x1.ffb305cb5d841p-1'],
  ['-0x1.83dc9a9354190p+1', '-0x1.c771bbcc81352p-4', '-0x1.fcd3355e63511p-1'],
  ['-0x1.ed6ca506f58d4p+0', '-0x1.dfc831ababa0ap-1', '-0x1.6582617ad3658p-2'],
  ['0x1.eb242dec100d8p-1', '0x1.a3357353ccc79p-1', '0x1.25f3cdd1d850ep-1'],
  ['0x1.26874af145480p-2', '0x1.227bf9512e0e7p-2', '0x1.eaf795c484470p-1'],
  ['-0x1.ca07b3a400827p+0', '-0x1.f3d6e55a6e981p-1', '-0x1.bbb409987e068p-3'],
  ['0x1.24817ba5259c0p-1', '0x1.14da1692263afp-1', '0x1.aeb19328f51d9p-1'],
  ['0x1.faf88a4ba1f90p+0', '0x1.d5a7e91d50ab0p-1', '-0x1.97c2e9821d61bp-2'],
  ['-0x1.9446b618b2b87p+1', '0x1.137d175d48003p-6', '-0x1.ffed784a537cfp-1'],
  ['0x1.f50de420b2bf0p+0', '0x1.da3df9451d32ap-1', '-0x1.81f1ffa3902d0p-2'],
  ['0x1.44a1af89c05d8p+0', '0x1.e8b8a9378ad1cp-1', '0x1.3141cb0179e95p-2'],
  ['-0x1.05bbca2d7df06p+0', '-0x1.b4eb977623399p-1', '0x1.0aeabe90f4c43p-1'],
  ['-0x1.1a3b2f838d478p+1', '-0x1.9c75949d01c2fp-1', '-0x1.2f59a4dc441b5p-1'],
  ['0x1.768c87e7c823ep+1', '0x1.b5cb3910b9ee9p-3', '-0x1.f42a3decda513p-1'],
  ['-0x1.0bb9371e44704p+0', '-0x1.bb0ba58d1519ap-1', '0x1.009f26c870774p-1'],
]
const ASIN_VECTORS: readonly (readonly [string, string])[] = [
  ['0x1.999999999999ap-4', '0x1.9a49276037884p-4'],
  ['0x1.47ae147ae147bp-7', '0x1.47af7a68f8eefp-7'],
  ['0x1.fffef39085f4ap-4', '0x1.00ab5979ce024p-3'],
  ['-0x1.999999999999ap-5', '-0x1.99c5570328659p-5'],
  ['0x1.12e0be826d695p-30', '0x1.12e0be826d695p-30'],
  ['0x1.01b2b29a4692bp-25', '0x1.01b2b29a4692cp-25'],
  ['-0x1.a1073bcf5e8aep-4', '-0x1.a1c08b2dd5430p-4'],
  ['-0x1.9cf661d20cf6cp-4', '-0x1.9daa4ef03f5f8p-4'],
  ['0x1.63d5902c06bdap-4', '0x1.644888ef4d4b1p-4'],
  ['0x1.a8dca0876f470p-6', '0x1.a8e8d20782e40p-6'],
  ['0x1.3a7fd5858fc8ap-4', '0x1.3acf2771eca7ap-4'],
  ['0x1.d67d9e759cde4p-5', '0x1.d6bfeeed8c6a1p-5'],
  ['0x1.28c7d07fd26d0p-7', '0x1.28c8da6b5908dp-7'],
  ['0x1.e47875760dc64p-4', '0x1.e59b79f97a5c3p-4'],
  ['-0x1.f185efd7a7808p-6', '-0x1.f19984f937d65p-6'],
  ['0x1.aa511d2c36ed0p-7', '0x1.aa54316a152cap-7'],
  ['0x1.514f74d07744cp-4', '0x1.51b15b710b14dp-4'],
  ['0x1.e574f7c559ee0p-6', '0x1.e58728d67f8ddp-6'],
  ['0x1.72634b2e4a0e6p-4', '0x1.72e4fe88ba280p-4'],
  ['0x1.3cd59a6273a60p-6', '0x1.3cdaa8c177ff6p-6'],
]

describe('libm ports give glibc 2.36 results bit for bit', () => {
  test('sin and cos (s_sin.c, FMA build)', () => {
    for (const [x, s, c] of SIN_COS_VECTORS) {
      expect(sin(hex(x)), `sin(${x})`).toBe(hex(s))
      expect(cos(hex(x)), `cos(${x})`).toBe(hex(c))
    }
  })

  test('asin below 0.125 (e_asin.c Taylor branch, FMA build)', () => {
    for (const [y, a] of ASIN_VECTORS) expect(asin(hex(y)), `asin(${y})`).toBe(hex(a))
  })

  test('asin above 0.125 is correctly rounded', () => {
    // Values from glibc, which rounds these correctly too; then the exact edges.
    expect(asin(0.5)).toBe(0.5235987755982989)
    expect(asin(Math.SQRT1_2)).toBe(0.7853981633974484)
    expect(asin(0.9)).toBe(1.1197695149986342)
    expect(asin(0.3)).toBe(0.3046926540153975)
    expect(asin(1)).toBe(Math.PI / 2)
    expect(asin(-1)).toBe(-Math.PI / 2)
    expect(Number.isNaN(asin(1.0000000000000002))).toBe(true)
  })

  test('fma rounds a × b + c once', () => {
    // (1 + 2^-52)² - 1 needs the exact product: 2^-51 + 2^-104.
    expect(fma(1 + 2 ** -52, 1 + 2 ** -52, -1)).toBe(2 ** -51 + 2 ** -104)
    expect(fma(0.1, 10, -1)).toBe(5.551115123125783e-17)
    expect(fma(3, 5, 0)).toBe(15)
    expect(fma(2 ** 600, 2 ** 600, 1)).toBe(Infinity)
  })
})

describe('geohash arithmetic', () => {
  test('positions encode to Redis scores and decode to cell centres', () => {
    expect(positionScore(13.361389, 38.115556)).toBe(3479099956230698)
    expect(positionScore(15.087269, 37.502669)).toBe(3479447370796909)
    const [lon, lat] = decodeScore(3479099956230698)
    expect(lon).toBe(13.361389338970184)
    expect(lat).toBe(38.1155563954963)
    expect(positionScore(181, 0)).toBeNull()
    expect(positionScore(0, 85.06)).toBeNull()
  })

  test('the top edges of the ranges give index 2^26 and decode clamped', () => {
    const score = positionScore(180, 85.05112878)!
    expect(score).toBe(3 * 2 ** 52)
    expect(decodeScore(score)).toEqual([180, 85.05112878])
  })

  test('standard geohash strings', () => {
    expect(geohashString(3479099956230698)).toBe('sqc8b49rny0')
    expect(geohashString(3479447370796909)).toBe('sqdtr74hyu0')
    expect(geohashString(positionScore(180, 85.05112878)!)).toBe('bp05b5048p0')
  })

  test('scores that are no geohash decode as C converts them to uint64 on x86-64', () => {
    // 1e20 and inf convert to 0 (the south-west corner); -5 wraps to 2^64 - 5 (clamped north-east).
    expect(decodeScore(1e20)).toEqual(decodeScore(0))
    expect(decodeScore(Infinity)).toEqual(decodeScore(0))
    expect(decodeScore(-5)).toEqual([180, 85.05112878])
  })
})

describe('seeded geo point sets', () => {
  const executors: MemoryExecutor[] = []
  afterEach(async () => {
    await Promise.all(executors.splice(0).map((executor) => executor.close()))
  })

  test('every sequence adds all its points and finds some of them', () => {
    const executor = new MemoryExecutor({ activeExpiryInterval: 0 })
    executors.push(executor)
    for (const entry of geoSequenceCases) {
      executor.execSync(['FLUSHALL'])
      const added = executor.execSync(entry.commands[0]) as Reply
      expect(added, entry.name).not.toBeInstanceOf(ReplyError)
      expect(Number(added), entry.name).toBeGreaterThan(0)
      let found = 0
      for (const command of entry.commands.slice(1)) {
        const reply = executor.execSync(command)
        if (command[0] === 'GEOSEARCH' && Array.isArray(reply)) found += reply.length
      }
      expect(found, entry.name).toBeGreaterThan(0)
    }
  })
})
