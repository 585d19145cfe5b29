import { describe, expect, test } from 'vitest'
import { PATH_DOCS, engine, error } from './helpers.js'

/**
 * JSONPath and legacy paths: the examples of the JSONPath page (redis.io …/json/path/), then
 * edge cases of our own, each checked against RedisJSON 2.x's `json_path` sources (grammar
 * `grammer.pest`, calculator `json_path.rs`).
 */

const BIKES = {
  inventory: {
    mountain_bikes: [
      {
        id: 'bike:1',
        model: 'Phoebe',
        description:
          "This is a mid-travel trail slayer that is a fantastic daily driver or one bike quiver. The Shimano Claris 8-speed groupset gives plenty of gear range to tackle hills and there's room for mudguards and a rack too. This is the bike for the rider who wants trail manners with low fuss ownership.",
        price: 1920,
        specs: { material: 'carbon', weight: 13.1 },
        colors: ['black', 'silver'],
      },
      {
        id: 'bike:2',
        model: 'Quaoar',
        description:
          "Redesigned for the 2020 model year, this bike impressed our testers and is the best all-around trail bike we've ever tested. The Shimano gear system effectively does away with an external cassette, so is super low maintenance in terms of wear and tear. All in all it's an impressive package for the price, making it very competitive.",
        price: 2072,
        specs: { material: 'aluminium', weight: 7.9 },
        colors: ['black', 'white'],
      },
      {
        id: 'bike:3',
        model: 'Weywot',
        description:
          "This bike gives kids aged six years and older a durable and uberlight mountain bike for their first experience on tracks and easy cruising through forests and fields. A set of powerful Shimano hydraulic disc brakes provide ample stopping ability. If you're after a budget option, this is one of the best bikes you could get.",
        price: 3264,
        specs: { material: 'alloy', weight: 13.8 },
      },
    ],
    commuter_bikes: [
      {
        id: 'bike:4',
        model: 'Salacia',
        description:
          "This bike is a great option for anyone who just wants a bike to get about on With a slick-shifting Claris gears from Shimano's, this is a bike which doesn't break the bank and delivers craved performance. It's for the rider who wants both efficiency and capability.",
        price: 1475,
        specs: { material: 'aluminium', weight: 16.6 },
        colors: ['black', 'silver'],
      },
      {
        id: 'bike:5',
        model: 'Mimas',
        description:
          'A real joy to ride, this bike got very high scores in last years Bike of the year report. The carefully crafted 50-34 tooth chainset and 11-32 tooth cassette give an easy-on-the-legs bottom gear for climbing, and the high-quality Vittoria Zaffiro tires give balance and grip.It includes a low-step frame , our memory foam seat, bump-resistant shocks and conveniently placed thumb throttle. Put it all together and you get a bike that helps redefine what can be done for this price.',
        price: 3941,
        specs: { material: 'alloy', weight: 11.6 },
      },
    ],
  },
}

function bikes() {
  const db = engine()
  expect(db.run('JSON.SET', 'bikes:inventory', '$', JSON.stringify(BIKES, null, 1))).toBe('OK')
  return db
}

