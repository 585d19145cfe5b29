import { afterEach, describe, expect, test } from 'vitest'
import { ReplyError } from '../../../src/reply.js'
import { MemoryExecutor } from '../../../src/executor/memory/index.js'
import { closeEngines, memoryEngine } from '../../support/engine.js'

/** The engine's refusals, as the plain renderer shows them. */
const tooManyElements = (limit: number) => ({
  error: `ERR reply exceeds the limit of ${limit} elements per request (maxReplyElements of the in-memory engine); ask for fewer`,
})
const tooManyBytes = (limit: number) => ({
  error: `ERR reply exceeds the limit of ${limit} bytes per request (maxReplyBytes of the in-memory engine); ask for less`,
})

afterEach(closeEngines)

describe('reply limits: the RAND* commands check before building (issue 15, item 1)', () => {
  test('the attack counts of the issue are refused at once on a one-member collection, for all three commands', () => {
    const { run } = memoryEngine()
    run('SADD', 'c', 'a')
    run('HSET', 'h', 'f', 'v')
    run('ZADD', 'z', '1', 'm')
    const started = performance.now()
    expect(run('SRANDMEMBER', 'c', '-16777216')).toEqual(tooManyElements(2 ** 20))
    expect(run('SRANDMEMBER', 'c', '-10000000')).toEqual(tooManyElements(2 ** 20))
    expect(run('HRANDFIELD', 'h', '-16777216')).toEqual(tooManyElements(2 ** 20))
    expect(run('ZRANDMEMBER', 'z', '-50000000')).toEqual(tooManyElements(2 ** 20))
    expect(run('ZRANDMEMBER', 'z', '-600000', 'WITHSCORES')).toEqual(tooManyElements(2 ** 20))
    // Nothing was built: refusing all five takes far less than building one of them would.
    expect(performance.now() - started).toBeLessThan(500)
  })

  test("Redis's own range checks still come first", () => {
    const { run } = memoryEngine()
    run('ZADD', 'z', '1', 'm')
    const range = { error: 'ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807' }
    expect(run('ZRANDMEMBER', 'z', '-9223372036854775808')).toEqual(range)
    expect(run('SRANDMEMBER', 'z', '-9223372036854775808')).toEqual(range)
    expect(run('ZRANDMEMBER', 'z', '-4611686018427387904', 'WITHSCORES')).toEqual({ error: 'ERR value is out of range' })
    // A missing key answers empty whatever the count, as Redis.
    expect(run('ZRANDMEMBER', 'nokey', '-50000000')).toEqual([])
  })

  test('counts within the limit still answer, with repetition', () => {
    const { run } = memoryEngine({ engine: { maxReplyElements: 100 } })
    run('ZADD', 'z', '1', 'm')
    expect(run('ZRANDMEMBER', 'z', '-100')).toEqual(Array(100).fill('m'))
    expect(run('ZRANDMEMBER', 'z', '-50', 'WITHSCORES')).toHaveLength(100)
    expect(run('ZRANDMEMBER', 'z', '-51', 'WITHSCORES')).toEqual(tooManyElements(100))
    expect(run('SADD', 's', ...Array.from({ length: 200 }, (_, i) => `m${i}`))).toBe(200)
    // A positive count is bounded by the set: the reply is the smaller of the two.
    expect(run('SRANDMEMBER', 's', '100')).toHaveLength(100)
    expect(run('SRANDMEMBER', 's', '101')).toEqual(tooManyElements(100))
  })

  test('bytes are counted while the sample is built: a large member stops it early', () => {
    const { run } = memoryEngine({ engine: { maxReplyBytes: 10_000 } })
    run('SADD', 'big', 'x'.repeat(1000))
    expect(run('SRANDMEMBER', 'big', '-10')).toHaveLength(10)
    expect(run('SRANDMEMBER', 'big', '-11')).toEqual(tooManyBytes(10_000))
    run('HSET', 'h', 'f', 'v'.repeat(1000))
    expect(run('HRANDFIELD', 'h', '-10', 'WITHVALUES')).toEqual(tooManyBytes(10_000))
  })
})

