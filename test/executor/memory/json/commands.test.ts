import { describe, expect, test } from 'vitest'
import { engine, error } from './helpers.js'

/**
 * Reply shapes and errors of each command with a JSONPath and with a legacy path, missing keys,
 * bad arguments and the order RedisJSON checks them in. Edge cases of our own, following
 * RedisJSON 2.x's `commands.rs` / `key_value.rs` / `ivalue_manager.rs` (the functions are named).
 */

const ARITY = (name: string) => error(`ERR wrong number of arguments for '${name}' command`)
const NO_KEY = error("ERR could not perform this operation on a key that doesn't exist")

function withDocument(json = '{"a":[1,2,3],"o":{"x":1},"s":"str","n":5,"b":true,"e":[]}') {
  const db = engine()
  expect(db.run('JSON.SET', 'doc', '$', json)).toBe('OK')
  return db
}

describe('JSON.SET (json_set, find_paths, find_add_paths)', () => {
  test('NX and XX on the root and on members', () => {
    const { run } = withDocument()
    expect(run('JSON.SET', 'doc', '$', '1', 'NX')).toBe(null)
    expect(run('JSON.SET', 'new', '$', '1', 'NX')).toBe('OK')
    expect(run('JSON.SET', 'other', '$', '1', 'XX')).toBe(null)
    expect(run('JSON.SET', 'doc', '$.n', '6', 'NX')).toBe(null)
    expect(run('JSON.SET', 'doc', '$.z', '6', 'xx')).toBe(null)
    expect(run('JSON.SET', 'doc', '$.n', '6', 'XX')).toBe('OK')
    expect(run('JSON.SET', 'doc', '$.z', '7', 'nx')).toBe('OK')
    expect(run('JSON.GET', 'doc', '$.n', '$.z')).toBe('{"$.n":[6],"$.z":[7]}')
  })

  test('options: one condition, FORMAT JSON|STRING, anything else a syntax error', () => {
    const { run } = withDocument()
    expect(run('JSON.SET', 'doc', '$.n', '1', 'NX', 'XX')).toEqual(error('ERR syntax error'))
    expect(run('JSON.SET', 'doc', '$.n', '1', 'XX', 'XX')).toEqual(error('ERR syntax error'))
    expect(run('JSON.SET', 'doc', '$.n', '1', 'EX')).toEqual(error('ERR syntax error'))
    expect(run('JSON.SET', 'doc', '$.n', '1', 'FORMAT', 'JSON')).toBe('OK')
    expect(run('JSON.SET', 'doc', '$.n', '1', 'FORMAT', 'XML')).toEqual(error('ERR wrong format'))
    expect(run('JSON.SET', 'doc', '$')).toEqual(ARITY('json.set'))
  })

  test('what cannot be created: dynamic paths, indexes past the end, members of non-objects', () => {
    const { run } = withDocument()
    expect(run('JSON.SET', 'doc', '$..zz', '1')).toEqual(error('Err wrong static path'))
    expect(run('JSON.SET', 'doc', '$.a[5]', '1')).toEqual(error('ERR array index out of range'))
    expect(run('JSON.SET', 'doc', '$.a[1]', '1', 'NX')).toBe(null)
    expect(run('JSON.SET', 'doc', '$.a[-1]', '0')).toBe('OK')
    expect(run('JSON.SET', 'doc', '$.a.x', '1')).toBe(null)
    expect(run('JSON.SET', 'doc', '$.nothere.x', '1')).toBe(null)
    expect(run('JSON.SET', 'doc', "$['new key']", '1')).toBe('OK')
    expect(run('JSON.GET', 'doc', '$.a', "$['new key']")).toBe('{"$.a":[[1,2,0]],"$[\'new key\']":[1]}')
  })

  test('check order: the key type, then the value, then the path', () => {
    const { run } = withDocument()
    run('SET', 'str', 'x')
    expect(run('JSON.SET', 'str', '$', '{')).toEqual(error('Existing key has wrong Redis type'))
    expect(run('JSON.SET', 'missing', '$.x', '{')).toEqual(error('EOF while parsing an object at line 1 column 1'))
    expect(run('JSON.SET', 'doc', '$[', '{')).toEqual(error('EOF while parsing an object at line 1 column 1'))
    expect(run('JSON.SET', 'missing', '$.x', '1', 'XX')).toBe(null)
  })

  test('legacy paths write the same way', () => {
    const { run } = withDocument()
    expect(run('JSON.SET', 'doc', '.o.y', '2')).toBe('OK')
    expect(run('JSON.SET', 'doc', 'o.x', '"v"')).toBe('OK')
    expect(run('JSON.GET', 'doc', '.o')).toBe('{"x":"v","y":2}')
    expect(run('JSON.SET', 'doc', '.', '[]')).toBe('OK')
    expect(run('JSON.GET', 'doc')).toBe('[]')
  })

  test('several matches where an earlier write replaces a later parent: written, but nil (apply_updates keeps the last outcome)', () => {
    const { run } = engine()
    run('JSON.SET', 'doc', '$', '{"a":{"a":2}}')
    expect(run('JSON.SET', 'doc', '$..a', '1')).toBe(null)
    expect(run('JSON.GET', 'doc')).toBe('{"a":1}')
  })
})

