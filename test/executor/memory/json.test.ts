import { describe, expect, test } from 'vitest'
import { Status } from '../../../src/reply.js'
import { docs, engine, error } from './json/helpers.js'

/**
 * The examples of the RedisJSON command pages, one test per example, named after its page. No
 * local server has the module; the documented replies are the reference. More cases (paths,
 * errors, numbers, formatting) are in `json/`.
 */

const HEADPHONES =
  '{"name":"Noise-cancelling Bluetooth headphones","description":"Wireless Bluetooth headphones with noise-cancelling technology","connection":{"wireless":true,"type":"Bluetooth"},"price":99.98,"stock":25,"colors":["black","silver"]}'
const EARBUDS =
  '{"name":"Wireless earbuds","description":"Wireless Bluetooth in-ear headphones","connection":{"wireless":true,"type":"Bluetooth"},"price":64.99,"stock":17,"colors":["black","white"], "max_level":[80, 100, 120]}'
const TWO_HEADPHONES =
  '[{"name":"Healthy headphones","description":"Wireless Bluetooth headphones with noise-cancelling technology","connection":{"wireless":true,"type":"Bluetooth"},"price":99.98,"stock":25,"colors":["black","silver"],"max_level":[60,70,80]},{"name":"Noisy headphones","description":"Wireless Bluetooth headphones with noise-cancelling technology","connection":{"wireless":true,"type":"Bluetooth"},"price":99.98,"stock":25,"colors":["black","silver"],"max_level":[80,90,100,120]}]'

describe('JSON.SET', () => {
  test(`replace an existing value (${docs('JSON.SET')})`, () => {
    const { run } = engine()
    expect(run('JSON.SET', 'doc', '$', '{"a":2}')).toBe('OK')
    expect(run('JSON.SET', 'doc', '$.a', '3')).toBe('OK')
    expect(run('JSON.GET', 'doc', '$')).toBe('[{"a":3}]')
  })

  test(`add a new value (${docs('JSON.SET')})`, () => {
    const { run } = engine()
    run('JSON.SET', 'doc', '$', '{"a":2}')
    expect(run('JSON.SET', 'doc', '$.b', '8')).toBe('OK')
    expect(run('JSON.GET', 'doc', '$')).toBe('[{"a":2,"b":8}]')
  })

  test(`update multiple matches (${docs('JSON.SET')})`, () => {
    const { run } = engine()
    run('JSON.SET', 'doc', '$', '{"f1": {"a":1}, "f2":{"a":2}}')
    expect(run('JSON.SET', 'doc', '$..a', '3')).toBe('OK')
    expect(run('JSON.GET', 'doc')).toBe('{"f1":{"a":3},"f2":{"a":3}}')
  })

  test(`path does not exist and cannot be created (${docs('JSON.SET')})`, () => {
    const { run } = engine()
    run('JSON.SET', 'doc', '$', '1')
    expect(run('JSON.SET', 'doc', '$.x.y', '2')).toBe(null)
  })

  test(`XX condition unmet (${docs('JSON.SET')})`, () => {
    const { run } = engine()
    expect(run('JSON.SET', 'nonexistentkey', '$', '5', 'XX')).toBe(null)
    expect(run('JSON.GET', 'nonexistentkey')).toBe(null)
  })

  test(`key does not exist and path is not root (${docs('JSON.SET')})`, () => {
    const { run } = engine()
    expect(run('JSON.SET', 'nonexistentkey', '$.x', '5')).toEqual(error('ERR new objects must be created at the root'))
  })
})

describe('JSON.GET', () => {
  test(`a single JSONPath answers a JSON array (${docs('JSON.GET')})`, () => {
    const { run } = engine()
    expect(run('JSON.SET', 'doc', '$', '{"a":2, "b": 3, "nested": {"a": 4, "b": null}}')).toBe('OK')
    expect(run('JSON.GET', 'doc', '$..b')).toBe('[3,null]')
  })

  test(`several paths answer an object keyed by path (${docs('JSON.GET')})`, () => {
    const { run } = engine()
    run('JSON.SET', 'doc', '$', '{"a":2, "b": 3, "nested": {"a": 4, "b": null}}')
    // The page shows {"$..b":[3,null],"..a":[2,4]}: RedisJSON's keys come from a Rust HashMap,
    // in no set order; this engine keeps argument order. The content is the same.
    const reply = run('JSON.GET', 'doc', '..a', '$..b') as string
    expect(JSON.parse(reply)).toEqual(JSON.parse('{"$..b":[3,null],"..a":[2,4]}'))
  })
})

