import { afterEach, expect } from 'vitest'
import { Engine } from '../../../../src/executor/memory/engine.js'
import type { PubSubReply } from '../../../../src/executor/memory/pubsub.js'
import { ReplyError } from '../../../../src/reply.js'

const START = Date.UTC(2026, 0, 1)
const engines: Engine[] = []
afterEach(() => {
  for (const engine of engines.splice(0)) engine.close()
})

/**
 * An engine on a fixed clock with one session for commands and one listening to every keyevent
 * (`heard` lists "event key").
 */
export function setup() {
  const now = START
  const engine = new Engine({ clock: () => now, activeExpiryInterval: 0 })
  engines.push(engine)
  const session = engine.createSession()
  const listener = engine.createSession()
  const heard: string[] = []
  engine.pubsub.attach(listener.id, (reply: PubSubReply) => {
    if (reply[0] === 'pmessage') heard.push(`${String(reply[2]).replace('__keyevent@0__:', '')} ${String(reply[3])}`)
  })
  engine.pubsub.psubscribe(listener.id, ['__keyevent@0__:*'])
  const call = (...argv: string[]) => engine.call(session, argv)
  expect(call('CONFIG', 'SET', 'notify-keyspace-events', 'EA')).toEqual(expect.anything())
  return { call, heard, now, clear: () => heard.splice(0) }
}

/** The message of an error reply, or a marker that the reply was no error. */
export function errorOf(reply: unknown): string {
  return reply instanceof ReplyError ? reply.message : `no error: ${String(reply)}`
}
