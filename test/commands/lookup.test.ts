import { describe, expect, it } from 'vitest'
import {
  allCommands,
  arityError,
  checkArity,
  commandGetKeys,
  commandKeys,
  findCommand,
  findSubcommand,
  isBlocking,
  isDangerous,
  isReadOnly,
  isWrite,
  lookupError,
  resolveCommand,
  SERVER_VERSION,
  type CommandInfo,
} from '../../src/commands/lookup.js'
import { commandDocs, commandDocsReply, commandInfoReply } from '../../src/commands/introspection.js'
import { ReplyError } from '../../src/reply.js'

function info(name: string): CommandInfo {
  const found = findCommand(name)
  if (!found) throw new Error(`no command ${name}`)
  return found
}

const bytes = (text: string): Uint8Array => new TextEncoder().encode(text)

describe('table', () => {
  it('comes from a real server and has containers with subcommands', () => {
    expect(SERVER_VERSION).toMatch(/^\d+\.\d+\.\d+/)
    const list = [...allCommands()]
    expect(list.filter((c) => !c.parent).length).toBeGreaterThan(200)
    expect(list.filter((c) => c.parent).length).toBeGreaterThan(100)
    for (const c of list) {
      expect(c.name).toBe(c.name.toLowerCase())
      expect(c.group).not.toBe('')
      if (c.parent) expect(c.name.startsWith(`${c.parent.name}|`)).toBe(true)
    }
  })

  it('has the documented fields of GET', () => {
    const get = info('get')
    expect(get).toMatchObject({ name: 'get', arity: 2, firstKey: 1, lastKey: 1, step: 1, group: 'string', since: '1.0.0' })
    expect([...get.flags]).toEqual(['readonly', 'fast'])
    expect([...get.categories]).toEqual(['@read', '@string', '@fast'])
    expect(get.keySpecs).toHaveLength(1)
    expect(get.keySpecs[0].beginSearch).toEqual({ type: 'index', index: 1 })
    expect(get.keySpecs[0].findKeys).toEqual({ type: 'range', lastKey: 0, keyStep: 1, limit: 0 })
  })

  it('is immutable', () => {
    const get = info('get') as { arity: number }
    expect(() => {
      get.arity = 3
    }).toThrow()
  })
})

describe('arity rule', () => {
  it('positive arity is exact, negative is a minimum (name included)', () => {
    const get = info('get') // 2
    expect(checkArity(get, 2)).toBe(true)
    expect(checkArity(get, 1)).toBe(false)
    expect(checkArity(get, 3)).toBe(false)
    const set = info('set') // -3
    expect(set.arity).toBe(-3)
    expect(checkArity(set, 2)).toBe(false)
    expect(checkArity(set, 3)).toBe(true)
    expect(checkArity(set, 9)).toBe(true)
    const ping = info('ping') // -1
    expect(checkArity(ping, 1)).toBe(true)
    expect(checkArity(ping, 2)).toBe(true)
  })

  it('names the full command in the arity error', () => {
    expect(arityError(info('get')).message).toBe("ERR wrong number of arguments for 'get' command")
    expect(arityError(info('config|get')).message).toBe("ERR wrong number of arguments for 'config|get' command")
  })
})

describe('case-insensitive lookup', () => {
  it('finds lowercase, uppercase, mixed case and byte names', () => {
    const get = info('get')
    expect(findCommand('GET')).toBe(get)
    expect(findCommand('GeT')).toBe(get)
    expect(findCommand(bytes('gEt'))).toBe(get)
    expect(findCommand('json.get')).toBe(findCommand('JSON.GET'))
  })

  it('does not fold non-ASCII letters (Kelvin sign is not K)', () => {
    expect(findCommand('\u212Aeys')).toBeUndefined()
    expect(findCommand('keys')).toBeDefined()
  })

  it('misses unknown names', () => {
    expect(findCommand('nosuchcommand')).toBeUndefined()
    expect(findCommand('')).toBeUndefined()
  })
})

