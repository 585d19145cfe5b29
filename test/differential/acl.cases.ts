/**
 * ACL sequences: rules, their descriptions, errors, and what a restricted user may run. Each
 * case starts from a server with only the `default` user (`on nopass ~* &* +@all`) and an empty
 * keyspace.
 *
 * `as` runs a command as another user (password `pw`), which both executors do through
 * `CallContext` (the socket executor authenticates a connection as that user).
 *
 * Relaxation `words`: Redis lists single-command rules (`+get +set`) in the order of its command
 * dictionary, which is random per server process; the engine lists them in table order. Such
 * bulk strings are compared as multisets of space-separated words.
 */
import type { DiffCase } from './harness.js'

export type AclRelaxation = 'words' | 'unordered'

export interface AclCase extends Omit<DiffCase, 'relax'> {
  readonly relax?: Readonly<Record<number, AclRelaxation>>
  /** The user (password `pw`) that runs the command at an index; the default user otherwise. */
  readonly as?: Readonly<Record<number, string>>
}

const list = ['ACL', 'LIST']
const getuser = (name: string) => ['ACL', 'GETUSER', name]

export const aclCases: readonly AclCase[] = [
  {
    name: 'a fresh server has only the default user, on and without a password, allowed everything',
    commands: [list, ['ACL', 'USERS'], getuser('default'), ['ACL', 'WHOAMI']],
  },
  {
    name: 'a user created without rules is off, has no channels and no commands',
    commands: [['ACL', 'SETUSER', 'u1'], list, getuser('u1')],
  },
  {
    name: 'passwords are stored as SHA-256 hex, in order, without duplicates; < removes one',
    commands: [['ACL', 'SETUSER', 'u', 'on', '>a', '>b', '>a', '<b'], getuser('u'), ['ACL', 'SETUSER', 'u', '>c'], list],
  },
  {
    name: 'nopass drops the passwords, a new password clears nopass, resetpass clears both',
    commands: [
      ['ACL', 'SETUSER', 'u', 'on', '>p', 'nopass'],
      list,
      ['ACL', 'SETUSER', 'u', '>q'],
      list,
      ['ACL', 'SETUSER', 'u', 'resetpass'],
      list,
    ],
  },
  {
    name: '#hash adds a hash, !hash removes it; malformed hashes and unknown passwords are refused',
    commands: [
      ['ACL', 'SETUSER', 'u', '#' + 'a'.repeat(64)],
      ['ACL', 'SETUSER', 'u', '#ABC'],
      ['ACL', 'SETUSER', 'u', '!' + 'b'.repeat(64)],
      ['ACL', 'SETUSER', 'u', '!' + 'a'.repeat(64)],
      ['ACL', 'SETUSER', 'u', '<never'],
      getuser('u'),
    ],
  },
  {
    name: 'reset returns a user to off, sanitize-payload, no keys, no channels, no commands',
    commands: [['ACL', 'SETUSER', 'u', 'on', '>p', '~*', '&*', '+@all'], ['ACL', 'SETUSER', 'u', 'reset'], list, getuser('u')],
  },
  {
    name: 'skip-sanitize-payload and sanitize-payload replace each other',
    commands: [['ACL', 'SETUSER', 'u', 'skip-sanitize-payload'], list, ['ACL', 'SETUSER', 'u', 'sanitize-payload'], list],
  },
  {
    name: 'keywords are case-insensitive',
    commands: [['ACL', 'SETUSER', 'u', 'ON', 'NOPASS', 'ALLKEYS', 'ALLCHANNELS', 'ALLCOMMANDS'], list, ['ACL', 'SETUSER', 'v', '-@ALL', '+GET', '~*', '&*'], list],
  },
  {
    name: '+@read -@dangerous is described as -@all +@read minus the dangerous reads',
    commands: [['ACL', 'SETUSER', 'u', 'on', '>pw', '+@read', '-@dangerous', '~allowed:*'], list, getuser('u')],
    relax: { 1: 'words', 2: 'words' },
  },
  {
    name: '+@all -@dangerous keeps the category rule',
    commands: [['ACL', 'SETUSER', 'u', 'on', 'nopass', '+@all', '-@dangerous', 'allkeys'], list, getuser('u')],
  },
  {
    name: 'single commands are listed after -@all',
    commands: [['ACL', 'SETUSER', 'u', '+get', '+set', '+zadd', '+hget', '+lpush', '+del'], getuser('u')],
    relax: { 1: 'words' },
  },
  {
    name: '+@all minus single commands',
    commands: [['ACL', 'SETUSER', 'u', '+@all', '-get', '-flushall'], getuser('u')],
    relax: { 1: 'words' },
  },
  {
    name: 'categories are chosen by best fit: +@string +@hash -hset',
    commands: [['ACL', 'SETUSER', 'u', '+@string', '+@hash', '-hset'], getuser('u')],
    relax: { 1: 'words' },
  },
  {
    name: 'categories: +@write -@keyspace +@list',
    commands: [['ACL', 'SETUSER', 'u', '+@write', '-@keyspace', '+@list'], getuser('u')],
    relax: { 1: 'words' },
  },
  {
    name: 'categories: +@all -@write -@admin +set',
    commands: [['ACL', 'SETUSER', 'u', '+@all', '-@write', '-@admin', '+set'], getuser('u')],
    relax: { 1: 'words' },
  },
  {
    name: 'categories: +@fast +@slow (every command, but not future ones)',
    commands: [['ACL', 'SETUSER', 'u', '+@fast', '+@slow'], getuser('u')],
    relax: { 1: 'words' },
  },
  {
    name: 'categories: +@pubsub +@connection +@transaction +@scripting',
    commands: [['ACL', 'SETUSER', 'u', '+@pubsub', '+@connection', '+@transaction', '+@scripting'], getuser('u')],
    relax: { 1: 'words' },
  },
  {
    name: 'containers and subcommands: +client -client|kill +config|get',
    commands: [['ACL', 'SETUSER', 'u', '+client', '-client|kill', '+config|get'], list],
    relax: { 1: 'words' },
  },
  {
    name: 'first arguments of a command without subcommands: +select|0',
    commands: [['ACL', 'SETUSER', 'u', 'on', '>pw', '+select|0', '+ping'], list, ['SELECT', '0'], ['SELECT', '1']],
    relax: { 1: 'words' },
    as: { 2: 'u', 3: 'u' },
  },
  {
    name: 'key patterns: ~, %R~, %W~, %RW~, merged when repeated',
    commands: [['ACL', 'SETUSER', 'u', '~a*', '%R~r*', '%W~w*', '%RW~rw*', '%R~a*', '%W~r*'], getuser('u'), list],
  },
  {
    name: 'channel patterns, and &* after patterns',
    commands: [['ACL', 'SETUSER', 'u', '&ch*', '&x', '&x'], getuser('u'), ['ACL', 'SETUSER', 'u', '&*'], getuser('u'), ['ACL', 'SETUSER', 'u', 'resetchannels'], list],
  },
  {
    name: 'allkeys and resetkeys; a pattern after allkeys is refused',
    commands: [['ACL', 'SETUSER', 'u', '~a', 'allkeys'], list, ['ACL', 'SETUSER', 'u', '~foo'], ['ACL', 'SETUSER', 'u', 'resetkeys', '~foo'], list],
  },
  {
    name: 'a pattern after allchannels is refused',
    commands: [['ACL', 'SETUSER', 'u', 'allchannels', '&a']],
  },
  {
    name: 'rule errors name the rule and leave the user untouched',
    commands: [
      ['ACL', 'SETUSER', 'u', 'on', '+get'],
      ['ACL', 'SETUSER', 'u', '+set', '+nosuch'],
      ['ACL', 'SETUSER', 'u', '+@nosuch'],
      ['ACL', 'SETUSER', 'u', 'bogus'],
      ['ACL', 'SETUSER', 'u', '+config|get|x'],
      ['ACL', 'SETUSER', 'u', '+get|'],
      ['ACL', 'SETUSER', 'u', '-get|x'],
      ['ACL', 'SETUSER', 'u', '+'],
      ['ACL', 'SETUSER', 'u', '+@'],
      ['ACL', 'SETUSER', 'u', '%X~a'],
      ['ACL', 'SETUSER', 'u', '%RR~a'],
      ['ACL', 'SETUSER', 'u', '~a b'],
      list,
    ],
  },
  {
    name: 'a failed SETUSER does not create the user',
    commands: [['ACL', 'SETUSER', 'new', 'on', 'bogus'], ['ACL', 'USERS'], getuser('new')],
  },
  {
    name: 'user names may not contain spaces',
    commands: [['ACL', 'SETUSER', 'a b'], ['ACL', 'SETUSER', 'a\tb'], ['ACL', 'USERS']],
  },
  {
    name: 'selectors: (rules) in one word or spread over several; clearselectors',
    commands: [
      ['ACL', 'SETUSER', 'u', 'on', '(+get ~k*)', '(', '+set', '~s*)'],
      list,
      getuser('u'),
      ['ACL', 'SETUSER', 'u', '(+get'],
      ['ACL', 'SETUSER', 'u', 'clearselectors'],
      list,
    ],
  },
  {
    name: 'ACL USERS and ACL LIST are sorted by name',
    commands: [['ACL', 'SETUSER', 'zed'], ['ACL', 'SETUSER', 'Alpha'], ['ACL', 'SETUSER', 'beta'], ['ACL', 'SETUSER', 'b'], ['ACL', 'USERS'], list],
  },
  {
    name: 'ACL DELUSER counts the users it removed and never removes default',
    commands: [
      ['ACL', 'SETUSER', 'a'],
      ['ACL', 'SETUSER', 'b'],
      ['ACL', 'DELUSER', 'a', 'nosuch', 'default'],
      ['ACL', 'USERS'],
      ['ACL', 'DELUSER', 'a', 'nosuch', 'b'],
      ['ACL', 'DELUSER', 'nosuch'],
      ['ACL', 'USERS'],
    ],
  },
  {
    name: 'ACL GETUSER of an unknown user is null',
    commands: [getuser('nosuch')],
  },
  {
    name: 'ACL CAT lists the categories; an unknown category is an error; too many arguments too',
    commands: [['ACL', 'CAT'], ['ACL', 'CAT', 'nosuch'], ['ACL', 'CAT', 'a', 'b']],
  },
  {
    name: 'ACL CAT of a category lists its commands and subcommands',
    commands: [['ACL', 'CAT', 'connection'], ['ACL', 'CAT', 'DANGEROUS'], ['ACL', 'CAT', 'pubsub'], ['ACL', 'CAT', 'scripting'], ['ACL', 'CAT', 'transaction']],
    relax: { 0: 'unordered', 1: 'unordered', 2: 'unordered', 3: 'unordered', 4: 'unordered' },
  },
  {
    name: 'ACL WHOAMI as the default user and as another user; arity',
    commands: [['ACL', 'SETUSER', 'w', 'on', '>pw', '+acl|whoami'], ['ACL', 'WHOAMI'], ['ACL', 'WHOAMI'], ['ACL', 'WHOAMI', 'x']],
    as: { 2: 'w' },
  },
  {
    name: 'ACL HELP',
    commands: [['ACL', 'HELP']],
  },
  {
    name: 'ACL LOAD and ACL SAVE without an ACL file',
    commands: [['ACL', 'LOAD'], ['ACL', 'SAVE']],
  },
  {
    name: 'ACL GENPASS: bits argument errors',
    commands: [['ACL', 'GENPASS', '0'], ['ACL', 'GENPASS', '4097'], ['ACL', 'GENPASS', 'x'], ['ACL', 'GENPASS', '1', '2']],
  },
  {
    name: 'ACL DRYRUN explains what a user may run',
    commands: [
      ['ACL', 'SETUSER', 'd', 'on', '>pw', '+@read', '-@dangerous', '~allowed:*'],
      ['ACL', 'DRYRUN', 'd', 'GET', 'allowed:1'],
      ['ACL', 'DRYRUN', 'd', 'GET', 'other'],
      ['ACL', 'DRYRUN', 'd', 'SET', 'allowed:1', 'x'],
      ['ACL', 'DRYRUN', 'd', 'MGET', 'allowed:1', 'other'],
      ['ACL', 'DRYRUN', 'd', 'PUBLISH', 'ch', 'x'],
      ['ACL', 'DRYRUN', 'nobody', 'GET', 'x'],
      ['ACL', 'DRYRUN', 'd', 'NOSUCH', 'x'],
      ['ACL', 'DRYRUN', 'd', 'GET'],
      ['ACL', 'DRYRUN', 'd', 'CONFIG', 'GET'],
      ['ACL', 'DRYRUN', 'd', 'CONFIG', 'NOSUCH'],
      ['ACL', 'DRYRUN', 'd', 'CONFIG', 'GET', 'x'],
    ],
  },
  {
    name: 'ACL DRYRUN: channels',
    commands: [
      ['ACL', 'SETUSER', 'd', 'on', '>pw', '+@all', '&news.*'],
      ['ACL', 'DRYRUN', 'd', 'PUBLISH', 'news.a', 'x'],
      ['ACL', 'DRYRUN', 'd', 'PUBLISH', 'other', 'x'],
      ['ACL', 'DRYRUN', 'd', 'SUBSCRIBE', 'news.a', 'other'],
      ['ACL', 'DRYRUN', 'd', 'PSUBSCRIBE', 'news.*'],
      ['ACL', 'DRYRUN', 'd', 'PSUBSCRIBE', 'news.a*'],
    ],
  },
  {
    name: 'a restricted user runs allowed reads and is refused writes, other keys and admin commands',
    commands: [
      ['SET', 'allowed:1', 'v'],
      ['SET', 'other', 'v'],
      ['ACL', 'SETUSER', 'r', 'on', '>pw', '+@read', '-@dangerous', '~allowed:*'],
      ['GET', 'allowed:1'],
      ['GET', 'other'],
      ['SET', 'allowed:1', 'x'],
      ['MGET', 'allowed:1', 'other'],
      ['ACL', 'WHOAMI'],
      ['CONFIG', 'GET', 'maxmemory'],
      ['KEYS', '*'],
      ['SORT_RO', 'allowed:1'],
      ['PUBLISH', 'ch', 'hi'],
      ['GET', 'allowed:1'],
      ['EXISTS', 'allowed:1', 'allowed:2'],
      ['GET', 'allowed:1', 'x'],
      ['NOSUCH', 'x'],
    ],
    as: { 3: 'r', 4: 'r', 5: 'r', 6: 'r', 7: 'r', 8: 'r', 9: 'r', 10: 'r', 11: 'r', 13: 'r', 14: 'r', 15: 'r' },
  },
  {
    name: 'read and write key patterns',
    commands: [
      ['ACL', 'SETUSER', 'rw', 'on', '>pw', '+@all', '%R~r:*', '%W~w:*', '~both:*'],
      ['SET', 'r:1', 'v'],
      ['GET', 'r:1'],
      ['SET', 'w:1', 'v'],
      ['GET', 'w:1'],
      ['COPY', 'r:1', 'w:2'],
      ['COPY', 'w:1', 'r:2'],
      ['SET', 'both:1', 'v'],
      ['GET', 'both:1'],
      ['LMOVE', 'r:1', 'w:1', 'LEFT', 'RIGHT'],
    ],
    as: { 1: 'rw', 2: 'rw', 3: 'rw', 4: 'rw', 5: 'rw', 6: 'rw', 7: 'rw', 8: 'rw', 9: 'rw' },
  },
  {
    name: 'channel permissions for PUBLISH and SPUBLISH',
    commands: [
      ['ACL', 'SETUSER', 'p', 'on', '>pw', '+@all', '~*', '&news.*'],
      ['PUBLISH', 'news.a', 'x'],
      ['PUBLISH', 'other', 'x'],
      ['SPUBLISH', 'news.b', 'x'],
      ['SPUBLISH', 'other', 'x'],
    ],
    as: { 1: 'p', 2: 'p', 3: 'p', 4: 'p' },
  },
  {
    name: 'AUTH checks credentials: wrong password, unknown user, disabled user; default has no password',
    commands: [
      ['ACL', 'SETUSER', 'a', 'on', '>pw', '+@all', '~*'],
      ['ACL', 'SETUSER', 'off-user', 'off', '>pw', '+@all'],
      ['AUTH', 'a', 'wrong'],
      ['AUTH', 'nosuch', 'pw'],
      ['AUTH', 'off-user', 'pw'],
      ['AUTH', 'a', 'pw', 'x'],
      ['AUTH', 'a', 'pw'],
    ],
  },
]
