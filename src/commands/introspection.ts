/**
 * Replies of the introspection commands `COMMAND INFO` and `COMMAND DOCS`, built from the
 * generated data so that an executor can answer them byte for byte as the server the table
 * came from (RESP2: maps flattened to arrays; flags and categories as simple strings, everything
 * else textual as bulk strings).
 *
 * Order: Redis lists commands and subcommands in the order of a randomly seeded hash table,
 * which differs between server runs; these replies list them sorted by name. Everything else
 * (entry layout, map key order, flag and category order) is as Redis writes it.
 *
 */

import { Status, type Bytes, type Reply } from '../reply.js'
import { COMMAND_DOCS } from './docs.js'
import type { CommandInfo, KeySpec } from './lookup.js'
import type { ArgumentDocs, CommandDocs } from './types.js'

const encoder = new TextEncoder()
const bulks = new Map<string, Bytes>()
const statuses = new Map<string, Status>()

function bulk(text: string): Bytes {
  let bytes = bulks.get(text)
  if (!bytes) {
    bytes = encoder.encode(text)
    bulks.set(text, bytes)
  }
  return bytes
}

function status(text: string): Status {
  let value = statuses.get(text)
  if (!value) {
    value = new Status(text)
    statuses.set(text, value)
  }
  return value
}

function keySpecReply(spec: KeySpec): Reply {
  const out: Reply[] = []
  if (spec.notes !== undefined) out.push(bulk('notes'), bulk(spec.notes))
  out.push(bulk('flags'), [...spec.flags].map(status))
  const begin = spec.beginSearch
  const beginSpec: Reply[] =
    begin.type === 'index'
      ? [bulk('index'), begin.index]
      : begin.type === 'keyword'
        ? [bulk('keyword'), bulk(begin.keyword), bulk('startfrom'), begin.startFrom]
        : []
  out.push(bulk('begin_search'), [bulk('type'), bulk(begin.type), bulk('spec'), beginSpec])
  const find = spec.findKeys
  const findSpec: Reply[] =
    find.type === 'range'
      ? [bulk('lastkey'), find.lastKey, bulk('keystep'), find.keyStep, bulk('limit'), find.limit]
      : find.type === 'keynum'
        ? [bulk('keynumidx'), find.keyNumIdx, bulk('firstkey'), find.firstKey, bulk('keystep'), find.keyStep]
        : []
  out.push(bulk('find_keys'), [bulk('type'), bulk(find.type), bulk('spec'), findSpec])
  return out
}

const infoReplies = new Map<CommandInfo, Reply>()

/**
 * One entry of the `COMMAND INFO` (and `COMMAND`) reply: name, arity, flags, first key, last
 * key, step, ACL categories, tips, key specs, subcommands (each an entry of the same shape).
 * The reply of `COMMAND INFO a b` is the array of the entries (null for unknown names).
 * @public
 */
export function commandInfoReply(info: CommandInfo): Reply {
  let reply = infoReplies.get(info)
  if (!reply) {
    reply = [
      bulk(info.name),
      info.arity,
      [...info.flags].map(status),
      info.firstKey,
      info.lastKey,
      info.step,
      [...info.categories].map(status),
      info.tips.map(bulk),
      info.keySpecs.map(keySpecReply),
      info.subcommands ? [...info.subcommands.values()].map(commandInfoReply) : [],
    ]
    infoReplies.set(info, reply)
  }
  return reply
}

/**
 * The `COMMAND DOCS` data of a command or subcommand (subcommands are found under their
 * container), `undefined` if the table has none.
 * @public
 */
export function commandDocs(info: CommandInfo): CommandDocs | undefined {
  if (info.parent) return COMMAND_DOCS[info.parent.name]?.subcommands?.[info.name]
  return COMMAND_DOCS[info.name]
}

function argumentReply(arg: ArgumentDocs): Reply {
  const out: Reply[] = [bulk('name'), bulk(arg.name), bulk('type'), bulk(arg.type)]
  if (arg.display_text !== undefined) out.push(bulk('display_text'), bulk(arg.display_text))
  if (arg.key_spec_index !== undefined) out.push(bulk('key_spec_index'), arg.key_spec_index)
  if (arg.token !== undefined) out.push(bulk('token'), bulk(arg.token))
  if (arg.summary !== undefined) out.push(bulk('summary'), bulk(arg.summary))
  if (arg.since !== undefined) out.push(bulk('since'), bulk(arg.since))
  if (arg.flags !== undefined) out.push(bulk('flags'), arg.flags.map(status))
  if (arg.deprecated_since !== undefined) out.push(bulk('deprecated_since'), bulk(arg.deprecated_since))
  if (arg.arguments !== undefined) out.push(bulk('arguments'), arg.arguments.map(argumentReply))
  return out
}

function docsReply(docs: CommandDocs): Reply {
  const out: Reply[] = []
  const text = (key: string, value: string | undefined): void => {
    if (value !== undefined) out.push(bulk(key), bulk(value))
  }
  text('summary', docs.summary)
  text('since', docs.since)
  text('group', docs.group)
  text('complexity', docs.complexity)
  text('module', docs.module)
  if (docs.doc_flags) out.push(bulk('doc_flags'), docs.doc_flags.map(status))
  text('deprecated_since', docs.deprecated_since)
  text('replaced_by', docs.replaced_by)
  if (docs.history) out.push(bulk('history'), docs.history.map(([version, what]) => [bulk(version), bulk(what)]))
  if (docs.arguments) out.push(bulk('arguments'), docs.arguments.map(argumentReply))
  if (docs.subcommands) {
    const subs: Reply[] = []
    for (const [name, sub] of Object.entries(docs.subcommands)) subs.push(bulk(name), docsReply(sub))
    out.push(bulk('subcommands'), subs)
  }
  return out
}

const docsReplies = new Map<CommandInfo, Reply>()

/**
 * The docs map of one command in the `COMMAND DOCS` reply (flattened key/value array). The reply
 * of `COMMAND DOCS a b` is `[name_a, docs_a, name_b, docs_b]` (bulk full names; unknown names
 * are left out). `undefined` if the table has no docs for the command.
 * @public
 */
export function commandDocsReply(info: CommandInfo): Reply | undefined {
  let reply = docsReplies.get(info)
  if (!reply) {
    const docs = commandDocs(info)
    if (!docs) return undefined
    reply = docsReply(docs)
    docsReplies.set(info, reply)
  }
  return reply
}