describe('subcommands', () => {
  it('names subcommands parent|sub', () => {
    for (const name of ['config|get', 'acl|setuser', 'object|encoding', 'xinfo|stream', 'xgroup|create', 'client|list', 'function|load', 'script|load', 'command|getkeys', 'pubsub|channels', 'memory|usage']) {
      const sub = info(name)
      expect(sub.parent?.subcommands?.get(name.split('|')[1])).toBe(sub)
    }
  })

  it('finds subcommands case-insensitively', () => {
    expect(findSubcommand('config', 'GET')).toBe(info('config|get'))
    expect(findSubcommand(info('CONFIG'), bytes('Get'))).toBe(info('config|get'))
    expect(findSubcommand('config', 'nope')).toBeUndefined()
    expect(findSubcommand('get', 'x')).toBeUndefined()
  })

  it('resolves a request to its subcommand the way Redis dispatches', () => {
    expect(resolveCommand(['CONFIG', 'GET', 'maxmemory'])).toBe(info('config|get'))
    expect(resolveCommand(['object', 'ENCODING', 'k'])).toBe(info('object|encoding'))
    expect(resolveCommand(['acl', 'resttoken', 'u', 'p'])).toBe(info('acl|resttoken'))
    expect(resolveCommand(['CONFIG'])).toBe(info('config')) // then fails the arity check
    expect(resolveCommand(['config', 'nope'])).toBeUndefined()
    expect(resolveCommand(['get', 'k'])).toBe(info('get'))
    expect(resolveCommand([])).toBeUndefined()
    // `parent|sub` is a name for COMMAND INFO and ACL rules, not something a request can send.
    expect(resolveCommand(['config|get', 'x'])).toBeUndefined()
  })

  it('builds the lookup errors as Redis words them', () => {
    expect(lookupError(['foo', 'a', 'b']).message).toBe("ERR unknown command 'foo', with args beginning with: 'a' 'b' ")
    expect(lookupError(['foo']).message).toBe("ERR unknown command 'foo', with args beginning with: ")
    expect(lookupError(['config', 'nope', 'x']).message).toBe("ERR unknown subcommand 'nope'. Try CONFIG HELP.")
    expect(lookupError(['foo', 'a\r\nb']).message).toBe("ERR unknown command 'foo', with args beginning with: 'a  b' ")
  })
})

describe('keys', () => {
  it('finds keys by index, keyword and keynum specs', () => {
    expect(commandKeys(['GET', 'k'])).toEqual([1])
    expect(commandKeys(['MSET', 'a', '1', 'b', '2'])).toEqual([1, 3])
    expect(commandKeys(['ZUNIONSTORE', 'd', '2', 'a', 'b', 'WEIGHTS', '1', '2'])).toEqual([1, 3, 4])
    expect(commandKeys(['EVAL', 's', '2', 'a', 'b', 'x'])).toEqual([3, 4])
    expect(commandKeys(['XREAD', 'COUNT', '1', 'STREAMS', 'a', 'b', '0', '0'])).toEqual([4, 5])
    expect(commandKeys(['SORT', 'a', 'BY', 'w*', 'STORE', 'b'])).toEqual([1, 5])
    expect(commandKeys(['OBJECT', 'ENCODING', 'k'])).toEqual([2])
    expect(commandKeys(['PING'])).toEqual([])
    expect(commandKeys(['nosuch', 'k'])).toEqual([])
  })

  it('finds keys of the overlay commands', () => {
    expect(commandKeys(['HEXPIRE', 'h', '10', 'FIELDS', '1', 'f'])).toEqual([1])
    expect(commandKeys(['JSON.MGET', 'a', 'b', '$'])).toEqual([1, 2])
    expect(commandKeys(['JSON.MSET', 'a', '$', '1', 'b', '$', '2'])).toEqual([1, 4])
    expect(commandKeys(['ACL', 'RESTTOKEN', 'u', 'p'])).toEqual([])
  })

  it('answers COMMAND GETKEYS errors with the texts Redis uses', () => {
    expect(commandGetKeys(['nosuch', 'k'])).toEqual(new ReplyError('ERR Invalid command specified'))
    expect(commandGetKeys(['PUBLISH', 'c', 'm'])).toEqual(new ReplyError('ERR The command has no key arguments'))
    expect(commandGetKeys(['GET'])).toEqual(new ReplyError('ERR Invalid number of arguments specified for command'))
    expect(commandGetKeys(['ZUNIONSTORE', 'd', '0', 'a'])).toEqual(new ReplyError('ERR Invalid arguments specified for command'))
    expect(commandGetKeys(['EVAL', 's', '0'])).toEqual([])
  })
})

