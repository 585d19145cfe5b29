import { afterEach, describe, expect, test } from 'vitest'
import { Engine } from '../../../src/executor/memory/engine.js'
import {
  HeapFootprint, MAX_SCALE, MEASURE_EVERY, MIN_CALIBRATION_BYTES, TABLE_CHURN_BYTES, startupFootprint, v8Footprint,
} from '../../../src/executor/memory/heap-footprint.js'
import { entryBytes } from '../../../src/executor/memory/memory-accounting.js'
import { engineRdbPieces, loadRdbBytes } from '../../../src/executor/memory/persistence/rdb-io.js'
import { RdbLoadError } from '../../../src/executor/memory/persistence/rdb-file.js'

/**
 * used_memory under a limit: the dataset's estimate scaled by what V8 really holds for it, so that
 * eviction bounds the process and not only the dataset.
 */

const MB = 1024 * 1024

/** A footprint reader that answers what the test sets, and counts its reads. */
function fakeHeap(startup: number) {
  const heap = { bytes: startup, reads: 0 }
  const footprint = new HeapFootprint(startup, () => {
    heap.reads++
    return heap.bytes
  })
  return { heap, footprint }
}

describe('HeapFootprint', () => {
  test('reads nothing while no limit is set, and scales by 1', () => {
    const { heap, footprint } = fakeHeap(100 * MB)
    heap.bytes = 500 * MB
    for (let i = 0; i < 4 * MEASURE_EVERY; i++) footprint.tick(64 * MB, 1000)
    expect(heap.reads).toBe(0)
    expect(footprint.scaled(1000, 10)).toBe(1000)
  })

  test('reads at calibration, then once per MEASURE_EVERY checks, and scales by heap growth over the estimate', () => {
    const { heap, footprint } = fakeHeap(100 * MB)
    footprint.setActive(true)
    heap.bytes = 100 * MB + 96 * MB
    footprint.tick(64 * MB, 0)
    expect(heap.reads).toBe(1)
    expect(footprint.scale).toBe(1.5)
    for (let i = 0; i < MEASURE_EVERY - 1; i++) footprint.tick(64 * MB, 0)
    expect(heap.reads).toBe(1)
    footprint.tick(64 * MB, 0)
    expect(heap.reads).toBe(2)
    expect(footprint.scaled(10 * MB, 0)).toBe(15 * MB)
  })

  test('under a limit each key also counts the slots replaced keys leave in its hash tables', () => {
    const { heap, footprint } = fakeHeap(0)
    footprint.setActive(true)
    const keys = 100_000
    const tables = keys * TABLE_CHURN_BYTES
    heap.bytes = 2 * (64 * MB + tables)
    footprint.tick(64 * MB, keys)
    expect(footprint.scale).toBe(2)
    expect(footprint.scaled(64 * MB, keys)).toBe(2 * (64 * MB + tables))
  })

  test('rises at once, falls slowly, and stays within [1, MAX_SCALE]', () => {
    const { heap, footprint } = fakeHeap(0)
    footprint.setActive(true)
    heap.bytes = 128 * MB
    footprint.measure(64 * MB, 0)
    expect(footprint.scale).toBe(2)
    heap.bytes = 64 * MB
    footprint.measure(64 * MB, 0)
    expect(footprint.scale).toBeGreaterThan(1.99)
    expect(footprint.scale).toBeLessThan(2)
    // One trough of the sawtooth does not forget the peak: 256 readings (65,536 checks) later
    // the scale has closed less than a quarter of the gap.
    for (let i = 0; i < 256; i++) footprint.measure(64 * MB, 0)
    expect(footprint.scale).toBeGreaterThan(1.75)
    for (let i = 0; i < 16_000; i++) footprint.measure(64 * MB, 0)
    expect(footprint.scale).toBeCloseTo(1, 3)
    heap.bytes = 50 * MB
    footprint.measure(64 * MB, 0)
    expect(footprint.scale).toBeGreaterThanOrEqual(1)
    heap.bytes = 1000 * MB
    footprint.measure(64 * MB, 0)
    expect(footprint.scale).toBe(MAX_SCALE)
  })

  test('a small dataset is not measured: the heap\'s noise would outweigh it', () => {
    const { heap, footprint } = fakeHeap(0)
    footprint.setActive(true)
    heap.bytes = 64 * MB
    footprint.measure(MIN_CALIBRATION_BYTES - 1, 1000)
    footprint.tick(MIN_CALIBRATION_BYTES - 1, 1000)
    expect(heap.reads).toBe(0)
    expect(footprint.scale).toBe(1)
    expect(footprint.scaled(MIN_CALIBRATION_BYTES - 1, 1000)).toBe(MIN_CALIBRATION_BYTES - 1)
  })

  test('an evicting limit holds the scale at MAX_SCALE, from calibration until eviction has replaced the dataset once', () => {
    const { heap, footprint } = fakeHeap(0)
    footprint.setActive(true, true)
    // Below the calibration size the estimate is used as it is, as with a small limit.
    expect(footprint.scaled(MB, 10)).toBe(MB)
    heap.bytes = 80 * MB
    footprint.tick(64 * MB, 0)
    expect(heap.reads).toBe(0)
    expect(footprint.scaled(64 * MB, 0)).toBe(MAX_SCALE * 64 * MB)
    // The first eviction leaves 3 keys: the hold ends after 3 more evictions.
    footprint.evicted(3)
    footprint.evicted(2)
    expect(footprint.holding).toBe(true)
    for (let i = 0; i < MEASURE_EVERY; i++) footprint.tick(64 * MB, 0)
    expect(heap.reads).toBe(0)
    footprint.evicted(1)
    expect(footprint.holding).toBe(false)
    for (let i = 0; i < MEASURE_EVERY; i++) footprint.tick(64 * MB, 0)
    expect(heap.reads).toBe(1)
    expect(footprint.scale).toBeLessThan(MAX_SCALE)
    expect(footprint.scale).toBeGreaterThan(1.25)
  })

  test('noeviction is not held: the ratio is measured from calibration', () => {
    const { heap, footprint } = fakeHeap(0)
    footprint.setActive(true, false)
    heap.bytes = 80 * MB
    footprint.tick(64 * MB, 0)
    expect(footprint.holding).toBe(false)
    expect(footprint.scale).toBe(1.25)
  })

  test('removing the limit goes back to the estimate', () => {
    const { heap, footprint } = fakeHeap(0)
    footprint.setActive(true)
    heap.bytes = 128 * MB
    footprint.measure(64 * MB, 0)
    footprint.setActive(false)
    expect(footprint.scale).toBe(1)
    expect(footprint.scaled(64 * MB, 1000)).toBe(64 * MB)
  })
})

