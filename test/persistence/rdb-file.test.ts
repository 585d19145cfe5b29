/**
 * The RDB file writer and loader on their own: layout, LZF, checksums, every opcode Redis 7.0 to
 * 7.4 writes, and bad input (truncation, flipped bytes, newer versions, garbage), each refused
 * with the offset and nothing half-loaded. Also the atomic file replacement.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, test } from 'vitest'
import { MemoryExecutor } from '../../src/executor/memory/memory-executor.js'
import { Database } from '../../src/executor/memory/keyspace.js'
import { writeFileAtomic, writeFileAtomicSync } from '../../src/executor/memory/persistence/atomic-file.js'
import { loadRdb, RdbFileWriter, RdbLoadError, RdbOpcode } from '../../src/executor/memory/persistence/rdb-file.js'
import { engineRdbPieces, loadRdbFile, saveRdbFileSync } from '../../src/executor/memory/persistence/rdb-io.js'
import { crc64, Crc64 } from '../../src/executor/memory/rdb/crc64.js'
import { lzfCompress, lzfDecompress } from '../../src/executor/memory/rdb/lzf.js'
import { RdbWriter } from '../../src/executor/memory/rdb/writer.js'
import { moduleTypeId, moduleTypeOf } from '../../src/executor/memory/rdb/values/json-module.js'
import { parseJson } from '../../src/executor/memory/lib/json/parse.js'
import { JsonDocument, type JsonValue } from '../../src/executor/memory/types/json.js'
import { datasetCommands, FUNCTION_COMMANDS, noise } from './rdb-dataset.js'
import { describeKeyspace } from '../support/keyspace.js'

const directories: string[] = []
afterAll(() => {
  for (const dir of directories) rmSync(dir, { recursive: true, force: true })
})

function temporaryDirectory(): string {
  const dir = mkdtempSync(join(tmpdir(), 'restis-rdb-unit-'))
  directories.push(dir)
  return dir
}

const databases = (count = 16): Database[] => Array.from({ length: count }, (_, i) => new Database(i))

/** A small engine file: two databases, a TTL, a library. */
async function sampleFile(): Promise<{ bytes: Buffer; executor: MemoryExecutor }> {
  const executor = new MemoryExecutor({ activeExpiryInterval: 0 })
  for (const [db, commands] of datasetCommands()) await executor.pipeline(commands, { db })
  for (const command of FUNCTION_COMMANDS) await executor.exec(command)
  return { bytes: Buffer.concat([...engineRdbPieces(executor.engine)]), executor }
}

/** The error `action` throws, which must be an RdbLoadError. */
function loadError(action: () => unknown): RdbLoadError {
  try {
    action()
  } catch (error) {
    expect(error).toBeInstanceOf(RdbLoadError)
    return error as RdbLoadError
  }
  throw new Error('expected an RdbLoadError')
}

describe('LZF and CRC-64 pieces', () => {
  test('compressed strings decompress to the original, and incompressible ones are refused', () => {
    const inputs = ['a'.repeat(1000), 'abcabcabcabd'.repeat(50), 'x'.repeat(21), Buffer.from(noise(2000, 3)).toString('latin1') + 'y'.repeat(3000)]
    for (const input of inputs) {
      const compressed = lzfCompress(input, input.length - 4)
      expect(compressed).not.toBeNull()
      expect(compressed!.length).toBeLessThanOrEqual(input.length - 4)
      expect(lzfDecompress(compressed!, 0, compressed!.length, input.length)).toBe(input)
    }
    const random = Buffer.from(noise(500, 4)).toString('latin1')
    expect(lzfCompress(random, random.length - 4)).toBeNull()
  })

  test('the compressor reuses its table across calls without matching an earlier string', () => {
    // Same 3-byte prefixes in every string: a stale table entry would point at another input.
    for (let i = 0; i < 300; i++) {
      const input = `prefix-${i}-` + Buffer.from(noise(30 + (i % 50), i)).toString('latin1') + `prefix-${i}-`.repeat(3)
      const compressed = lzfCompress(input, input.length - 4)
      if (compressed === null) continue
      expect(lzfDecompress(compressed, 0, compressed.length, input.length), `input ${i}`).toBe(input)
    }
  })

  test('a compressing writer stores long strings as LZF only when it saves 4 bytes or more', () => {
    const compressing = new RdbWriter(true)
    compressing.string('z'.repeat(100))
    expect(compressing.finish().charCodeAt(0)).toBe(0xc3)
    const short = new RdbWriter(true)
    short.string('z'.repeat(20))
    expect(short.finish()).toBe(String.fromCharCode(20) + 'z'.repeat(20))
    const plain = new RdbWriter()
    plain.string('z'.repeat(100))
    expect(plain.finish().charCodeAt(0)).toBe(64)
  })

  test('the running CRC-64 equals the one-shot checksum, including the check value', () => {
    expect(Buffer.from(crc64('123456789'), 'latin1').readBigUInt64LE()).toBe(0xe9c6d914c4b8d9can)
    const running = new Crc64()
    running.updateBinary('1234')
    running.update(Buffer.from('56789'))
    expect(running.digest()).toBe(crc64('123456789'))
  })
})