describe('JSON.MSET (json_mset)', () => {
  test('all triplets are checked before any is applied', () => {
    const { run } = withDocument()
    expect(run('JSON.MSET', 'doc', '$.n', '10', 'missing', '$.x', '1')).toEqual(error('ERR new objects must be created at the root'))
    expect(run('JSON.MSET', 'doc', '$.n', '10', 'other', '$', '{')).toEqual(error('EOF while parsing an object at line 1 column 1'))
    expect(run('JSON.GET', 'doc', '$.n')).toBe('[5]')
    expect(run('EXISTS', 'other')).toBe(0)
    expect(run('JSON.MSET', 'doc', '$.n', '10', 'doc', '$.zz', '1', 'new', '$', '[]')).toBe('OK')
    expect(run('JSON.GET', 'doc', '$.n', '$.zz')).toBe('{"$.n":[10],"$.zz":[1]}')
    expect(run('JSON.GET', 'new')).toBe('[]')
  })

  test('arguments must come in triplets', () => {
    const { run } = withDocument()
    expect(run('JSON.MSET', 'doc', '$', '1', 'x')).toEqual(ARITY('json.mset'))
    expect(run('JSON.MSET', 'doc', '$')).toEqual(ARITY('json.mset'))
  })
})

describe('JSON.MERGE (json_merge, merge)', () => {
  test('merging into members: objects merge, other values replace, null at the path stores null', () => {
    const { run } = withDocument()
    expect(run('JSON.MERGE', 'doc', '$.o', '{"y":{"z":null,"w":1},"x":null}')).toBe('OK')
    expect(run('JSON.GET', 'doc', '$.o')).toBe('[{"y":{"w":1}}]')
    expect(run('JSON.MERGE', 'doc', '$.n', '{"k":1}')).toBe('OK')
    expect(run('JSON.MERGE', 'doc', '$.s', 'null')).toBe('OK')
    expect(run('JSON.GET', 'doc', '$.n', '$.s')).toBe('{"$.n":[{"k":1}],"$.s":[null]}')
  })

  test('a new member takes the value as given, nulls included', () => {
    const { run } = withDocument()
    expect(run('JSON.MERGE', 'doc', '$.new', '{"x":null}')).toBe('OK')
    expect(run('JSON.GET', 'doc', '$.new')).toBe('[{"x":null}]')
  })

  test('missing keys, dynamic paths, the root', () => {
    const { run } = withDocument()
    expect(run('JSON.MERGE', 'missing', '$.a', '1')).toEqual(error('ERR new objects must be created at the root'))
    expect(run('JSON.MERGE', 'missing', '$', '{"a":null}')).toBe('OK')
    expect(run('JSON.GET', 'missing')).toBe('{"a":null}')
    expect(run('JSON.MERGE', 'doc', '$..zz', '1')).toEqual(error('Err wrong static path'))
    expect(run('JSON.MERGE', 'doc', '$.a.x', '1')).toBe(null)
    expect(run('JSON.MERGE', 'doc', '$', '[1]')).toBe('OK')
    expect(run('JSON.GET', 'doc')).toBe('[1]')
  })
})

