import { describe, expect, test } from 'vitest'
import { MemoryExecutor } from '../../../../src/executor/memory/memory-executor.js'
import { docs, engine, error, plain } from './helpers.js'

/**
 * Values: how JSON text is read (serde_json's grammar and error messages), how numbers and
 * strings are kept and written back (ijson + serde_json + ryu), object member order (ijson),
 * JSON.GET's formatting options, and the key type. Edge cases of our own, each following the
 * RedisJSON 2.x / serde_json source named in the test.
 */

describe('numbers (serde_json reading, ryu writing)', () => {
  test.each([
    ['1', '1', 'integer'],
    ['-7', '-7', 'integer'],
    ['1.0', '1.0', 'number'],
    ['1e3', '1000.0', 'number'],
    ['1E+3', '1000.0', 'number'],
    ['2.50', '2.5', 'number'],
    ['0.1', '0.1', 'number'],
    ['1e15', '1000000000000000.0', 'number'],
    ['1e16', '1e16', 'number'],
    ['123456789012345680000', '1.2345678901234568e20', 'number'],
    ['0.0001', '0.0001', 'number'],
    ['0.00001', '0.00001', 'number'],
    ['1e-6', '1e-6', 'number'],
    ['1.5e-7', '1.5e-7', 'number'],
    ['-0', '-0.0', 'number'], // serde_json reads -0 as the float -0.0
    ['-0.0', '-0.0', 'number'],
    ['0', '0', 'integer'],
    ['9007199254740993', '9007199254740993', 'integer'],
    ['9223372036854775807', '9223372036854775807', 'integer'],
    ['-9223372036854775808', '-9223372036854775808', 'integer'],
    ['18446744073709551615', '18446744073709551615', 'integer'], // u64 max stays an integer
    ['18446744073709551616', '1.8446744073709552e19', 'number'],
    ['-9223372036854775809', '-9.223372036854776e18', 'number'],
  ])('%s is stored as %s (%s)', (text, written, type) => {
    const { run } = engine()
    expect(run('JSON.SET', 'n', '$', text)).toBe('OK')
    expect(run('JSON.GET', 'n')).toBe(written)
    expect(run('JSON.TYPE', 'n')).toBe(type)
  })

  test('NUMINCRBY: integer + integer stays an integer, a float operand makes a float', () => {
    const { run } = engine()
    run('JSON.SET', 'n', '$', '{"i":1,"f":1.5}')
    expect(run('JSON.NUMINCRBY', 'n', '$.i', '2')).toBe('[3]')
    expect(run('JSON.NUMINCRBY', 'n', '$.i', '2.0')).toBe('[5.0]')
    expect(run('JSON.TYPE', 'n', '$.i')).toEqual(['number'])
    expect(run('JSON.NUMINCRBY', 'n', '$.f', '1')).toBe('[2.5]')
    expect(run('JSON.NUMINCRBY', 'n', '$.f', '0.5')).toBe('[3.0]')
    expect(run('JSON.NUMINCRBY', 'n', '.f', '1e3')).toBe('1003.0')
    expect(run('JSON.GET', 'n')).toBe('{"i":5.0,"f":1003.0}')
  })

  test('NUMINCRBY / NUMMULTBY wrap on i64 overflow (RedisJSON PR #1192), big values stay exact', () => {
    const { run } = engine()
    run('JSON.SET', 'n', '$', '[9223372036854775807, 4611686018427387904, 9007199254740991]')
    expect(run('JSON.NUMINCRBY', 'n', '$[0]', '1')).toBe('[-9223372036854775808]')
    expect(run('JSON.NUMMULTBY', 'n', '$[1]', '2')).toBe('[-9223372036854775808]')
    expect(run('JSON.NUMINCRBY', 'n', '$[2]', '2')).toBe('[9007199254740993]')
    expect(run('JSON.TYPE', 'n', '$[*]')).toEqual(['integer', 'integer', 'integer'])
  })

  test('NUMINCRBY: a u64 beyond i64 is computed as a float; an infinite result is refused', () => {
    const { run } = engine()
    run('JSON.SET', 'n', '$', '[18446744073709551615, 1.7e308]')
    expect(run('JSON.NUMINCRBY', 'n', '$[0]', '1')).toBe('[1.8446744073709552e19]')
    expect(run('JSON.NUMINCRBY', 'n', '$[1]', '1.7e308')).toEqual(error('result is not a number'))
    expect(run('JSON.GET', 'n', '$[1]')).toBe('[1.7e308]')
  })

  test('NUMINCRBY: the operand is JSON; a non-number is refused only when a number matched', () => {
    const { run } = engine()
    run('JSON.SET', 'n', '$', '{"a":1,"s":"x"}')
    expect(run('JSON.NUMINCRBY', 'n', '$.a', '"2"')).toEqual(error('bad input number'))
    expect(run('JSON.NUMINCRBY', 'n', '$.a', 'abc')).toEqual(error('ERR expected value at line 1 column 1'))
    expect(run('JSON.NUMINCRBY', 'n', '$.s', 'abc')).toBe('[null]')
    expect(run('JSON.NUMINCRBY', 'n', '$.a', '+1')).toEqual(error('ERR expected value at line 1 column 1'))
  })

  test('filters compare numbers exactly across integer and float', () => {
    const { run } = engine()
    run('JSON.SET', 'n', '$', '[9007199254740993, 9007199254740992, 1, 1.0]')
    expect(run('JSON.GET', 'n', '$[?(@ > 9007199254740992)]')).toBe('[9007199254740993]')
    expect(run('JSON.GET', 'n', '$[?(@ == 1)]')).toBe('[1,1.0]')
    // JSON.ARRINDEX compares with types: 1 is not 1.0.
    expect(run('JSON.ARRINDEX', 'n', '$', '1.0')).toEqual([3])
  })
})