describe('RdbFileWriter', () => {
  test('writes Redis 7.0 layout: header and aux fields, FUNCTION2, SELECTDB with RESIZEDB, EXPIRETIME_MS, EOF and checksum', () => {
    const writer = new RdbFileWriter()
    const header = writer.header({ ctime: 1700000000, usedMemory: 1000, redisVersion: '7.0.15' })
    expect(header.subarray(0, 9).toString()).toBe('REDIS0010')
    const text = header.toString('latin1')
    const names = ['redis-ver', 'redis-bits', 'ctime', 'used-mem', 'aof-base']
    expect(names.map((name) => text.indexOf(name))).toEqual([...names.map((name) => text.indexOf(name))].sort((a, b) => a - b))
    const library = writer.functionLibrary('#!lua name=x\n')
    expect(library[0]).toBe(RdbOpcode.FUNCTION2)
    expect([...writer.selectDb(3, 2, 1)]).toEqual([RdbOpcode.SELECTDB, 3, RdbOpcode.RESIZEDB, 2, 1])
    const entry = writer.entry('k', 'v', 1700000000123)
    expect(entry[0]).toBe(RdbOpcode.EXPIRETIME_MS)
    expect(entry.readBigInt64LE(1)).toBe(1700000000123n)
    expect([...entry.subarray(9)]).toEqual([0, 1, 107, 1, 118])
    const footer = writer.footer()
    expect(footer[0]).toBe(RdbOpcode.EOF)
    expect(footer).toHaveLength(9)
  })

  test('the footer checksum covers every byte before it', () => {
    const writer = new RdbFileWriter()
    const pieces = [writer.header(), writer.selectDb(0, 1, 0), writer.entry('key', 'value', undefined), writer.footer()]
    const file = Buffer.concat(pieces).toString('latin1')
    expect(file.slice(-8)).toBe(crc64(file, 0, file.length - 8))
  })

  test('a JSON document is a RedisJSON module value: type 7, ReJSON-RL id with encoding version 3, its JSON text, the module EOF', () => {
    const writer = new RdbFileWriter()
    writer.header()
    const entry = writer.entry('doc', new JsonDocument(parseJson('{"a":1}') as JsonValue), undefined)
    const id = Buffer.from('45e25238df912c03', 'hex')
    expect(entry).toEqual(Buffer.concat([Buffer.from([7, 3]), Buffer.from('doc'), Buffer.from([0x81]), id, Buffer.from([5, 7]), Buffer.from('{"a":1}'), Buffer.from([0])]))
    expect(moduleTypeId('ReJSON-RL', 3)).toBe(0x45e25238df912c03n)
    expect(moduleTypeOf(0x45e25238df912c03n)).toEqual({ name: 'ReJSON-RL', encodingVersion: 3 })
  })

  test('JSON documents round-trip through SAVE and a restart, TTL included', async () => {
    const dir = temporaryDirectory()
    const first = new MemoryExecutor({ activeExpiryInterval: 0, persistence: { dir, save: '' } })
    const text = '{"s":"caf\u00e9 \\"q\\"","n":[1,-0.0,1.5e-7,18446744073709551615],"o":{"nested":{"deep":[null,true]}}}'
    await first.exec(['JSON.SET', 'doc', '$', text])
    await first.exec(['JSON.SET', 'big', '$', JSON.stringify({ items: Array.from({ length: 500 }, (_, i) => ({ i, name: `item-${i}` })) })])
    await first.exec(['PEXPIREAT', 'big', String(Date.now() + 3_600_000)])
    await first.exec(['SET', 'plain', 'v'], { db: 1 })
    const expected = [await first.exec(['JSON.GET', 'doc']), await first.exec(['JSON.GET', 'big']), await first.exec(['PEXPIRETIME', 'big'])]
    expect(await first.exec(['SAVE'])).toMatchObject({ text: 'OK' })
    await first.close()
    const second = new MemoryExecutor({ activeExpiryInterval: 0, persistence: { dir, save: '' } })
    expect([await second.exec(['JSON.GET', 'doc']), await second.exec(['JSON.GET', 'big']), await second.exec(['PEXPIRETIME', 'big'])]).toEqual(expected)
    expect(String(await second.exec(['TYPE', 'doc']))).toBe('ReJSON-RL')
    await second.close()
  })
})