describe('reply limits: a request shares one budget', () => {
  test('a pipeline of two samples that fit alone: the second passes the request limit and is refused', async () => {
    const { executor } = memoryEngine({ engine: { maxReplyElements: 1000 } })
    executor.execSync(['SADD', 'c', 'a'])
    const replies = await executor.pipeline([
      ['SRANDMEMBER', 'c', '-600'],
      ['SRANDMEMBER', 'c', '-600'],
      ['SRANDMEMBER', 'c', '-400'],
    ])
    expect(replies[0]).toHaveLength(600)
    expect(replies[1]).toEqual(new ReplyError(tooManyElements(1000).error))
    expect(replies[2]).toHaveLength(400)
    // The next request starts afresh.
    expect(await executor.pipeline([['SRANDMEMBER', 'c', '-1000']])).toEqual([Array(1000).fill(Buffer.from('a'))])
  })

  test('a transaction shares one budget too', async () => {
    const { executor } = memoryEngine({ engine: { maxReplyElements: 1000 } })
    executor.execSync(['ZADD', 'z', '1', 'm'])
    const replies = await executor.transaction([
      ['ZRANDMEMBER', 'z', '-700'],
      ['ZRANDMEMBER', 'z', '-700'],
    ])
    expect(Array.isArray(replies) && replies[0]).toHaveLength(700)
    expect(Array.isArray(replies) && replies[1]).toEqual(new ReplyError(tooManyElements(1000).error))
  })

  test('bulk strings are charged after the command: a pipeline of GETs of a large value stops at the byte limit', async () => {
    const { executor } = memoryEngine({ engine: { maxReplyBytes: 4096 } })
    executor.execSync(['SET', 'v', 'x'.repeat(1024)])
    const replies = await executor.pipeline(Array.from({ length: 6 }, () => ['GET', 'v']))
    expect(replies.slice(0, 4).every((reply) => reply instanceof Uint8Array && reply.length === 1024)).toBe(true)
    expect(replies[4]).toEqual(new ReplyError(tooManyBytes(4096).error))
    // Alone, a command gets the whole limit.
    expect(executor.execSync(['GET', 'v'])).toHaveLength(1024)
  })

  test('an array reply longer than the element limit is refused even from a command that does not check first', () => {
    const { run } = memoryEngine({ engine: { maxReplyElements: 100 } })
    run('RPUSH', 'l', ...Array.from({ length: 150 }, (_, i) => String(i)))
    expect(run('LRANGE', 'l', '0', '99')).toHaveLength(100)
    expect(run('LRANGE', 'l', '0', '-1')).toEqual(tooManyElements(100))
  })

  test('whole collections and ranges are checked before they are copied and charged to the request', async () => {
    const { executor } = memoryEngine({ engine: { maxReplyElements: 250 } })
    const members = Array.from({ length: 100 }, (_, i) => `m${i}`)
    executor.execSync(['SADD', 's', ...members])
    executor.execSync(['HSET', 'h', ...members.flatMap((m) => [m, 'v'])])
    executor.execSync(['ZADD', 'z', ...members.flatMap((m, i) => [String(i), m])])
    executor.execSync(['RPUSH', 'l', ...members])
    const refused = new ReplyError(tooManyElements(250).error)
    // Alone, each fits (HGETALL and WITHSCORES count two elements per entry) …
    for (const command of [['SMEMBERS', 's'], ['HKEYS', 'h'], ['HGETALL', 'h'], ['ZRANGE', 'z', '0', '-1', 'WITHSCORES'], ['LRANGE', 'l', '0', '-1']]) {
      expect(executor.execSync(command)).toHaveLength(command[0] === 'HGETALL' || command.length === 5 ? 200 : 100)
    }
    expect(executor.execSync(['ZRANGE', 'z', '0', '-1', 'WITHSCORES'])).toHaveLength(200)
    // … in one pipeline they share the request's 250 elements.
    const replies = await executor.pipeline([['SMEMBERS', 's'], ['HGETALL', 'h'], ['HVALS', 'h'], ['ZRANGE', 'z', '0', '49'], ['ZRANGEBYSCORE', 'z', '0', '+inf'], ['LRANGE', 'l', '0', '99']])
    expect(replies.map((reply) => (reply instanceof ReplyError ? reply : (reply as unknown[]).length))).toEqual([100, refused, 100, 50, refused, refused])
  })

  test('SORT checks its reply, GET patterns multiplying it, before sorting', () => {
    const { run } = memoryEngine({ engine: { maxReplyElements: 100 } })
    run('RPUSH', 'l', ...Array.from({ length: 30 }, (_, i) => String(i)))
    expect(run('SORT_RO', 'l', 'GET', '#', 'GET', '#', 'GET', '#')).toHaveLength(90)
    expect(run('SORT_RO', 'l', 'GET', '#', 'GET', '#', 'GET', '#', 'GET', '#')).toEqual(tooManyElements(100))
    expect(run('SORT_RO', 'l', 'LIMIT', '0', '25', 'GET', '#', 'GET', '#', 'GET', '#', 'GET', '#')).toHaveLength(100)
    // Stored, the result is no reply: not limited.
    expect(run('SORT', 'l', 'GET', '#', 'GET', '#', 'GET', '#', 'GET', '#', 'STORE', 'dst')).toBe(120)
  })

  test("a script's commands draw on its caller's request", async () => {
    const { executor, run } = memoryEngine({ engine: { maxReplyElements: 1000 } })
    run('SADD', 'c', 'a')
    const script = "local n = 0 for i = 1, 3 do n = n + #redis.call('SRANDMEMBER', 'c', '-400') end return n"
    const alone = run('EVAL_RO', script, '0') as { error: string }
    expect(alone.error).toMatch(/^ERR reply exceeds the limit of 1000 elements per request .* script: /)
    const [first, second] = await executor.pipeline([['SRANDMEMBER', 'c', '-700'], ['EVAL_RO', "return #redis.call('SRANDMEMBER', 'c', '-400')", '0']])
    expect(first).toHaveLength(700)
    expect(second).toBeInstanceOf(ReplyError)
    expect(run('EVAL_RO', "return #redis.call('SRANDMEMBER', 'c', '-400')", '0')).toBe(400)
  })

  test('the limits must be positive integers', () => {
    expect(() => new MemoryExecutor({ maxReplyElements: 0 })).toThrow('maxReplyElements must be a positive integer, got 0')
    expect(() => new MemoryExecutor({ maxReplyBytes: 1.5 })).toThrow('maxReplyBytes must be a positive integer, got 1.5')
  })
})