describe('JSON.DEL (json_del, prepare_paths_for_updating)', () => {
  test('missing keys and paths delete nothing; the root deletes the key', () => {
    const { run } = withDocument()
    expect(run('JSON.DEL', 'missing')).toBe(0)
    expect(run('JSON.DEL', 'doc', '$.zz')).toBe(0)
    expect(run('JSON.DEL', 'doc', '$')).toBe(1)
    expect(run('EXISTS', 'doc')).toBe(0)
  })

  test('several indexes of one array, and values nested in deleted ones', () => {
    const { run } = withDocument('{"a":[0,1,2,3,4],"x":{"x":{"x":1}}}')
    expect(run('JSON.DEL', 'doc', '$.a[0,2,4]')).toBe(3)
    expect(run('JSON.GET', 'doc', '$.a')).toBe('[[1,3]]')
    expect(run('JSON.DEL', 'doc', '$..x')).toBe(1)
    expect(run('JSON.GET', 'doc')).toBe('{"a":[1,3]}')
  })

  test('sibling keys that share a prefix are both deleted', () => {
    const { run } = withDocument('{"b":1,"bc":2,"c":3}')
    expect(run('JSON.DEL', 'doc', '$["b","bc"]')).toBe(2)
    expect(run('JSON.GET', 'doc')).toBe('{"c":3}')
  })

  test('a legacy path, and the default path', () => {
    const { run } = withDocument()
    expect(run('JSON.DEL', 'doc', '.o.x')).toBe(1)
    expect(run('JSON.FORGET', 'doc')).toBe(1)
    expect(run('EXISTS', 'doc')).toBe(0)
  })
})

describe('JSON.CLEAR (json_clear)', () => {
  test('counts what changed; a cleared container takes its contents along', () => {
    const { run } = withDocument('{"a":{"b":[1],"c":2},"z":0,"e":[]}')
    expect(run('JSON.CLEAR', 'doc', '$..*')).toBe(1)
    expect(run('JSON.GET', 'doc')).toBe('{"a":{},"z":0,"e":[]}')
    expect(run('JSON.CLEAR', 'doc')).toBe(1)
    expect(run('JSON.GET', 'doc')).toBe('{}')
    expect(run('JSON.CLEAR', 'doc', '$')).toBe(0)
    expect(run('JSON.CLEAR', 'missing')).toEqual(NO_KEY)
  })

  test('a number at the root becomes 0', () => {
    const { run } = withDocument('-2.5')
    expect(run('JSON.CLEAR', 'doc', '.')).toBe(1)
    expect(run('JSON.GET', 'doc')).toBe('0')
  })
})

describe('JSON.TOGGLE (json_bool_toggle)', () => {
  test('JSONPath: 1 / 0 per boolean, nil otherwise; legacy: "true" / "false"', () => {
    const { run } = withDocument('{"b":true,"c":[false,1]}')
    expect(run('JSON.TOGGLE', 'doc', '$..*')).toEqual([0, null, 1, null])
    expect(run('JSON.TOGGLE', 'doc', '.b')).toBe('true')
    expect(run('JSON.TOGGLE', 'doc', '.c')).toEqual(error("ERR Path '$.c' does not exist or not a bool"))
    expect(run('JSON.TOGGLE', 'missing', '$')).toEqual(NO_KEY)
    expect(run('JSON.TOGGLE', 'doc')).toEqual(ARITY('json.toggle'))
  })
})

describe('JSON.NUMINCRBY / NUMMULTBY (json_num_op)', () => {
  test('legacy: the last new value as text, or an error when no number matches', () => {
    const { run } = withDocument()
    expect(run('JSON.NUMINCRBY', 'doc', '.n', '-7')).toBe('-2')
    expect(run('JSON.NUMMULTBY', 'doc', 'n', '1.5')).toBe('-3.0')
    expect(run('JSON.NUMINCRBY', 'doc', '.s', '1')).toEqual(error("ERR Path '$.s' does not exist or does not contains a number"))
    expect(run('JSON.NUMINCRBY', 'doc', '$.zz', '1')).toBe('[]')
    expect(run('JSON.NUMINCRBY', 'missing', '$', '1')).toEqual(NO_KEY)
  })
})