describe('JSON.RESP floats: Redis 7.0 addReplyDouble, %.17g (edge cases of our own)', () => {
  test.each([
    ['64.99', '64.989999999999995'],
    ['1.0', '1'],
    ['0.1', '0.10000000000000001'],
    ['1e-7', '9.9999999999999995e-08'],
    ['1e20', '1e+20'],
    ['-2.5', '-2.5'],
    ['-0.0', '-0'],
    // An exact tie at the 17th digit rounds to even, as C's printf does.
    ['405439205484246.625', '405439205484246.62'],
  ])('%s is sent as %s', (text, reply) => {
    const { run } = engine()
    run('JSON.SET', 'f', '$', text)
    expect(run('JSON.RESP', 'f')).toBe(reply)
  })
})

describe('strings (serde_json escapes, bytes kept as UTF-8)', () => {
  test('control characters are written \\uXXXX in lowercase, the rest as is', () => {
    const { run } = engine()
    expect(run('JSON.SET', 's', '$', '"a\\u0001\\u001f\\b\\f\\n\\r\\t\\"\\\\\\/\\u007f"')).toBe('OK')
    expect(run('JSON.GET', 's')).toBe('"a\\u0001\\u001f\\b\\f\\n\\r\\t\\"\\\\/\u007f"')
  })

  test('non-ASCII stays UTF-8 (escaped or not on input); lengths are in bytes', () => {
    const { run } = engine()
    expect(run('JSON.SET', 's', '$', '{"k":"é日\\u00e9\\ud83d\\ude00"}')).toBe('OK')
    expect(run('JSON.GET', 's')).toBe('{"k":"é日é😀"}')
    expect(run('JSON.STRLEN', 's', '$.k')).toEqual([2 + 3 + 2 + 4])
    expect(run('JSON.STRAPPEND', 's', '$.k', '"ü"')).toEqual([13])
    expect(run('JSON.RESP', 's', '$.k')).toEqual(['é日é😀ü'])
  })

  test('text arguments must be UTF-8 (redis-module-rs `try_as_str`)', () => {
    const { run } = engine()
    const invalid = new Uint8Array([0x22, 0xff, 0x22])
    expect(run('JSON.SET', 's', '$', invalid)).toEqual(error("Couldn't parse as UTF-8 string"))
    expect(run('JSON.SET', 's', invalid, '1')).toEqual(error("Couldn't parse as UTF-8 string"))
  })
})