describe('JSON.MGET', () => {
  test(`values at a path from several keys (${docs('JSON.MGET')})`, () => {
    const { run } = engine()
    expect(run('JSON.SET', 'doc1', '$', '{"a":1, "b": 2, "nested": {"a": 3}, "c": null}')).toBe('OK')
    expect(run('JSON.SET', 'doc2', '$', '{"a":4, "b": 5, "nested": {"a": 6}, "c": null}')).toBe('OK')
    expect(run('JSON.MGET', 'doc1', 'doc2', '$..a')).toEqual(['[1,3]', '[4,6]'])
  })
})

describe('JSON.MSET', () => {
  test(`add new values in multiple keys (${docs('JSON.MSET')})`, () => {
    const { run } = engine()
    expect(run('JSON.MSET', 'doc1', '$', '{"a":1}', 'doc2', '$', '{"f":{"a":2}}', 'doc3', '$', '{"f1":{"a":0},"f2":{"a":0}}')).toBe('OK')
    expect(run('JSON.MSET', 'doc1', '$', '{"a":2}', 'doc2', '$.f.a', '3', 'doc3', '$', '{"f1":{"a":1},"f2":{"a":2}}')).toBe('OK')
    expect(run('JSON.GET', 'doc1', '$')).toBe('[{"a":2}]')
    expect(run('JSON.GET', 'doc2', '$')).toBe('[{"f":{"a":3}}]')
    expect(run('JSON.GET', 'doc3')).toBe('{"f1":{"a":1},"f2":{"a":2}}')
  })
})

describe('JSON.DEL and JSON.FORGET', () => {
  test(`delete a value (${docs('JSON.DEL')})`, () => {
    const { run } = engine()
    run('JSON.SET', 'doc', '$', '{"a": 1, "nested": {"a": 2, "b": 3}}')
    expect(run('JSON.DEL', 'doc', '$..a')).toBe(2)
    expect(run('JSON.GET', 'doc', '$')).toBe('[{"nested":{"b":3}}]')
  })

  test(`JSON.FORGET is JSON.DEL (${docs('JSON.FORGET')})`, () => {
    const { run } = engine()
    run('JSON.SET', 'doc', '$', '{"a": 1, "nested": {"a": 2, "b": 3}}')
    expect(run('JSON.FORGET', 'doc', '$..a')).toBe(2)
    expect(run('JSON.GET', 'doc', '$')).toBe('[{"nested":{"b":3}}]')
  })
})

describe('JSON.TYPE', () => {
  test(`types of the matches (${docs('JSON.TYPE')})`, () => {
    const { run } = engine()
    run('JSON.SET', 'doc', '$', '{"a":2, "nested": {"a": true}, "foo": "bar"}')
    expect(run('JSON.TYPE', 'doc', '$..foo')).toEqual(['string'])
    expect(run('JSON.TYPE', 'doc', '$..a')).toEqual(['integer', 'boolean'])
    expect(run('JSON.TYPE', 'doc', '$..dummy')).toEqual([])
  })
})

describe('JSON.STRLEN and JSON.STRAPPEND', () => {
  test(`string lengths, nil for other types (${docs('JSON.STRLEN')})`, () => {
    const { run } = engine()
    run('JSON.SET', 'doc', '$', '{"a":"foo", "nested": {"a": "hello"}, "nested2": {"a": 31}}')
    expect(run('JSON.STRLEN', 'doc', '$..a')).toEqual([3, 5, null])
  })

  test(`append to every string match (${docs('JSON.STRAPPEND')})`, () => {
    const { run } = engine()
    run('JSON.SET', 'doc', '$', '{"a":"foo", "nested": {"a": "hello"}, "nested2": {"a": 31}}')
    expect(run('JSON.STRAPPEND', 'doc', '$..a', '"baz"')).toEqual([6, 8, null])
    expect(run('JSON.GET', 'doc', '$')).toBe('[{"a":"foobaz","nested":{"a":"hellobaz"},"nested2":{"a":31}}]')
  })
})

describe('JSON.NUMINCRBY and JSON.NUMMULTBY', () => {
  test(`increment number values (${docs('JSON.NUMINCRBY')})`, () => {
    const { run } = engine()
    expect(run('JSON.SET', 'doc', '.', '{"a":"b","b":[{"a":2}, {"a":5}, {"a":"c"}]}')).toBe('OK')
    expect(run('JSON.NUMINCRBY', 'doc', '$.a', '2')).toBe('[null]')
    expect(run('JSON.NUMINCRBY', 'doc', '$..a', '2')).toBe('[null,4,7,null]')
  })

  test(`multiply number values (${docs('JSON.NUMMULTBY')})`, () => {
    const { run } = engine()
    expect(run('JSON.SET', 'doc', '.', '{"a":"b","b":[{"a":2}, {"a":5}, {"a":"c"}]}')).toBe('OK')
    expect(run('JSON.NUMMULTBY', 'doc', '$.a', '2')).toBe('[null]')
    expect(run('JSON.NUMMULTBY', 'doc', '$..a', '2')).toBe('[null,4,10,null]')
  })
})