describe(`JSONPath page examples (${PATH_DOCS})`, () => {
  test('wildcard: all items of the inventory', () => {
    const { run } = bikes()
    expect(run('JSON.GET', 'bikes:inventory', '$.inventory.*')).toBe(
      JSON.stringify([BIKES.inventory.mountain_bikes, BIKES.inventory.commuter_bikes]),
    )
  })

  test('three paths to the mountain bike models', () => {
    const { run } = bikes()
    for (const path of ['$.inventory.mountain_bikes[*].model', '$.inventory["mountain_bikes"][*].model', '$..mountain_bikes[*].model']) {
      expect(run('JSON.GET', 'bikes:inventory', path)).toBe('["Phoebe","Quaoar","Weywot"]')
    }
  })

  test('recursive descent: every model', () => {
    const { run } = bikes()
    expect(run('JSON.GET', 'bikes:inventory', '$..model')).toBe('["Phoebe","Quaoar","Weywot","Salacia","Mimas"]')
  })

  test('slice: the first two mountain bikes', () => {
    const { run } = bikes()
    expect(run('JSON.GET', 'bikes:inventory', '$..mountain_bikes[0:2].model')).toBe('["Phoebe","Quaoar"]')
  })

  test('filter with && (price < 3000 and weight < 10)', () => {
    const { run } = bikes()
    expect(run('JSON.GET', 'bikes:inventory', '$..mountain_bikes[?(@.price < 3000 && @.specs.weight < 10)]')).toBe(
      JSON.stringify([BIKES.inventory.mountain_bikes[1]]),
    )
  })

  test('filter with == on a nested member', () => {
    const { run } = bikes()
    expect(run('JSON.GET', 'bikes:inventory', '$..[?(@.specs.material == "alloy")].model')).toBe('["Weywot","Mimas"]')
  })

  test('regex filter, case-insensitive through (?i)', () => {
    const { run } = bikes()
    expect(run('JSON.GET', 'bikes:inventory', '$..[?(@.specs.material =~ "(?i)al")].model')).toBe('["Quaoar","Weywot","Salacia","Mimas"]')
  })

  test('regex filter whose pattern is a member of the document', () => {
    const { run } = bikes()
    for (let i = 0; i < 3; i++) expect(run('JSON.SET', 'bikes:inventory', `$.inventory.mountain_bikes[${i}].regex_pat`, '"(?i)al"')).toBe('OK')
    expect(run('JSON.GET', 'bikes:inventory', '$.inventory.mountain_bikes[?(@.specs.material =~ @.regex_pat)].model')).toBe('["Quaoar","Weywot"]')
  })

  test('JSON.NUMINCRBY on every price', () => {
    const { run } = bikes()
    expect(run('JSON.GET', 'bikes:inventory', '$..price')).toBe('[1920,2072,3264,1475,3941]')
    expect(run('JSON.NUMINCRBY', 'bikes:inventory', '$..price', '-100')).toBe('[1820,1972,3164,1375,3841]')
    expect(run('JSON.NUMINCRBY', 'bikes:inventory', '$..price', '100')).toBe('[1920,2072,3264,1475,3941]')
  })

  test('JSON.SET through a filter', () => {
    const { run } = bikes()
    expect(run('JSON.SET', 'bikes:inventory', '$.inventory.*[?(@.price<2000)].price', '1500')).toBe('OK')
    expect(run('JSON.GET', 'bikes:inventory', '$..price')).toBe('[1500,2072,3264,1500,3941]')
  })

  test('JSON.ARRAPPEND through a filter', () => {
    const { run } = bikes()
    run('JSON.SET', 'bikes:inventory', '$.inventory.*[?(@.price<2000)].price', '1500')
    expect(run('JSON.ARRAPPEND', 'bikes:inventory', '$.inventory.*[?(@.price<2000)].colors', '"pink"')).toEqual([3, 3])
    expect(run('JSON.GET', 'bikes:inventory', '$..[*].colors')).toBe('[["black","silver","pink"],["black","white"],["black","silver","pink"]]')
  })

  test('negation `!` (RedisJSON 8 filter syntax, also accepted here)', () => {
    const { run } = engine()
    run('JSON.SET', 'doc', '$', '[{"a":1,"b":1},{"b":2},{"a":1},{"c":3}]')
    expect(run('JSON.GET', 'doc', '$[?!@.a]')).toBe('[{"b":2},{"c":3}]')
    expect(run('JSON.GET', 'doc', '$[?!(@.a==1)]')).toBe('[{"b":2},{"c":3}]')
    expect(run('JSON.GET', 'doc', '$[?!@.a && @.b]')).toBe('[{"b":2}]')
  })

  test('legacy paths to the same member', () => {
    const { run } = engine()
    run('JSON.SET', 'store', '$', '{"inventory":{"headphones":[1,2]}}')
    for (const path of ['.inventory.headphones', 'inventory["headphones"]', `['inventory']["headphones"]`]) {
      expect(run('JSON.GET', 'store', path)).toBe('[1,2]')
    }
  })
})