describe('loadRdb', () => {
  test('an engine file loads back to the same keyspace and libraries', async () => {
    const dir = temporaryDirectory()
    const { executor } = await sampleFile()
    saveRdbFileSync(join(dir, 'dump.rdb'), executor.engine)
    const copy = new MemoryExecutor({ activeExpiryInterval: 0 })
    const result = loadRdbFile(join(dir, 'dump.rdb'), copy.engine)
    expect(result.version).toBe(10)
    expect(result.functions).toHaveLength(1)
    expect(await describeKeyspace(copy, { encoding: false })).toEqual(await describeKeyspace(executor, { encoding: false }))
    expect(await copy.exec(['FCALL', 'rdb_echo', '0', 'hi'])).toEqual(Buffer.from('hi'))
    await Promise.all([executor.close(), copy.close()])
  })

  test('a file read in small windows loads the same as in one piece, and fails the same', async () => {
    const { bytes, executor } = await sampleFile()
    const whole = databases()
    loadRdb(bytes, whole, { now: Date.now() })
    const describe = (into: Database[]) => into.map((db) => [...db.data.keys()].sort().join(',') + '|' + db.expires.size)
    for (const windowBytes of [1, 7, 64, 1000, 65536]) {
      const windowed = databases()
      const result = loadRdb(bytes, windowed, { now: Date.now(), windowBytes })
      expect(result.functions).toHaveLength(1)
      expect(describe(windowed), `window ${windowBytes}`).toEqual(describe(whole))
      expect(windowed[0].data.get('str:compressible')).toBe('abc'.repeat(400))
      const cut = loadError(() => loadRdb(bytes.subarray(0, bytes.length - 100), databases(), { now: Date.now(), windowBytes }))
      expect(cut.message).toMatch(/unexpected end of file/)
    }
    await executor.close()
  })

  test('keys whose deadline has passed are left out, unless asked to keep them', () => {
    const writer = new RdbFileWriter()
    const now = 1_700_000_000_000
    const bytes = Buffer.concat([
      writer.header(), writer.selectDb(0, 3, 2),
      writer.entry('past', 'x', now - 1), writer.entry('now', 'y', now), writer.entry('plain', 'z', undefined), writer.footer(),
    ])
    const into = databases()
    const result = loadRdb(bytes, into, { now })
    expect([...into[0].data.keys()].sort()).toEqual(['now', 'plain'])
    expect(into[0].getExpire('now')).toBe(now)
    expect(result.expiredSkipped).toBe(1)
    const kept = databases()
    loadRdb(bytes, kept, { now, keepExpired: true })
    expect(kept[0].size).toBe(3)
  })

  test('hash field TTLs survive (Redis 7.4 form), and a load replaces what the databases held', async () => {
    const executor = new MemoryExecutor({ activeExpiryInterval: 0 })
    await executor.exec(['HSET', 'h', 'a', '1', 'b', '2'])
    await executor.exec(['HPEXPIREAT', 'h', '4102444800000', 'FIELDS', '1', 'a'])
    const bytes = Buffer.concat([...engineRdbPieces(executor.engine)])
    const copy = new MemoryExecutor({ activeExpiryInterval: 0 })
    await copy.exec(['SET', 'stale', '1'])
    loadRdb(bytes, copy.engine.databases, { now: Date.now() })
    expect(await copy.exec(['EXISTS', 'stale'])).toBe(0)
    expect(await copy.exec(['HPEXPIRETIME', 'h', 'FIELDS', '2', 'a', 'b'])).toEqual([4102444800000, -1])
    await Promise.all([executor.close(), copy.close()])
  })

  test('reads the opcodes of other writers: EXPIRETIME in seconds, FREQ, IDLE, SLOT_INFO, unchecked zero checksum', () => {
    const writer = new RdbWriter()
    writer.raw('REDIS0012')
    writer.byte(RdbOpcode.SELECTDB)
    writer.length(2)
    writer.byte(RdbOpcode.SLOT_INFO)
    writer.length(100)
    writer.length(2)
    writer.length(0)
    writer.byte(RdbOpcode.EXPIRETIME)
    writer.raw(String.fromCharCode(0x00, 0xe1, 0xf5, 0x05 + 0x60)) // 0x65f5e100 s, in 2024
    writer.byte(0)
    writer.string('seconds')
    writer.string('v')
    writer.byte(RdbOpcode.FREQ)
    writer.byte(5)
    writer.byte(RdbOpcode.IDLE)
    writer.length(1000)
    writer.byte(0)
    writer.string('counted')
    writer.string('w')
    writer.byte(RdbOpcode.EOF)
    writer.raw('\0'.repeat(8))
    const into = databases()
    loadRdb(Buffer.from(writer.finish(), 'latin1'), into, { now: 0 })
    expect(into[2].getExpire('seconds')).toBe(0x65f5e100 * 1000)
    expect(into[2].data.get('counted')).toBe('w')
  })
})