describe('JSON.TOGGLE', () => {
  test(`toggle a boolean value (${docs('JSON.TOGGLE')})`, () => {
    const { run } = engine()
    run('JSON.SET', 'doc', '$', '{"bool": true}')
    expect(run('JSON.TOGGLE', 'doc', '$.bool')).toEqual([0])
    expect(run('JSON.GET', 'doc', '$')).toBe('[{"bool":false}]')
    expect(run('JSON.TOGGLE', 'doc', '$.bool')).toEqual([1])
    expect(run('JSON.GET', 'doc', '$')).toBe('[{"bool":true}]')
  })
})

describe('JSON.CLEAR', () => {
  test(`clear containers and zero numbers (${docs('JSON.CLEAR')})`, () => {
    const { run } = engine()
    run('JSON.SET', 'doc', '$', '{"obj":{"a":1, "b":2}, "arr":[1,2,3], "str": "foo", "bool": true, "int": 42, "float": 3.14}')
    expect(run('JSON.CLEAR', 'doc', '$.*')).toBe(4)
    expect(run('JSON.GET', 'doc', '$')).toBe('[{"obj":{},"arr":[],"str":"foo","bool":true,"int":0,"float":0}]')
  })
})

describe('JSON.ARRAPPEND ARRINDEX ARRINSERT', () => {
  test(`add a new color to a list of product colors (${docs('JSON.ARRAPPEND')})`, () => {
    const { run } = engine()
    expect(run('JSON.SET', 'item:1', '$', HEADPHONES)).toBe('OK')
    expect(run('JSON.ARRAPPEND', 'item:1', '$.colors', '"blue"')).toEqual([3])
    expect(run('JSON.GET', 'item:1', '$.colors')).toBe('[["black","silver","blue"]]')
  })

  for (const page of ['JSON.ARRINDEX', 'JSON.ARRINSERT']) {
    test(`insert colors, then find one (${docs(page)})`, () => {
      const { run } = engine()
      run('JSON.SET', 'item:1', '$', HEADPHONES)
      expect(run('JSON.ARRAPPEND', 'item:1', '$.colors', '"blue"')).toEqual([3])
      expect(run('JSON.GET', 'item:1')).toBe(
        '{"name":"Noise-cancelling Bluetooth headphones","description":"Wireless Bluetooth headphones with noise-cancelling technology","connection":{"wireless":true,"type":"Bluetooth"},"price":99.98,"stock":25,"colors":["black","silver","blue"]}',
      )
      expect(run('JSON.GET', 'item:1', '$.colors[*]')).toBe('["black","silver","blue"]')
      expect(run('JSON.ARRINSERT', 'item:1', '$.colors', '2', '"yellow"', '"gold"')).toEqual([5])
      expect(run('JSON.GET', 'item:1', '$.colors')).toBe('[["black","silver","yellow","gold","blue"]]')
      if (page === 'JSON.ARRINDEX') expect(run('JSON.ARRINDEX', 'item:1', '$..colors', '"silver"')).toEqual([1])
    })
  }
})

describe('JSON.ARRLEN', () => {
  test(`lengths of the arrays of a document (${docs('JSON.ARRLEN')})`, () => {
    const { run } = engine()
    expect(run('JSON.SET', 'item:2', '$', EARBUDS)).toBe('OK')
    expect(run('JSON.ARRLEN', 'item:2', '$.[*]')).toEqual([null, null, null, null, null, 2, 3])
    expect(run('JSON.ARRLEN', 'item:2', '$..max_level')).toEqual([3])
    expect(run('JSON.GET', 'item:2', '$..max_level')).toBe('[[80,100,120]]')
  })
})

describe('JSON.ARRPOP', () => {
  test(`pop a value from an index and insert a new value (${docs('JSON.ARRPOP')})`, () => {
    const { run } = engine()
    expect(run('JSON.SET', 'key', '$', TWO_HEADPHONES)).toBe('OK')
    expect(run('JSON.GET', 'key', '$.[1].max_level')).toBe('[[80,90,100,120]]')
    expect(run('JSON.ARRPOP', 'key', '$.[1].max_level', '0')).toEqual(['80'])
    expect(run('JSON.GET', 'key', '$.[1].max_level')).toBe('[[90,100,120]]')
    expect(run('JSON.ARRINSERT', 'key', '$.[1].max_level', '0', '85')).toEqual([4])
    expect(run('JSON.GET', 'key', '$.[1].max_level')).toBe('[[85,90,100,120]]')
  })
})