describe('JSON text errors (serde_json messages, sent without ERR)', () => {
  test.each([
    ['', 'EOF while parsing a value at line 1 column 0'],
    ['x', 'expected value at line 1 column 1'],
    ['{', 'EOF while parsing an object at line 1 column 1'],
    ['[', 'EOF while parsing a list at line 1 column 1'],
    ['[1,', 'EOF while parsing a value at line 1 column 3'],
    ['[1,]', 'trailing comma at line 1 column 4'],
    ['[1 2]', 'expected `,` or `]` at line 1 column 4'],
    ['{"a" 1}', 'expected `:` at line 1 column 6'],
    ['{"a":1,}', 'trailing comma at line 1 column 8'],
    ['{"a":1 "b":2}', 'expected `,` or `}` at line 1 column 8'],
    ['{1:2}', 'key must be a string at line 1 column 2'],
    ['"abc', 'EOF while parsing a string at line 1 column 4'],
    ['"a\\x"', 'invalid escape at line 1 column 4'],
    ['"a\u0001"', 'control character (\\u0000-\\u001F) found while parsing a string at line 1 column 3'],
    ['"\\ud800"', 'unexpected end of hex escape at line 1 column 8'],
    ['"\\udc00"', 'lone leading surrogate in hex escape at line 1 column 7'],
    ['tru', 'EOF while parsing a value at line 1 column 3'],
    ['trux', 'expected ident at line 1 column 4'],
    ['01', 'invalid number at line 1 column 2'],
    ['-', 'EOF while parsing a value at line 1 column 1'],
    ['-x', 'invalid number at line 1 column 2'],
    ['1.', 'EOF while parsing a value at line 1 column 2'],
    ['1.x', 'invalid number at line 1 column 3'],
    ['1e', 'EOF while parsing a value at line 1 column 2'],
    ['1e400', 'number out of range at line 1 column 5'],
    ['1 2', 'trailing characters at line 1 column 3'],
    ['NaN', 'expected value at line 1 column 1'],
    ['{\n"a":\n}', 'expected value at line 3 column 1'],
  ])('%j: %s', (text, message) => {
    const { run } = engine()
    expect(run('JSON.SET', 'doc', '$', text)).toEqual(error(message))
  })

  test('operands parsed straight into a RedisError carry ERR (https://redis.io/docs/latest/develop/reference/errors/all/json/)', () => {
    const { run } = engine()
    run('JSON.SET', 'doc', '$', '{"n":1,"s":"x","a":[]}')
    expect(run('JSON.SET', 'doc', '$.n', 'x')).toEqual(error('expected value at line 1 column 1'))
    expect(run('JSON.ARRAPPEND', 'doc', '$.a', 'x')).toEqual(error('expected value at line 1 column 1'))
    expect(run('JSON.NUMINCRBY', 'doc', '$.n', 'x')).toEqual(error('ERR expected value at line 1 column 1'))
    expect(run('JSON.NUMMULTBY', 'doc', '$.n', '[')).toEqual(error('ERR EOF while parsing a list at line 1 column 1'))
    expect(run('JSON.STRAPPEND', 'doc', '$.s', 'x')).toEqual(error('ERR expected value at line 1 column 1'))
    expect(run('JSON.ARRINDEX', 'doc', '$.a', 'x')).toEqual(error('ERR expected value at line 1 column 1'))
  })

  test('nesting is limited to 127 levels (serde_json recursion limit)', () => {
    const { run } = engine()
    expect(run('JSON.SET', 'doc', '$', '['.repeat(127) + ']'.repeat(127))).toBe('OK')
    expect(run('JSON.SET', 'doc', '$', '['.repeat(128) + ']'.repeat(128))).toEqual(error('recursion limit exceeded at line 1 column 128'))
  })

  test('whitespace around the value is allowed; a repeated key keeps its first place', () => {
    const { run } = engine()
    expect(run('JSON.SET', 'doc', '$', ' \t\n{"a":1,"b":2,"a":3}\r\n')).toBe('OK')
    expect(run('JSON.GET', 'doc')).toBe('{"a":3,"b":2}')
  })
})

describe('object member order (ijson IObject)', () => {
  test('a removed member is replaced by the last one', () => {
    const { run } = engine()
    run('JSON.SET', 'doc', '$', '{"a":1,"b":2,"c":3,"d":4}')
    expect(run('JSON.DEL', 'doc', '$.a')).toBe(1)
    expect(run('JSON.GET', 'doc')).toBe('{"d":4,"b":2,"c":3}')
    expect(run('JSON.OBJKEYS', 'doc')).toEqual(['d', 'b', 'c'])
  })

  test('large objects (past 8 members) keep the same order rules', () => {
    const { run } = engine()
    const members = Array.from({ length: 12 }, (_, i) => `"k${i}":${i}`)
    run('JSON.SET', 'doc', '$', `{${members.join(',')}}`)
    expect(run('JSON.DEL', 'doc', '$.k3')).toBe(1)
    expect(run('JSON.SET', 'doc', '$.k3', '"again"')).toBe('OK')
    expect(run('JSON.OBJKEYS', 'doc')).toEqual(['k0', 'k1', 'k2', 'k11', 'k4', 'k5', 'k6', 'k7', 'k8', 'k9', 'k10', 'k3'])
    expect(run('JSON.GET', 'doc', '$.k11')).toBe('[11]')
  })
})