describe('classifications (named examples)', () => {
  it('flags', () => {
    expect(isReadOnly(info('get'))).toBe(true)
    expect(isWrite(info('set'))).toBe(true)
    expect(isWrite(info('get'))).toBe(false)
    expect(isDangerous(info('flushall'))).toBe(true)
    expect(isDangerous(info('get'))).toBe(false)
    expect(isBlocking(info('blpop'))).toBe(true)
    expect(isBlocking(info('get'))).toBe(false)
  })

  it('treats XREAD / XREADGROUP as blocking only with BLOCK', () => {
    const xread = info('xread')
    expect(isBlocking(xread)).toBe(true)
    expect(isBlocking(xread, ['XREAD', 'COUNT', '1', 'STREAMS', 's', '0'])).toBe(false)
    expect(isBlocking(xread, ['XREAD', 'count', '1', 'block', '0', 'STREAMS', 's', '0'])).toBe(true)
    // A stream named "block" after STREAMS does not make it blocking.
    expect(isBlocking(xread, ['XREAD', 'STREAMS', 'block', '0'])).toBe(false)
    const group = info('xreadgroup')
    // GROUP takes two values, so a group called BLOCK is not the option.
    expect(isBlocking(group, ['XREADGROUP', 'GROUP', 'BLOCK', 'c', 'STREAMS', 's', '>'])).toBe(false)
    expect(isBlocking(group, ['XREADGROUP', 'GROUP', 'g', 'c', 'NOACK', 'BLOCK', '5', 'STREAMS', 's', '>'])).toBe(true)
  })
})

describe('overlay', () => {
  it('adds the hash field-expiry family, HGETDEL/HGETEX/HSETEX, XACKDEL/XDELEX', () => {
    for (const name of ['hexpire', 'hpexpire', 'hexpireat', 'hpexpireat', 'httl', 'hpttl', 'hexpiretime', 'hpexpiretime', 'hpersist', 'hgetdel', 'hgetex', 'hsetex', 'xackdel', 'xdelex']) {
      const c = info(name)
      expect(['hash', 'stream']).toContain(c.group)
      expect(c.keySpecs[0].beginSearch).toEqual({ type: 'index', index: 1 })
      expect(commandDocs(c)?.since).toMatch(/^(7\.4|8\.[02])\.0$/)
    }
    const hexpire = info('HEXPIRE')
    expect(hexpire.arity).toBe(-6)
    expect([...hexpire.categories]).toEqual(['@write', '@hash', '@fast'])
    expect(hexpire.since).toBe('7.4.0')
  })

  it('adds the RedisJSON commands as module commands', () => {
    const names = ['SET', 'GET', 'MGET', 'MSET', 'DEL', 'FORGET', 'TYPE', 'STRLEN', 'STRAPPEND', 'NUMINCRBY', 'NUMMULTBY', 'TOGGLE', 'CLEAR', 'ARRAPPEND', 'ARRINDEX', 'ARRINSERT', 'ARRLEN', 'ARRPOP', 'ARRTRIM', 'OBJKEYS', 'OBJLEN', 'MERGE', 'RESP']
    for (const name of names) {
      const c = info(`JSON.${name}`)
      expect(c.group).toBe('module')
      expect(c.flags.has('module')).toBe(true)
      expect(c.categories.has('@json')).toBe(true)
      expect(isReadOnly(c) !== isWrite(c)).toBe(true)
      expect(commandDocs(c)?.module).toBe('ReJSON')
    }
    expect([...info('json.set').flags]).toEqual(['write', 'denyoom', 'module'])
    expect([...info('json.get').categories]).toEqual(['@read', '@slow', '@json'])
  })

  it('adds ACL RESTTOKEN as an ACL subcommand', () => {
    const c = info('acl|resttoken')
    expect(c.arity).toBe(4)
    expect([...c.flags]).toEqual([...info('acl|setuser').flags])
    expect(checkArity(c, 4)).toBe(true)
    expect(checkArity(c, 3)).toBe(false)
    expect(commandDocs(info('acl'))?.subcommands?.['acl|resttoken']).toBeDefined()
  })
})

describe('introspection replies', () => {
  it('builds COMMAND INFO entries with simple-string flags and bulk names', () => {
    const reply = commandInfoReply(info('get')) as readonly unknown[]
    expect(reply).toHaveLength(10)
    expect(new TextDecoder().decode(reply[0] as Uint8Array)).toBe('get')
    expect(reply[1]).toBe(2)
    expect((reply[2] as { text: string }[]).map((s) => s.text)).toEqual(['readonly', 'fast'])
  })

  it('builds COMMAND DOCS maps for commands and subcommands', () => {
    expect(commandDocsReply(info('set'))).toBeDefined()
    expect(commandDocsReply(info('config|get'))).toBeDefined()
    expect(commandDocs(info('config|get'))?.group).toBe('server')
  })
})