describe('JSON.STRAPPEND / JSON.STRLEN (json_str_append, json_str_len)', () => {
  test('the operand must be a JSON string; the path defaults to the root', () => {
    const { run } = withDocument('"ab"')
    expect(run('JSON.STRAPPEND', 'doc', '"cd"')).toBe(4)
    expect(run('JSON.STRAPPEND', 'doc', '$', '5')).toEqual(error('WRONGTYPE wrong type of path value - expected string but found 5'))
    expect(run('JSON.STRAPPEND', 'doc', '$', 'cd')).toEqual(error('ERR expected value at line 1 column 1'))
    expect(run('JSON.STRLEN', 'doc')).toBe(4)
    expect(run('JSON.STRAPPEND', 'missing', '"x"')).toEqual(NO_KEY)
  })

  test('legacy errors and nils', () => {
    const { run } = withDocument()
    expect(run('JSON.STRAPPEND', 'doc', '.n', '"x"')).toEqual(error("ERR Path '$.n' does not exist or not a string"))
    expect(run('JSON.STRLEN', 'doc', '.n')).toEqual(error('WRONGTYPE wrong type of path value - expected string but found integer'))
    expect(run('JSON.STRLEN', 'doc', '.zz')).toEqual(error("ERR Path '$.zz' does not exist"))
    expect(run('JSON.STRLEN', 'missing', '.s')).toBe(null)
    expect(run('JSON.STRLEN', 'missing', '$.s')).toEqual(NO_KEY)
    expect(run('JSON.STRAPPEND', 'doc', '$.zz', '"x"')).toEqual([])
  })
})

describe('JSON.ARRAPPEND / ARRINSERT (json_arr_append, json_arr_insert)', () => {
  test('values are parsed first; errors name the path as written (ARRAPPEND) or as a JSONPath (ARRINSERT)', () => {
    const { run } = withDocument()
    expect(run('JSON.ARRAPPEND', 'missing', '$', '{')).toEqual(error('EOF while parsing an object at line 1 column 1'))
    expect(run('JSON.ARRAPPEND', 'missing', '$', '1')).toEqual(NO_KEY)
    expect(run('JSON.ARRAPPEND', 'doc', '$.a')).toEqual(ARITY('json.arrappend'))
    expect(run('JSON.ARRAPPEND', 'doc', '.o', '1')).toEqual(error("ERR Path '.o' does not exist or not an array"))
    expect(run('JSON.ARRINSERT', 'doc', '.o', '0', '1')).toEqual(error("ERR Path '$.o' does not exist or not an array"))
    expect(run('JSON.ARRAPPEND', 'doc', '.a', '4', '[5]')).toBe(5)
    expect(run('JSON.ARRAPPEND', 'doc', '$.*', '0')).toEqual([6, null, null, null, null, 1])
    expect(run('JSON.GET', 'doc', '$.a', '$.e')).toBe('{"$.a":[[1,2,3,4,[5],0]],"$.e":[[0]]}')
  })

  test('insert positions: 0 prepends, the length appends, negatives count from the end, beyond is an error', () => {
    const { run } = withDocument()
    expect(run('JSON.ARRINSERT', 'doc', '$.a', '0', '0')).toEqual([4])
    expect(run('JSON.ARRINSERT', 'doc', '$.a', '4', '9')).toEqual([5])
    expect(run('JSON.ARRINSERT', 'doc', '$.a', '-1', '8')).toEqual([6])
    expect(run('JSON.GET', 'doc', '$.a')).toBe('[[0,1,2,3,8,9]]')
    expect(run('JSON.ARRINSERT', 'doc', '$.a', '7', '1')).toEqual(error('ERR index out of bounds'))
    expect(run('JSON.ARRINSERT', 'doc', '$.a', '-7', '1')).toEqual(error('ERR index out of bounds'))
    expect(run('JSON.ARRINSERT', 'doc', '$.a', 'x', '1')).toEqual(error("Couldn't parse as integer"))
    expect(run('JSON.ARRINSERT', 'doc', '.a', '1', '"s"')).toBe(7)
  })
})