describe('selection (edge cases of our own)', () => {
  const DOC = '{"a":[10,11,12,13,14,15],"o":{"x":1,"y":{"x":2},"z":[{"x":3}]},"s":"str"}'

  test.each([
    ['$.a[0]', '[10]'],
    ['$.a[-1]', '[15]'],
    ['$.a[6]', '[]'],
    // RedisJSON clamps a negative index before the start to the first element.
    ['$.a[-10]', '[10]'],
    ['$.a[0,2,-1]', '[10,12,15]'],
    ['$.a[1:3]', '[11,12]'],
    ['$.a[:2]', '[10,11]'],
    ['$.a[4:]', '[14,15]'],
    ['$.a[-2:]', '[14,15]'],
    ['$.a[::2]', '[10,12,14]'],
    ['$.a[1:5:3]', '[11,14]'],
    ['$.a[:]', '[10,11,12,13,14,15]'],
    ['$.a[3:1]', '[]'],
    ['$.a[*]', '[10,11,12,13,14,15]'],
    ['$.o.*', '[1,{"x":2},[{"x":3}]]'],
    ['$["o"]["x"]', '[1]'],
    [`$['o','s']`, '[{"x":1,"y":{"x":2},"z":[{"x":3}]},"str"]'],
    ['$..x', '[1,2,3]'],
    ['$.o..x', '[1,2,3]'],
    ['$..[0]', '[10,{"x":3}]'],
    ['$.s[0]', '[]'],
    ['$.s.*', '[]'],
    ['$.missing', '[]'],
    ['$.a [ 0 ]', '[10]'],
  ])('JSON.GET doc %s is %s', (path, expected) => {
    const { run } = engine()
    run('JSON.SET', 'doc', '$', DOC)
    expect(run('JSON.GET', 'doc', path)).toBe(expected)
  })

  test('`..` visits a node before its children, children in document order', () => {
    const { run } = engine()
    run('JSON.SET', 'doc', '$', '{"a":{"b":{"a":1},"a":2},"c":[{"a":3}]}')
    expect(run('JSON.GET', 'doc', '$..a')).toBe('[{"b":{"a":1},"a":2},2,1,3]')
  })

  test('a member named like an index or with symbols needs brackets', () => {
    const { run } = engine()
    run('JSON.SET', 'doc', '$', '{"0":"zero","a b":1,"$x":2,"a-b":3,"q\\"uote":4}')
    expect(run('JSON.GET', 'doc', '$["0"]')).toBe('["zero"]')
    expect(run('JSON.GET', 'doc', '$.0')).toBe('["zero"]')
    expect(run('JSON.GET', 'doc', '$["a b"]')).toBe('[1]')
    expect(run('JSON.GET', 'doc', '$.a-b')).toBe('[3]')
    expect(run('JSON.GET', 'doc', `$['q"uote']`)).toBe('[4]')
    expect(run('JSON.GET', 'doc', '$["q\\"uote"]')).toBe('[4]')
    // `$x` is a legacy path (JSONPath starts `$`, `$.` or `$[`): the member `$x`.
    expect(run('JSON.GET', 'doc', '$x')).toBe('2')
  })
})

