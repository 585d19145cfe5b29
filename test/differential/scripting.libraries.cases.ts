/**
 * Differential cases of the Lua libraries Redis 7.0 gives scripts: cjson, cmsgpack, struct, bit,
 * and the standard string, table and math functions as they behave inside Redis's Lua.
 */
import type { DiffCase } from './harness.js'
import { ev } from './scripting.cases.js'

export const libraryCases: DiffCase[] = [
  {
    name: 'cjson.encode: arrays, objects, empty tables, holes, numbers and escaping',
    commands: [
      ev('return cjson.encode({1, 2, 3})'), ev('return cjson.encode({a = 1})'), ev('return cjson.encode({})'), ev('return cjson.encode({1, nil, 3})'),
      ev('return cjson.encode(0.1)'), ev('return cjson.encode(1e300)'), ev('return cjson.encode(3)'), ev('return cjson.encode(-0.5)'), ev('return cjson.encode(123456789012345)'),
      ev('return cjson.encode(2^53)'), ev('return cjson.encode(1/3)'), ev("return cjson.encode('a\"b\\\\c\\n/\\t\\1')"), ev("return cjson.encode('\\200\\255')"),
      ev('return cjson.encode(true)'), ev('return cjson.encode(cjson.null)'), ev('return cjson.encode({{}, {{}}})'), ev("return cjson.encode({a = {b = {1, 'x'}}})"),
      ev('return cjson.encode(1/0)'), ev('return cjson.encode(0/0)'), ev('return cjson.encode(function() end)'), ev('return cjson.encode({[1] = 1, [3] = 3})'),
      ev('local t = {} t[1] = t return cjson.encode(t)'), ev("return cjson.encode({[true] = 1})"),
    ],
  },
  {
    name: 'cjson.decode: values, nesting, null, numbers and errors',
    commands: [
      ev("return cjson.decode('[1,2,3.5]')"), ev("return cjson.decode('{\"a\":[1,{\"b\":null}]}').a[2].b == cjson.null and 'null' or 'x'"), ev("return cjson.decode('\"\\\\u00e9\\\\n\"')"),
      ev("return cjson.decode('bad')"), ev("return cjson.decode('[1,2')"), ev("return cjson.decode('{\"a\":1}').a"), ev("return cjson.decode('123456789012345678')"),
      ev("return tostring(cjson.decode('1e2'))"), ev("return cjson.decode('true')"), ev("return cjson.decode('[]')"), ev("return type(cjson.decode('{}'))"), ev('return cjson.decode()'),
      ev("return cjson.encode(cjson.decode('{\"x\":[true,false,null,\"s\",1.25]}'))"),
    ],
  },
  {
    name: 'cjson nests up to 1000 levels both ways',
    commands: [
      ev("return type(cjson.decode(string.rep('[', 1000) .. string.rep(']', 1000)))"), ev("return cjson.decode(string.rep('[', 1001) .. string.rep(']', 1001))"),
      ev('local t = {} local c = t for i = 1, 999 do c[1] = {} c = c[1] end return #cjson.encode(t)'), ev('local t = {} local c = t for i = 1, 1500 do c[1] = {} c = c[1] end return cjson.encode(t)'),
    ],
  },
  {
    name: 'cmsgpack.pack and cmsgpack.unpack round trips and bytes',
    commands: [
      ev('return cmsgpack.pack({1, 2, 3})'), ev("return cmsgpack.pack({a = 1})"), ev('return cmsgpack.pack(1.5)'), ev('return cmsgpack.pack(-1)'), ev('return cmsgpack.pack(2^40)'), ev("return cmsgpack.pack('x')"),
      ev('return cmsgpack.pack(true, false, nil)'), ev("return cmsgpack.unpack(cmsgpack.pack({1, 'a', {x = 1}}))"), ev("return {cmsgpack.unpack(cmsgpack.pack(1, 2, 'three'))}"),
      ev("return cmsgpack.unpack('\\147\\1\\2\\3')"), ev("return cmsgpack.unpack('\\193')"), ev('return cmsgpack.unpack()'), ev("return cmsgpack.pack(string.rep('a', 300))"),
    ],
  },
  {
    name: 'struct.pack, struct.unpack and struct.size',
    commands: [
      ev("return struct.pack('>I2', 258)"), ev("return {struct.unpack('>I2', '\\1\\2')}"), ev("return struct.pack('<i4', -2)"), ev("return {struct.unpack('<i4', struct.pack('<i4', -2))}"),
      ev("return struct.pack('b', 65)"), ev("return struct.size('>I4i2')"), ev("return struct.pack('s', 'abc')"), ev("return {struct.unpack('s', 'abc\\0def')}"), ev("return struct.pack('x')"),
      ev("return struct.pack('>d', 1.5)"), ev("return struct.pack('z')"), ev("return {struct.unpack('>I2', '\\1')}"),
    ],
  },
  {
    name: 'bit: band, bor, bxor, shifts, tohex, tobit',
    commands: [
      ev('return {bit.band(12, 10), bit.bor(12, 10), bit.bxor(12, 10), bit.bnot(0), bit.lshift(1, 40), bit.rshift(-1, 28), bit.arshift(-256, 4), bit.rol(1, 33), bit.ror(1, 1)}'),
      ev('return {bit.tohex(255), bit.tohex(-1), bit.tohex(255, 4), bit.tohex(255, -4)}'), ev('return {bit.tobit(2^32 + 1), bit.bswap(1)}'), ev("return bit.band('x')"),
    ],
  },
  {
    name: 'string, table and math functions inside Redis Lua',
    commands: [
      ev("return string.format('%d %s %5.2f %q', 3, 'x', 3.14159, 'a\\nb')"), ev("return {string.byte('AB', 1, -1)}"), ev("return string.rep('ab', 3, ',')"), ev("return {string.find('hello world', 'o w')}"),
      ev("return string.gsub('hello', 'l', 'L')"), ev("return {string.match('key:42', '(%a+):(%d+)')}"), ev("return string.upper('mixed Case')"), ev("return string.format('%.14g', 0.1)"),
      ev("local t = {3, 1, 2} table.sort(t) return t"), ev("return table.concat({'a', 'b', 'c'}, '-')"), ev("local t = {1, 2} table.insert(t, 3) table.remove(t, 1) return t"),
      ev('return {math.floor(3.7), math.ceil(3.2), math.max(1, 5, 3), math.abs(-4), math.fmod(7, 3), math.huge > 0}'), ev('return math.sqrt(16)'), ev("return tonumber('0x10')"), ev("return tonumber('  12  ')"),
      ev('return #KEYS'), ev('return select(\'#\', 1, 2, 3)'), ev('return {unpack({1, 2, 3})}'), ev('return math.pi * 1000'),
    ],
  },
]