describe('JSON.ARRINDEX (json_arr_index, normalize_arr_indices)', () => {
  test('ranges: stop 0 is the end, negatives count from the end, out of range clamps', () => {
    const { run } = withDocument('{"a":[1,2,3,1,2,3]}')
    expect(run('JSON.ARRINDEX', 'doc', '$.a', '3')).toEqual([2])
    expect(run('JSON.ARRINDEX', 'doc', '$.a', '3', '3')).toEqual([5])
    expect(run('JSON.ARRINDEX', 'doc', '$.a', '3', '3', '-1')).toEqual([-1])
    expect(run('JSON.ARRINDEX', 'doc', '$.a', '1', '-3')).toEqual([3])
    expect(run('JSON.ARRINDEX', 'doc', '$.a', '1', '99')).toEqual([-1])
    expect(run('JSON.ARRINDEX', 'doc', '$.a', '3', '4', '2')).toEqual([-1])
    expect(run('JSON.ARRINDEX', 'doc', '$.a', '"3"')).toEqual([-1])
    expect(run('JSON.ARRINDEX', 'doc', '.a', '2')).toBe(1)
  })

  test('containers compare by value; errors and nils', () => {
    const { run } = withDocument('{"a":[[1],{"x":{"y":1}}],"n":1}')
    expect(run('JSON.ARRINDEX', 'doc', '$.a', '{"x":{"y":1}}')).toEqual([1])
    expect(run('JSON.ARRINDEX', 'doc', '$.*', '[1]')).toEqual([0, null])
    expect(run('JSON.ARRINDEX', 'doc', '.n', '1')).toEqual(error('WRONGTYPE wrong type of path value - expected array but found integer'))
    expect(run('JSON.ARRINDEX', 'doc', '.zz', '1')).toEqual(error("ERR Path '$.zz' does not exist"))
    expect(run('JSON.ARRINDEX', 'missing', '.zz', '1')).toEqual(error("ERR Path '.zz' does not exist"))
    expect(run('JSON.ARRINDEX', 'doc', '$.a', '1', 'x')).toEqual(error("Couldn't parse as integer"))
    expect(run('JSON.ARRINDEX', 'doc', '$.a', '1', '0', '0', '0')).toEqual(ARITY('json.arrindex'))
    expect(run('JSON.ARRINDEX', 'doc', '$.a', 'x')).toEqual(error('ERR expected value at line 1 column 1'))
  })
})

describe('JSON.ARRPOP (json_arr_pop)', () => {
  test('the element as JSON; default last; indexes clamp; nil for empty arrays and non-arrays', () => {
    const { run } = withDocument('{"a":[1,"two",{"3":[3]}],"e":[],"n":1}')
    expect(run('JSON.ARRPOP', 'doc', '$.a')).toEqual(['{"3":[3]}'])
    expect(run('JSON.ARRPOP', 'doc', '$.a', '99')).toEqual(['"two"'])
    expect(run('JSON.ARRPOP', 'doc', '$.*', '-99')).toEqual(['1', null, null])
    expect(run('JSON.ARRPOP', 'doc', '.e')).toBe(null)
    expect(run('JSON.ARRPOP', 'doc', '.n')).toEqual(error("ERR Path '$.n' does not exist or not an array"))
    expect(run('JSON.ARRPOP', 'missing')).toEqual(NO_KEY)
  })

  test('without a path the root array pops its last element; an unreadable index means -1', () => {
    const { run } = withDocument('[1,2,3]')
    expect(run('JSON.ARRPOP', 'doc')).toBe('3')
    expect(run('JSON.ARRPOP', 'doc', '.', 'x')).toBe('2')
    expect(run('JSON.ARRPOP', 'doc', '$', '0', 'extra')).toEqual(['1'])
    expect(run('JSON.ARRPOP', 'doc', 'FORMAT', 'EXPAND')).toEqual(error('ERR FORMAT argument is not supported on RESP2'))
  })
})

describe('JSON.ARRTRIM (json_arr_trim)', () => {
  test.each([
    ['1', '3', '[1,2,3]'],
    ['0', '-1', '[0,1,2,3,4]'],
    ['-2', '99', '[3,4]'],
    ['3', '1', '[]'],
    ['5', '9', '[]'],
    ['-99', '0', '[0]'],
  ])('[0,1,2,3,4] trimmed to %s..%s is %s', (start, stop, expected) => {
    const { run } = withDocument('[0,1,2,3,4]')
    expect(run('JSON.ARRTRIM', 'doc', '$', start, stop)).toEqual([JSON.parse(expected).length])
    expect(run('JSON.GET', 'doc')).toBe(expected)
  })

  test('legacy replies and errors', () => {
    const { run } = withDocument()
    expect(run('JSON.ARRTRIM', 'doc', '.a', '0', '0')).toBe(1)
    expect(run('JSON.ARRTRIM', 'doc', '.o', '0', '0')).toEqual(error("ERR Path '$.o' does not exist or not an array"))
    expect(run('JSON.ARRTRIM', 'doc', '$.o', '0', '0')).toEqual([null])
    expect(run('JSON.ARRTRIM', 'doc', '$.a', 'x', '0')).toEqual(error("Couldn't parse as integer"))
  })
})