describe('filters (edge cases of our own)', () => {
  const ITEMS = '[{"n":1,"s":"b","t":true},{"n":2.5,"s":"a"},{"n":"3","s":"c","t":false},{"s":null},{"n":2,"k":[1,2]},{"n":2.0}]'

  test.each([
    ['$[?(@.n > 1)]', '[{"n":2.5,"s":"a"},{"n":2,"k":[1,2]},{"n":2.0}]'],
    ['$[?(@.n == 2)]', '[{"n":2,"k":[1,2]},{"n":2.0}]'],
    ['$[?(@.n >= 2.5)]', '[{"n":2.5,"s":"a"}]'],
    // A string never compares with a number.
    ['$[?(@.n == "3")]', '[{"n":"3","s":"c","t":false}]'],
    ['$[?(@.s < "b")]', '[{"n":2.5,"s":"a"}]'],
    ['$[?(@.t == true)]', '[{"n":1,"s":"b","t":true}]'],
    ['$[?(@.t)]', '[{"n":1,"s":"b","t":true},{"n":"3","s":"c","t":false}]'],
    // `!=` is "not ==": members without `n` match.
    ['$[?(@.n != 2)]', '[{"n":1,"s":"b","t":true},{"n":2.5,"s":"a"},{"n":"3","s":"c","t":false},{"s":null}]'],
    ['$[?(@.s == null)]', '[{"s":null}]'],
    ['$[?(@.n == 1 || @.n == 2 && @.k)]', '[{"n":1,"s":"b","t":true},{"n":2,"k":[1,2]}]'],
    ['$[?((@.n == 1 || @.n == 2) && @.k)]', '[{"n":2,"k":[1,2]}]'],
    ['$[?(@.s =~ "^[ab]$")]', '[{"n":1,"s":"b","t":true},{"n":2.5,"s":"a"}]'],
    ['$[?(@.n =~ "3")]', '[{"n":"3","s":"c","t":false}]'],
    ['$[?(@.n =~ "(")]', '[]'],
    ['$[?(@.k[1] == 2)]', '[{"n":2,"k":[1,2]}]'],
    ['$[?(@.k[*] == 2)]', '[]'],
    ['$[?(@.n == $[0].n)]', '[{"n":1,"s":"b","t":true}]'],
    ['$[?@.n<2]', '[{"n":1,"s":"b","t":true}]'],
  ])('JSON.GET doc %s is %s', (path, expected) => {
    const { run } = engine()
    run('JSON.SET', 'doc', '$', ITEMS)
    expect(run('JSON.GET', 'doc', path)).toBe(expected)
  })

  test('a filter on an object tests its values; on a scalar, the scalar itself', () => {
    const { run } = engine()
    run('JSON.SET', 'doc', '$', '{"o":{"a":1,"b":5,"c":9},"n":7}')
    expect(run('JSON.GET', 'doc', '$.o[?(@ > 3)]')).toBe('[5,9]')
    expect(run('JSON.GET', 'doc', '$.n[?(@ > 3)]')).toBe('[7]')
    expect(run('JSON.SET', 'doc', '$.o[?(@ > 3)]', '0')).toBe('OK')
    expect(run('JSON.GET', 'doc', '$.o')).toBe('[{"a":1,"b":0,"c":0}]')
  })

  test('documents compared with == are compared structurally', () => {
    const { run } = engine()
    run('JSON.SET', 'doc', '$', '{"ref":{"x":[1,2]},"list":[{"v":{"x":[1,2]}},{"v":{"x":[2,1]}}]}')
    expect(run('JSON.GET', 'doc', '$.list[?(@.v == $.ref)]')).toBe('[{"v":{"x":[1,2]}}]')
  })

  test('regex matching works on characters, not bytes', () => {
    const { run } = engine()
    run('JSON.SET', 'doc', '$', '["é","ab","日本"]')
    expect(run('JSON.GET', 'doc', '$[?(@ =~ "^.$")]')).toBe('["é"]')
    expect(run('JSON.GET', 'doc', '$[?(@ =~ "^..$")]')).toBe('["ab","日本"]')
  })
})