describe('JSON.ARRTRIM', () => {
  test(`trim an array to a specific set of values (${docs('JSON.ARRTRIM')})`, () => {
    const { run } = engine()
    expect(run('JSON.SET', 'key', '$', TWO_HEADPHONES.replace('[80,90,100,120]', '[85,90,100,120]'))).toBe('OK')
    expect(run('JSON.ARRAPPEND', 'key', '$.[1].max_level', '140', '160', '180', '200', '220', '240', '260', '280')).toEqual([12])
    expect(run('JSON.GET', 'key', '$.[1].max_level')).toBe('[[85,90,100,120,140,160,180,200,220,240,260,280]]')
    expect(run('JSON.ARRTRIM', 'key', '$.[1].max_level', '4', '8')).toEqual([5])
    expect(run('JSON.GET', 'key', '$.[1].max_level')).toBe('[[140,160,180,200,220]]')
  })
})

describe('JSON.OBJKEYS and JSON.OBJLEN', () => {
  test(`key names of the object matches (${docs('JSON.OBJKEYS')})`, () => {
    const { run } = engine()
    run('JSON.SET', 'doc', '$', '{"a":[3], "nested": {"a": {"b":2, "c": 1}}}')
    expect(run('JSON.OBJKEYS', 'doc', '$..a')).toEqual([null, ['b', 'c']])
  })

  test(`member counts of the object matches (${docs('JSON.OBJLEN')})`, () => {
    const { run } = engine()
    run('JSON.SET', 'doc', '$', '{"a":[3], "nested": {"a": {"b":2, "c": 1}}}')
    expect(run('JSON.OBJLEN', 'doc', '$..a')).toEqual([null, 2])
  })
})

describe('JSON.MERGE', () => {
  test(`create a non-existent path-value (${docs('JSON.MERGE')})`, () => {
    const { run } = engine()
    run('JSON.SET', 'doc', '$', '{"a":2}')
    expect(run('JSON.MERGE', 'doc', '$.b', '8')).toBe('OK')
    expect(run('JSON.GET', 'doc', '$')).toBe('[{"a":2,"b":8}]')
  })

  test(`replace an existing value (${docs('JSON.MERGE')})`, () => {
    const { run } = engine()
    run('JSON.SET', 'doc', '$', '{"a":2}')
    expect(run('JSON.MERGE', 'doc', '$.a', '3')).toBe('OK')
    expect(run('JSON.GET', 'doc', '$')).toBe('[{"a":3}]')
  })

  test(`delete an existing value (${docs('JSON.MERGE')})`, () => {
    const { run } = engine()
    run('JSON.SET', 'doc', '$', '{"a":2}')
    expect(run('JSON.MERGE', 'doc', '$', '{"a":null}')).toBe('OK')
    expect(run('JSON.GET', 'doc', '$')).toBe('[{}]')
  })

  test(`replace an array (${docs('JSON.MERGE')})`, () => {
    const { run } = engine()
    run('JSON.SET', 'doc', '$', '{"a":[2,4,6,8]}')
    expect(run('JSON.MERGE', 'doc', '$.a', '[10,12]')).toBe('OK')
    expect(run('JSON.GET', 'doc', '$')).toBe('[{"a":[10,12]}]')
  })

  test(`merge changes in multi-paths (${docs('JSON.MERGE')})`, () => {
    const { run } = engine()
    run('JSON.SET', 'doc', '$', '{"f1": {"a":1}, "f2":{"a":2}}')
    expect(run('JSON.GET', 'doc')).toBe('{"f1":{"a":1},"f2":{"a":2}}')
    expect(run('JSON.MERGE', 'doc', '$', '{"f1": null, "f2":{"a":3, "b":4}, "f3":[2,4,6]}')).toBe('OK')
    expect(run('JSON.GET', 'doc')).toBe('{"f2":{"a":3,"b":4},"f3":[2,4,6]}')
  })
})

describe('JSON.RESP', () => {
  test(`RESP form of a document (${docs('JSON.RESP')})`, () => {
    const { run, raw } = engine()
    expect(run('JSON.SET', 'item:2', '$', EARBUDS)).toBe('OK')
    expect(run('JSON.RESP', 'item:2')).toEqual([
      '{',
      'name',
      'Wireless earbuds',
      'description',
      'Wireless Bluetooth in-ear headphones',
      'connection',
      ['{', 'wireless', 'true', 'type', 'Bluetooth'],
      'price',
      '64.989999999999995',
      'stock',
      17,
      'colors',
      ['[', 'black', 'white'],
      'max_level',
      ['[', 80, 100, 120],
    ])
    // `{`, `[` and `true` are simple strings, the rest bulk strings (as the page's redis-cli output shows).
    const reply = raw('JSON.RESP', 'item:2') as unknown[]
    expect(reply[0]).toBeInstanceOf(Status)
    expect((reply[6] as unknown[])[2]).toBeInstanceOf(Status)
    expect(reply[8]).toBeInstanceOf(Uint8Array)
  })
})