describe('loadRdb refuses bad input with the offset, loading nothing', () => {
  /** Databases holding one key, to check that a failed load leaves them alone. */
  function occupied(): Database[] {
    const into = databases()
    into[0].set('untouched', 'yes')
    return into
  }

  function expectUntouched(into: Database[]): void {
    expect(into[0].data.get('untouched')).toBe('yes')
    expect(into.reduce((sum, db) => sum + db.size, 0)).toBe(1)
  }

  test('a file truncated at any of several offsets', async () => {
    const { bytes, executor } = await sampleFile()
    for (const length of [0, 5, 9, 20, 200, Math.floor(bytes.length / 2), bytes.length - 9, bytes.length - 8, bytes.length - 1]) {
      const into = occupied()
      const error = loadError(() => loadRdb(bytes.subarray(0, length), into, { now: Date.now() }))
      expect(error.message, `cut at ${length}`).toMatch(/truncated|unexpected end of file/)
      expect(error.offset).toBeLessThanOrEqual(length)
      expectUntouched(into)
    }
    await executor.close()
  })

  test('a flipped byte names the checksum mismatch', async () => {
    const { bytes, executor } = await sampleFile()
    for (const at of [Math.floor(bytes.length / 3), Math.floor(bytes.length / 2), bytes.length - 12]) {
      const corrupt = Buffer.from(bytes)
      corrupt[at] ^= 0x01
      const into = occupied()
      const error = loadError(() => loadRdb(corrupt, into, { now: Date.now() }))
      expect(error.message, `flipped at ${at}`).toMatch(/checksum mismatch/)
      expectUntouched(into)
    }
    await executor.close()
  })

  test('a newer RDB version, garbage, a missing database, a module, a duplicate key', () => {
    const newer = Buffer.concat([Buffer.from('REDIS0013'), Buffer.from([RdbOpcode.EOF]), Buffer.alloc(8)])
    const error = loadError(() => loadRdb(newer, occupied(), { now: 0 }))
    expect(error.message).toMatch(/RDB format version 13 is newer than this engine reads \(up to 12\)/)
    expect(error.offset).toBe(5)
    expect(loadError(() => loadRdb(Buffer.from('GARBAGE!!garbage'), occupied(), { now: 0 })).message).toMatch(/wrong signature/)

    const writer = new RdbFileWriter()
    const far = Buffer.concat([writer.header(), writer.selectDb(20, 1, 0), writer.entry('k', 'v', undefined), writer.footer()])
    expect(loadError(() => loadRdb(far, occupied(), { now: 0 })).message).toMatch(/database 20; this engine has 16/)

    const moduleFile = Buffer.concat([Buffer.from('REDIS0010'), Buffer.from([RdbOpcode.MODULE_AUX, 1]), Buffer.alloc(9)])
    const moduleError = loadError(() => loadRdb(moduleFile, occupied(), { now: 0 }))
    expect(moduleError.message).toMatch(/module auxiliary data/)
    expect(moduleError.offset).toBe(9)

    const other = new RdbWriter(true)
    other.byte(7)
    other.string('idx')
    other.length(moduleTypeId('search000', 2))
    const otherModule = Buffer.concat([Buffer.from('REDIS0010'), Buffer.from(other.take(), 'latin1')])
    const otherError = loadError(() => loadRdb(otherModule, occupied(), { now: 0 }))
    expect(otherError.message).toMatch(/key "idx" holds a value of module type 'search000' \(encoding version 2\): this engine has no such module/)
    expect(otherError.offset).toBe(9)
    const newer4 = new RdbWriter(true)
    newer4.byte(7)
    newer4.string('doc')
    newer4.length(moduleTypeId('ReJSON-RL', 4))
    const json4 = Buffer.concat([Buffer.from('REDIS0010'), Buffer.from(newer4.take(), 'latin1')])
    expect(loadError(() => loadRdb(json4, occupied(), { now: 0 })).message).toMatch(/ReJSON-RL value of encoding version 4: this engine reads RedisJSON 2.x's versions 2 and 3/)

    const twice = new RdbFileWriter()
    const duplicate = Buffer.concat([twice.header(), twice.selectDb(0, 2, 0), twice.entry('k', 'a', undefined), twice.entry('k', 'b', undefined), twice.footer()])
    const into = occupied()
    expect(loadError(() => loadRdb(duplicate, into, { now: 0 })).message).toMatch(/duplicate key "k"/)
    expectUntouched(into)
  })

  test('a library that does not load refuses the file and leaves the engine alone', async () => {
    const dir = temporaryDirectory()
    const writer = new RdbFileWriter()
    const path = join(dir, 'bad-function.rdb')
    writeFileSync(path, Buffer.concat([
      writer.header(), writer.functionLibrary('#!lua name=broken\nthis is not lua'), writer.selectDb(0, 1, 0), writer.entry('k', 'v', undefined), writer.footer(),
    ]))
    const executor = new MemoryExecutor({ activeExpiryInterval: 0 })
    await executor.exec(['SET', 'untouched', 'yes'])
    expect(() => loadRdbFile(path, executor.engine)).toThrow(/function library failed to load/)
    expect(await executor.exec(['DBSIZE'])).toBe(1)
    await executor.close()
  })
})

describe('atomic file replacement', () => {
  test('replaces the file whole and leaves no temporary file', async () => {
    const dir = temporaryDirectory()
    const path = join(dir, 'f.bin')
    writeFileAtomicSync(path, [Buffer.from('old')])
    await writeFileAtomic(path, (async function* () {
      yield Buffer.from('new ')
      yield Buffer.from('content')
    })())
    expect(readFileSync(path, 'utf8')).toBe('new content')
    expect(readdirSync(dir)).toEqual(['f.bin'])
  })

  test('a failure on the way keeps the old file and removes the temporary one', async () => {
    const dir = temporaryDirectory()
    const path = join(dir, 'f.bin')
    writeFileAtomicSync(path, [Buffer.from('old')])
    const failing = (async function* () {
      yield Buffer.from('partial')
      throw new Error('disk gone')
    })()
    await expect(writeFileAtomic(path, failing)).rejects.toThrow('disk gone')
    expect(() => writeFileAtomicSync(path, (function* () {
      yield Buffer.from('partial')
      throw new Error('sync failure')
    })())).toThrow('sync failure')
    expect(readFileSync(path, 'utf8')).toBe('old')
    expect(readdirSync(dir)).toEqual(['f.bin'])
  })

  test('an unwritable directory is an error and creates nothing', async () => {
    const path = join(temporaryDirectory(), 'missing', 'f.bin')
    await expect(writeFileAtomic(path, [Buffer.from('x')])).rejects.toThrow(/ENOENT/)
    expect(existsSync(path)).toBe(false)
  })
})