describe('legacy paths (edge cases of our own)', () => {
  test('legacy forms and the JSONPath they stand for', () => {
    const { run } = engine()
    run('JSON.SET', 'doc', '.', '{"a":{"b":[1,{"c":true}]}}')
    expect(run('JSON.GET', 'doc', '.')).toBe('{"a":{"b":[1,{"c":true}]}}')
    expect(run('JSON.GET', 'doc', 'a.b')).toBe('[1,{"c":true}]')
    expect(run('JSON.GET', 'doc', '.a.b[1].c')).toBe('true')
    expect(run('JSON.GET', 'doc', '["a"]')).toBe('{"b":[1,{"c":true}]}')
    expect(run('JSON.GET', 'doc', '..c')).toBe('true')
    // A legacy path answers its first match only.
    expect(run('JSON.GET', 'doc', '.a.b[*]')).toBe('1')
  })

  test('a legacy path that matches nothing is an error naming the JSONPath', () => {
    const { run } = engine()
    run('JSON.SET', 'doc', '.', '{"a":1}')
    expect(run('JSON.GET', 'doc', '.b')).toEqual(error("ERR Path '$.b' does not exist"))
    expect(run('JSON.GET', 'doc', 'b')).toEqual(error("ERR Path '$.b' does not exist"))
    expect(run('JSON.GET', 'doc', '$.b')).toBe('[]')
  })

  test('several legacy paths answer values keyed by path; one missing fails the command', () => {
    const { run } = engine()
    run('JSON.SET', 'doc', '.', '{"a":1,"b":[2]}')
    expect(run('JSON.GET', 'doc', 'a', '.b', 'a')).toBe('{"a":1,".b":[2]}')
    expect(run('JSON.GET', 'doc', 'a', 'zz')).toEqual(error("ERR Path 'zz' does not exist"))
    // With one JSONPath among them, every path answers an array.
    expect(run('JSON.GET', 'doc', 'a', '$.zz')).toBe('{"a":[1],"$.zz":[]}')
    // A path that does not compile is left out of the object.
    expect(run('JSON.GET', 'doc', 'a', 'b[')).toBe('{"a":1}')
    expect(run('JSON.GET', 'doc', 'a', '$.[')).toBe('{"a":[1]}')
  })
})

describe('path compilation errors (RedisJSON QueryCompilationError, edge cases of our own)', () => {
  test.each([
    // The exact text of RedisJSON issue #948 (RedisJSON 2.4.6).
    ['$.a[$]', 'Error occurred on position 4, "$.a[ ---->>>> $]", expected one of the following: \'<string>[,<string>,...]\', \'<number>\', [\'start:end:steps\'], \'*\'.'],
    ['$.a[', 'Error occurred on position 4, "$.a[ <<<<----", expected one of the following: \'<string>[,<string>,...]\', \'<number>\', [\'start:end:steps\'], \'*\'.'],
    ['$.', 'Error occurred on position 2, "$. <<<<----", expected one of the following: <string>, \'*\'.'],
    // (RedisJSON 2.x lists no `null`: its grammar has no null literal.)
    ['$[?(@.a <)]', 'Error occurred on position 9, "$[?(@.a < ---->>>> )]", expected one of the following: decimal, from_current, from_root, boolean_true, boolean_false, null.'],
    ['$[0:1:0]', 'Error occurred on position 6, "$[0:1: ---->>>> 0]", expected one of the following: pos_number.'],
  ])('%s', (path, message) => {
    const { run } = engine()
    run('JSON.SET', 'doc', '$', '{"a":[1]}')
    expect(run('JSON.GET', 'doc', path)).toEqual(error(message))
  })

  test('a legacy path is reported as the JSONPath it became', () => {
    const { run } = engine()
    run('JSON.SET', 'doc', '$', '{"a":[1]}')
    expect(run('JSON.GET', 'doc', 'a[')).toEqual(
      error('Error occurred on position 4, "$.a[ <<<<----", expected one of the following: \'<string>[,<string>,...]\', \'<number>\', [\'start:end:steps\'], \'*\'.'),
    )
  })

  test('a missing key answers nil before the path is compiled', () => {
    const { run } = engine()
    expect(run('JSON.GET', 'nokey', '$...$$')).toBe(null)
  })
})