describe('JSON.ARRLEN / OBJKEYS / OBJLEN / TYPE / RESP with legacy paths and missing keys', () => {
  test('JSON.ARRLEN', () => {
    const { run } = withDocument()
    expect(run('JSON.ARRLEN', 'doc', '.a')).toBe(3)
    expect(run('JSON.ARRLEN', 'doc', '.o')).toEqual(error("ERR Path '.o' does not exist or not an array"))
    expect(run('JSON.ARRLEN', 'missing')).toBe(null)
    expect(run('JSON.ARRLEN', 'missing', '$')).toEqual(NO_KEY)
  })

  test('JSON.OBJKEYS', () => {
    const { run } = withDocument()
    expect(run('JSON.OBJKEYS', 'doc')).toEqual(['a', 'o', 's', 'n', 'b', 'e'])
    expect(run('JSON.OBJKEYS', 'doc', '.zz')).toBe(null)
    expect(run('JSON.OBJKEYS', 'doc', '.a')).toEqual(error("ERR Path '$.a' does not exist or not an object"))
    expect(run('JSON.OBJKEYS', 'missing')).toBe(null)
    expect(run('JSON.OBJKEYS', 'missing', '$')).toEqual(NO_KEY)
  })

  test('JSON.OBJLEN', () => {
    const { run } = withDocument()
    expect(run('JSON.OBJLEN', 'doc')).toBe(6)
    expect(run('JSON.OBJLEN', 'doc', '.zz')).toBe(null)
    expect(run('JSON.OBJLEN', 'doc', '.a')).toEqual(error('WRONGTYPE wrong type of path value - expected object but found array'))
    expect(run('JSON.OBJLEN', 'missing')).toBe(null)
    expect(run('JSON.OBJLEN', 'missing', '$')).toEqual(error("ERR Path '$' does not exist or not an object"))
  })

  test('JSON.TYPE', () => {
    const { run } = withDocument('{"a":1,"f":1.5,"s":"","b":false,"z":null,"l":[],"o":{}}')
    expect(run('JSON.TYPE', 'doc')).toBe('object')
    expect(run('JSON.TYPE', 'doc', '$.*')).toEqual(['integer', 'number', 'string', 'boolean', 'null', 'array', 'object'])
    expect(run('JSON.TYPE', 'doc', '.zz')).toBe(null)
    expect(run('JSON.TYPE', 'doc', '.[')).toBe(null)
    expect(run('JSON.TYPE', 'doc', '$[')).toEqual(
      error('Error occurred on position 2, "$[ <<<<----", expected one of the following: \'<string>[,<string>,...]\', \'<number>\', [\'start:end:steps\'], \'*\'.'),
    )
    expect(run('JSON.TYPE', 'missing', '$')).toBe(null)
  })

  test('JSON.RESP', () => {
    const { run } = withDocument('{"a":[1,null,false,2.5],"s":"x"}')
    expect(run('JSON.RESP', 'doc', '$.a')).toEqual([['[', 1, null, 'false', '2.5']])
    expect(run('JSON.RESP', 'doc', '.s')).toBe('x')
    expect(run('JSON.RESP', 'doc', '.zz')).toEqual(error("ERR Path '$.zz' does not exist"))
    expect(run('JSON.RESP', 'missing')).toBe(null)
  })
})

describe('JSON.MGET (json_mget)', () => {
  test('per key: nil for missing keys, other types, unmatched legacy paths and bad paths', () => {
    const { run } = withDocument()
    run('SET', 'str', 'x')
    run('JSON.SET', 'doc2', '$', '{"n":"five"}')
    expect(run('JSON.MGET', 'doc', 'missing', 'str', 'doc2', '$.n')).toEqual(['[5]', null, null, '["five"]'])
    expect(run('JSON.MGET', 'doc', 'doc2', '.a')).toEqual(['[1,2,3]', null])
    expect(run('JSON.MGET', 'doc', 'doc2', '$.a')).toEqual(['[[1,2,3]]', '[]'])
    expect(run('JSON.MGET', 'doc', 'doc2', '$[')).toEqual([null, null])
    expect(run('JSON.MGET', 'doc')).toEqual(ARITY('json.mget'))
  })
})