describe(`JSON.GET formatting: INDENT NEWLINE SPACE (${docs('JSON.GET')}; RedisJSON formatter.rs)`, () => {
  const DOC = '{"a":[1,{}],"b":{"c":[]},"d":"x"}'

  test('pretty printing with all three', () => {
    const { run } = engine()
    run('JSON.SET', 'doc', '$', DOC)
    expect(run('JSON.GET', 'doc', 'INDENT', '\t', 'NEWLINE', '\n', 'SPACE', ' ')).toBe(
      '{\n\t"a": [\n\t\t1,\n\t\t{}\n\t],\n\t"b": {\n\t\t"c": []\n\t},\n\t"d": "x"\n}',
    )
  })

  test('each option alone; options are case-insensitive and may follow the paths', () => {
    const { run } = engine()
    run('JSON.SET', 'doc', '$', DOC)
    expect(run('JSON.GET', 'doc', 'indent', '_')).toBe('{_"a":[__1,__{}_],_"b":{__"c":[]_},_"d":"x"}')
    expect(run('JSON.GET', 'doc', 'NEWLINE', 'n')).toBe('{n"a":[n1,n{}n],n"b":{n"c":[]n},n"d":"x"n}')
    expect(run('JSON.GET', 'doc', 'SPACE', 's')).toBe('{"a":s[1,{}],"b":s{"c":s[]},"d":s"x"}')
    expect(run('JSON.GET', 'doc', '$.d', 'SPACE', ' ', 'NOESCAPE')).toBe('["x"]')
  })

  test('formatting applies to the object of several paths too', () => {
    const { run } = engine()
    run('JSON.SET', 'doc', '$', DOC)
    expect(run('JSON.GET', 'doc', 'NEWLINE', '\n', 'INDENT', ' ', '$.d', '$.b.c')).toBe('{\n "$.d":[\n  "x"\n ],\n "$.b.c":[\n  []\n ]\n}')
  })

  test('option errors: a missing value, FORMAT on RESP2', () => {
    const { run } = engine()
    run('JSON.SET', 'doc', '$', DOC)
    expect(run('JSON.GET', 'doc', 'INDENT')).toEqual(error("ERR wrong number of arguments for 'json.get' command"))
    expect(run('JSON.GET', 'doc', 'FORMAT', 'EXPAND')).toEqual(error('ERR FORMAT argument is not supported on RESP2'))
    expect(run('JSON.GET', 'doc', '$', 'FORMAT', 'STRINGS')).toEqual(error('ERR wrong reply format'))
    expect(run('JSON.GET', 'doc', '$.d', 'FORMAT', 'STRING')).toBe('["x"]')
  })
})

describe('the key type', () => {
  test('TYPE, OBJECT ENCODING, other families answer WRONGTYPE, JSON on other types', () => {
    const { run } = engine()
    run('JSON.SET', 'doc', '$', '{"a":1}')
    expect(run('TYPE', 'doc')).toBe('ReJSON-RL')
    expect(run('OBJECT', 'ENCODING', 'doc')).toBe('raw')
    expect(run('GET', 'doc')).toEqual(error('WRONGTYPE Operation against a key holding the wrong kind of value'))
    expect(run('HGET', 'doc', 'a')).toEqual(error('WRONGTYPE Operation against a key holding the wrong kind of value'))
    run('SET', 'str', 'x')
    for (const command of [
      ['JSON.GET', 'str'],
      ['JSON.SET', 'str', '$', '1'],
      ['JSON.DEL', 'str'],
      ['JSON.TYPE', 'str'],
      ['JSON.ARRAPPEND', 'str', '$', '1'],
      ['JSON.MERGE', 'str', '$', '{}'],
    ]) {
      expect(run(...command)).toEqual(error('Existing key has wrong Redis type'))
    }
    expect(run('JSON.MGET', 'str', 'doc', '$.a')).toEqual([null, '[1]'])
  })

  test('COPY makes an independent document', () => {
    const { run } = engine()
    run('JSON.SET', 'doc', '$', '{"a":[1,{"b":2}]}')
    expect(run('COPY', 'doc', 'copy')).toBe(1)
    run('JSON.SET', 'doc', '$.a[1].b', '3')
    expect(run('JSON.GET', 'copy')).toBe('{"a":[1,{"b":2}]}')
    expect(run('TYPE', 'copy')).toBe('ReJSON-RL')
  })

  test('updates keep the TTL; JSON.DEL of the root removes the key', () => {
    let now = 1_700_000_000_000
    const executor = new MemoryExecutor({ clock: () => now, activeExpiryInterval: 0 })
    const run = (...command: string[]) => plain(executor.execSync(command))
    run('JSON.SET', 'doc', '$', '{"a":1}')
    run('PEXPIRE', 'doc', '1000')
    run('JSON.SET', 'doc', '$', '{"a":2}')
    run('JSON.SET', 'doc', '$.b', '3')
    run('JSON.NUMINCRBY', 'doc', '$.a', '1')
    expect(run('PTTL', 'doc')).toBe(1000)
    now += 1001
    expect(run('JSON.GET', 'doc')).toBe(null)
    run('JSON.SET', 'doc', '$', '{}')
    expect(run('JSON.DEL', 'doc', '.')).toBe(1)
    expect(run('EXISTS', 'doc')).toBe(0)
    return executor.close()
  })
})