describe('the engine under a limit', () => {
  const engines: Engine[] = []
  afterEach(() => {
    for (const engine of engines.splice(0)) engine.close()
  })

  test('the key count the table slots are weighed by follows every way keys come and go', () => {
    const engine = new Engine({ activeExpiryInterval: 0 })
    engines.push(engine)
    const session = engine.createSession()
    const counted = (): number => engine.databases.reduce((keys, db) => keys + db.size, 0)
    const run = (...argv: string[]): void => void engine.call(session, argv)
    for (let i = 0; i < 10; i++) run('SET', `key:${i}`, 'v')
    run('SET', 'key:0', 'overwritten')
    run('HSET', 'hash', 'field', 'v')
    run('RPUSH', 'list', 'a', 'b')
    run('LPOP', 'list')
    run('LPOP', 'list')
    run('DEL', 'key:1')
    run('RENAME', 'key:2', 'renamed')
    run('MOVE', 'key:3', '1')
    run('COPY', 'key:4', 'copied', 'DB', '2')
    run('SWAPDB', '0', '1')
    run('SELECT', '1')
    run('UNLINK', 'key:5')
    run('PEXPIRE', 'key:6', '1')
    run('GETDEL', 'key:7')
    expect(engine.keyspace.keys).toBe(counted())
    run('FLUSHDB')
    expect(engine.keyspace.keys).toBe(counted())
    expect(engine.keyspace.keys).toBeGreaterThan(0)
    run('FLUSHALL')
    expect(engine.keyspace.keys).toBe(0)
  })

  test('the key count follows an RDB load, which replaces the databases whole, and one that fails', () => {
    const source = new Engine({ activeExpiryInterval: 0 })
    const target = new Engine({ activeExpiryInterval: 0 })
    engines.push(source, target)
    const counted = (engine: Engine): number => engine.databases.reduce((keys, db) => keys + db.size, 0)
    const sourceSession = source.createSession()
    for (let i = 0; i < 7; i++) source.call(sourceSession, ['SET', `key:${i}`, 'v'])
    const bytes = Buffer.concat([...engineRdbPieces(source)])
    const targetSession = target.createSession()
    for (let i = 0; i < 3; i++) target.call(targetSession, ['SET', `other:${i}`, 'v'])
    loadRdbBytes(bytes, target)
    expect(target.keyspace.keys).toBe(7)
    expect(counted(target)).toBe(7)
    // Cut before the checksum: the load fails after staging every key, and the engine is left as it was.
    expect(() => loadRdbBytes(bytes.subarray(0, bytes.length - 8), target)).toThrow(RdbLoadError)
    expect(target.keyspace.keys).toBe(7)
  })

  test('used_memory is the estimate scaled by the measured footprint, and eviction keeps it under maxmemory', () => {
    const limit = 64 * MB
    const engine = new Engine({ maxmemory: limit, maxmemoryPolicy: 'allkeys-lru', activeExpiryInterval: 0 })
    engines.push(engine)
    const session = engine.createSession()
    const scratch = Buffer.alloc(10 * 1024, 'x')
    // 4x the limit in distinct 10 KiB values, each a string of its own as off the wire.
    let largestDataset = 0
    for (let i = 0; i < (4 * limit) / scratch.length; i++) {
      scratch.write(String(i).padStart(8, '0'), 0, 'latin1')
      expect(engine.call(session, ['SET', `key:${i}`, scratch.toString('latin1')])).toEqual({ text: 'OK' })
      largestDataset = Math.max(largestDataset, engine.keyspace.usedBytes)
    }
    // Held at MAX_SCALE until eviction turned the dataset over, the dataset never grew past what
    // the limit allows at that scale (plus the one entry a write adds before the next check).
    const heldBound = (limit - engine.baselineMemory) / MAX_SCALE
    expect(heldBound).toBeGreaterThan(MIN_CALIBRATION_BYTES)
    expect(largestDataset).toBeLessThanOrEqual(heldBound + scratch.length + 1024)
    const info = String(engine.call(session, ['INFO', 'memory'])) + String(engine.call(session, ['INFO', 'stats']))
    const field = (name: string): number => Number(new RegExp(`^${name}:(\\d+)`, 'm').exec(info)![1])
    const footprint = engine.footprint
    expect(field('evicted_keys')).toBeGreaterThan(0)
    expect(field('maxmemory')).toBe(limit)
    // Eviction runs before a write: the last SET may take it past the limit by its own entry.
    expect(field('used_memory')).toBeLessThanOrEqual(limit + footprint.scaled(entryBytes('key:99999', scratch.toString('latin1')), 1))
    // The heap holds more than the estimate counts (V8's headroom and young generation), and
    // used_memory says so: the dataset's share is its estimate times the measured scale.
    expect(footprint.scale).toBeGreaterThan(1)
    expect(field('used_memory')).toBe(engine.baselineMemory + footprint.scaled(engine.keyspace.usedBytes, engine.databases[0].size))
    expect(v8Footprint()).toBeGreaterThan(startupFootprint())
  })
})
