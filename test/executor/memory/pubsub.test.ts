import { setMaxListeners } from 'node:events'
import { describe, expect, test } from 'vitest'
import { BackendUnavailableError, type PubSubEvent } from '../../../src/executor/executor.js'
import { Engine } from '../../../src/executor/memory/engine.js'
import { MemoryExecutor } from '../../../src/executor/memory/memory-executor.js'
import {
  allowedWhileSubscribed,
  isSubscriptionCommand,
  PubSub,
  subscribedModeError,
  type PubSubReply,
} from '../../../src/executor/memory/pubsub.js'
import { ReplyError } from '../../../src/reply.js'
import { showEvent } from '../../differential/pubsub.support.js'

/** A hub client that records what it is pushed. */
function attach(hub: PubSub, id: number): PubSubReply[] {
  const pushed: PubSubReply[] = []
  hub.attach(id, (reply) => pushed.push(reply))
  return pushed
}

const emptyHub = { clients: 0, channels: 0, patterns: 0, shardChannels: 0 }

describe('pub/sub hub: connection-mode replies (Redis 7.0 shapes)', () => {
  test('SUBSCRIBE confirms every name, duplicates included, with the running count', () => {
    const hub = new PubSub()
    attach(hub, 1)
    expect(hub.subscribe(1, ['a', 'b', 'a'])).toEqual([
      ['subscribe', 'a', 1],
      ['subscribe', 'b', 2],
      ['subscribe', 'a', 2],
    ])
  })

  test('PSUBSCRIBE counts channels and patterns together', () => {
    const hub = new PubSub()
    attach(hub, 1)
    hub.subscribe(1, ['a', 'b'])
    expect(hub.psubscribe(1, ['a*', 'b?', 'a*', '*'])).toEqual([
      ['psubscribe', 'a*', 3],
      ['psubscribe', 'b?', 4],
      ['psubscribe', 'a*', 4],
      ['psubscribe', '*', 5],
    ])
  })

  test('UNSUBSCRIBE of a channel never subscribed still answers, count unchanged', () => {
    const hub = new PubSub()
    attach(hub, 1)
    hub.subscribe(1, ['a'])
    expect(hub.unsubscribe(1, ['zz'])).toEqual([['unsubscribe', 'zz', 1]])
  })

  test('UNSUBSCRIBE without arguments drops every channel, patterns stay counted', () => {
    const hub = new PubSub()
    attach(hub, 1)
    hub.subscribe(1, ['a', 'b'])
    hub.psubscribe(1, ['p*'])
    expect(hub.unsubscribe(1, [])).toEqual([
      ['unsubscribe', 'a', 2],
      ['unsubscribe', 'b', 1],
    ])
    expect(hub.unsubscribe(1, [])).toEqual([['unsubscribe', null, 1]])
  })

  test('PUNSUBSCRIBE without arguments goes in subscription order; then answers a null pattern', () => {
    const hub = new PubSub()
    attach(hub, 1)
    hub.psubscribe(1, ['a*', 'b?', '*'])
    expect(hub.punsubscribe(1, [])).toEqual([
      ['punsubscribe', 'a*', 2],
      ['punsubscribe', 'b?', 1],
      ['punsubscribe', '*', 0],
    ])
    expect(hub.punsubscribe(1, [])).toEqual([['punsubscribe', null, 0]])
  })

  test('shard channels have their own count and namespace', () => {
    const hub = new PubSub()
    attach(hub, 1)
    expect(hub.ssubscribe(1, ['a', 'b', 'a'])).toEqual([
      ['ssubscribe', 'a', 1],
      ['ssubscribe', 'b', 2],
      ['ssubscribe', 'a', 2],
    ])
    expect(hub.subscribe(1, ['a'])).toEqual([['subscribe', 'a', 1]])
    expect(hub.unsubscribe(1, [])).toEqual([['unsubscribe', 'a', 0]])
    expect(hub.unsubscribe(1, [])).toEqual([['unsubscribe', null, 0]])
    expect(hub.sunsubscribe(1, ['x'])).toEqual([['sunsubscribe', 'x', 2]])
    expect(hub.sunsubscribe(1, [])).toEqual([
      ['sunsubscribe', 'a', 1],
      ['sunsubscribe', 'b', 0],
    ])
    expect(hub.sunsubscribe(1, [])).toEqual([['sunsubscribe', null, 0]])
  })

  test('a session that is not attached gets undefined (the command answers "not available")', () => {
    const hub = new PubSub()
    expect(hub.subscribe(7, ['a'])).toBeUndefined()
    expect(hub.unsubscribe(7, [])).toBeUndefined()
    expect(hub.counts(7)).toEqual({ channels: 0, patterns: 0, shardChannels: 0 })
  })

  test('attaching the same id twice throws', () => {
    const hub = new PubSub()
    attach(hub, 1)
    expect(() => hub.attach(1, () => {})).toThrow(/already attached/)
  })

  test('counts, subscribed and size follow subscriptions; detach leaves nothing behind', () => {
    const hub = new PubSub()
    attach(hub, 1)
    attach(hub, 2)
    expect(hub.subscribed(1)).toBe(false)
    hub.subscribe(1, ['a', 'b'])
    hub.psubscribe(1, ['p*'])
    hub.psubscribe(2, ['p*'])
    hub.ssubscribe(2, ['s'])
    expect(hub.subscribed(1)).toBe(true)
    expect(hub.counts(1)).toEqual({ channels: 2, patterns: 1, shardChannels: 0 })
    expect(hub.size).toEqual({ clients: 2, channels: 2, patterns: 1, shardChannels: 1 })
    hub.detach(1)
    hub.detach(2)
    expect(hub.size).toEqual(emptyHub)
  })

  test('reset drops the subscriptions without replies and keeps the attachment', () => {
    const hub = new PubSub()
    const pushed = attach(hub, 1)
    hub.subscribe(1, ['a'])
    hub.psubscribe(1, ['*'])
    hub.ssubscribe(1, ['s'])
    hub.reset(1)
    expect(pushed).toEqual([])
    expect(hub.isAttached(1)).toBe(true)
    expect(hub.subscribed(1)).toBe(false)
    expect(hub.size).toEqual({ ...emptyHub, clients: 1 })
  })

  test('the RESP2 pub/sub context helpers name what Redis allows', () => {
    expect(['SUBSCRIBE', 'psubscribe', 'Ssubscribe', 'unsubscribe', 'PUNSUBSCRIBE', 'sunsubscribe'].every(isSubscriptionCommand)).toBe(true)
    expect(isSubscriptionCommand('publish')).toBe(false)
    expect(['ping', 'QUIT', 'reset', 'subscribe'].every(allowedWhileSubscribed)).toBe(true)
    expect(allowedWhileSubscribed('get')).toBe(false)
    expect(subscribedModeError('pubsub|channels').message).toBe(
      "ERR Can't execute 'pubsub|channels': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in this context",
    )
  })
})

describe('pub/sub hub: PUBLISH fan-out', () => {
  test('receivers are channel subscribers plus one per matching pattern subscription', () => {
    const hub = new PubSub()
    const first = attach(hub, 1)
    const second = attach(hub, 2)
    hub.subscribe(1, ['a'])
    hub.psubscribe(1, ['a*', 'b?', '*'])
    hub.psubscribe(2, ['a*'])
    expect(hub.publish('a', 'm1')).toBe(4)
    expect(first).toEqual([
      ['message', 'a', 'm1'],
      ['pmessage', 'a*', 'a', 'm1'],
      ['pmessage', '*', 'a', 'm1'],
    ])
    expect(second).toEqual([['pmessage', 'a*', 'a', 'm1']])
    expect(hub.publish('bb', 'm2')).toBe(2)
    expect(hub.publish('zzz', 'm3')).toBe(1)
    expect(hub.patternCount).toBe(3)
  })

  test('patterns match as stringmatchlen: `*` never matches the empty channel, `` does', () => {
    const hub = new PubSub()
    const pushed = attach(hub, 1)
    hub.psubscribe(1, ['*'])
    expect(hub.publish('', 'm')).toBe(0)
    hub.psubscribe(1, [''])
    expect(hub.publish('', 'm')).toBe(1)
    expect(pushed).toEqual([['pmessage', '', '', 'm']])
  })

  test('SPUBLISH reaches shard subscribers only; PUBLISH never reaches them', () => {
    const hub = new PubSub()
    const pushed = attach(hub, 1)
    hub.ssubscribe(1, ['a'])
    hub.psubscribe(1, ['*'])
    expect(hub.spublish('a', 'm1')).toBe(1)
    expect(hub.publish('a', 'm2')).toBe(1)
    expect(hub.spublish('b', 'm3')).toBe(0)
    expect(pushed).toEqual([
      ['smessage', 'a', 'm1'],
      ['pmessage', '*', 'a', 'm2'],
    ])
  })

  test('PUBSUB CHANNELS / SHARDCHANNELS filter with the glob; NUMSUB ignores patterns', () => {
    const hub = new PubSub()
    attach(hub, 1)
    attach(hub, 2)
    hub.subscribe(1, ['news', 'nose', ''])
    hub.subscribe(2, ['news'])
    hub.psubscribe(2, ['n*'])
    hub.ssubscribe(1, ['shard'])
    expect(hub.channelNames()).toEqual(['news', 'nose', ''])
    expect(hub.channelNames('n[eo]?s')).toEqual(['news'])
    expect(hub.channelNames('*')).toEqual(['news', 'nose'])
    expect(hub.channelSubscribers('news')).toBe(2)
    expect(hub.channelSubscribers('n*')).toBe(0)
    expect(hub.shardChannelNames('s*')).toEqual(['shard'])
    expect(hub.shardChannelSubscribers('shard')).toBe(1)
    expect(hub.shardChannelSubscribers('news')).toBe(0)
  })

  test('a deliver callback that throws is detached and told; the others still receive', () => {
    const hub = new PubSub()
    const errors: unknown[] = []
    hub.attach(1, () => {
      throw new Error('boom')
    }, (error) => errors.push(error))
    const pushed = attach(hub, 2)
    hub.subscribe(1, ['a'])
    hub.subscribe(2, ['a'])
    expect(hub.publish('a', 'm1')).toBe(2)
    expect(pushed).toEqual([['message', 'a', 'm1']])
    expect(errors).toEqual([new Error('boom')])
    expect(hub.isAttached(1)).toBe(false)
    expect(hub.publish('a', 'm2')).toBe(1)
  })

  test('a publish from inside a delivery is delivered after the one in progress, to everyone', () => {
    const hub = new PubSub()
    const seen: string[] = []
    hub.attach(1, (reply) => {
      seen.push(`1:${reply[2] as string}`)
      if (reply[2] === 'm1') hub.publish('a', 'm2')
    })
    hub.attach(2, (reply) => seen.push(`2:${reply[reply.length - 1] as string}`))
    hub.subscribe(1, ['a'])
    hub.subscribe(2, ['a'])
    hub.psubscribe(2, ['*'])
    expect(hub.publish('a', 'm1')).toBe(3)
    expect(seen).toEqual(['1:m1', '2:m1', '2:m1', '1:m2', '2:m2', '2:m2'])
  })

  test('a client subscribing from inside a delivery does not get the message in flight', () => {
    const hub = new PubSub()
    const late = attach(hub, 2)
    hub.attach(1, () => {
      hub.subscribe(2, ['a'])
    })
    hub.subscribe(1, ['a'])
    expect(hub.publish('a', 'm1')).toBe(1)
    expect(late).toEqual([])
    expect(hub.publish('a', 'm2')).toBe(2)
    expect(late).toEqual([['message', 'a', 'm2']])
  })

  test('a client detached while a nested publish waits does not receive it', () => {
    const hub = new PubSub()
    const second = attach(hub, 2)
    hub.attach(1, (reply) => {
      if (reply[2] === 'm1') {
        hub.publish('a', 'm2')
        hub.detach(2)
      }
    })
    hub.subscribe(1, ['a'])
    hub.subscribe(2, ['a'])
    hub.publish('a', 'm1')
    expect(second).toEqual([])
  })
})

describe('pub/sub commands through the engine', () => {
  function engineWithClient(): { engine: Engine; session: ReturnType<Engine['createSession']>; pushed: PubSubReply[] } {
    const engine = new Engine({ activeExpiryInterval: 0 })
    const session = engine.createSession('127.0.0.1:5000')
    const pushed: PubSubReply[] = []
    engine.pubsub.attach(session.id, (reply) => pushed.push(reply))
    return { engine, session, pushed }
  }

  test('SUBSCRIBE on an attached session answers one reply per channel', () => {
    const { engine, session } = engineWithClient()
    expect(engine.call(session, ['SUBSCRIBE', 'a', 'b'])).toEqual([
      ['subscribe', 'a', 1],
      ['subscribe', 'b', 2],
    ])
    expect(engine.call(session, ['unsubscribe'])).toEqual([
      ['unsubscribe', 'a', 1],
      ['unsubscribe', 'b', 0],
    ])
    engine.close()
  })

  test('the subscription commands refuse a session that is not attached, as the socket executor does', () => {
    const engine = new Engine({ activeExpiryInterval: 0 })
    const session = engine.createSession()
    for (const name of ['subscribe', 'psubscribe', 'ssubscribe']) {
      expect(engine.call(session, [name.toUpperCase(), 'a'])).toEqual(new ReplyError(`ERR Command is not available: '${name}'`))
    }
    for (const name of ['unsubscribe', 'punsubscribe', 'sunsubscribe']) {
      expect(engine.call(session, [name])).toEqual(new ReplyError(`ERR Command is not available: '${name}'`))
    }
    engine.close()
  })

  test('PUBLISH from another session reaches the attached one', () => {
    const { engine, session, pushed } = engineWithClient()
    engine.call(session, ['PSUBSCRIBE', 'n*'])
    const publisher = engine.createSession()
    expect(engine.call(publisher, ['PUBLISH', 'news', 'hi'])).toBe(1)
    expect(engine.call(publisher, ['PUBSUB', 'NUMPAT'])).toBe(1)
    expect(pushed).toEqual([['pmessage', 'n*', 'news', 'hi']])
    engine.close()
  })

  test('closing the engine detaches every client and tells it', () => {
    const engine = new Engine({ activeExpiryInterval: 0 })
    const errors: unknown[] = []
    engine.pubsub.attach(1, () => {}, (error) => errors.push(error))
    engine.pubsub.subscribe(1, ['a'])
    engine.close()
    expect(engine.pubsub.size).toEqual(emptyHub)
    expect(errors).toHaveLength(1)
  })
})

describe('MemoryExecutor.subscribe', () => {
  test('confirmations first, with this subscriber’s own running count, then messages', async () => {
    const executor = new MemoryExecutor({ activeExpiryInterval: 0 })
    const controller = new AbortController()
    const first: string[] = []
    const second: string[] = []
    const one = executor.subscribe({ kind: 'channel', names: ['a', 'b', 'a'] }, (event) => first.push(showEvent(event)), controller.signal)
    const two = executor.subscribe({ kind: 'pattern', names: ['*'] }, (event) => second.push(showEvent(event)), controller.signal)
    expect(await executor.exec(['PUBLISH', 'a', 'x'])).toBe(2)
    expect(first).toEqual(['subscribe a 1', 'subscribe b 2', 'subscribe a 2', 'message a x'])
    expect(second).toEqual(['psubscribe * 1', 'pmessage * a x'])
    controller.abort()
    await Promise.all([one, two])
    expect(executor.engine.pubsub.size).toEqual(emptyHub)
    await executor.close()
  })

  test('names are UTF-8 strings or bytes; messages come back as bytes', async () => {
    const executor = new MemoryExecutor({ activeExpiryInterval: 0 })
    const controller = new AbortController()
    const events: PubSubEvent[] = []
    const done = executor.subscribe({ kind: 'channel', names: ['é', Uint8Array.of(0, 255)] }, (event) => events.push(event), controller.signal)
    await executor.exec(['PUBLISH', Uint8Array.of(0, 255), Uint8Array.of(1, 2, 3)])
    await executor.exec(['PUBLISH', 'é', '✓'])
    expect(events.map((event) => ('message' in event ? [event.type, Buffer.from(event.channel).toString('hex'), Buffer.from(event.message).toString('hex')] : [event.type, Buffer.from(event.channel).toString('hex'), event.count]))).toEqual([
      ['subscribe', 'c3a9', 1],
      ['subscribe', '00ff', 2],
      ['message', '00ff', '010203'],
      ['message', 'c3a9', 'e29c93'],
    ])
    controller.abort()
    await done
    await executor.close()
  })

  test('MONITOR sees the SUBSCRIBE a subscriber sends', async () => {
    const executor = new MemoryExecutor({ activeExpiryInterval: 0 })
    const controller = new AbortController()
    const lines: string[] = []
    const monitoring = executor.monitor((event) => lines.push(event.line), controller.signal)
    const subscribed = executor.subscribe({ kind: 'pattern', names: ['a*'] }, () => {}, controller.signal, { client: '10.0.0.1:7' })
    expect(lines.map((line) => line.slice(line.indexOf('['))))
      .toEqual(['[0 10.0.0.1:7] "PSUBSCRIBE" "a*"'])
    controller.abort()
    await Promise.all([monitoring, subscribed])
    await executor.close()
  })

  test('1,000 subscribers over 10 channels, 10,000 messages: each gets exactly its own, in order; nothing leaks', async () => {
    const executor = new MemoryExecutor({ activeExpiryInterval: 0 })
    const controller = new AbortController()
    setMaxListeners(1000, controller.signal) // one signal ends all 1,000 subscriptions
    const channels = Array.from({ length: 10 }, (_, i) => `ch${i}`)
    const received: string[][] = []
    const done: Promise<void>[] = []
    for (let s = 0; s < 1000; s++) {
      const inbox: string[] = []
      received.push(inbox)
      const channel = channels[s % 10]
      done.push(executor.subscribe({ kind: 'channel', names: [channel] }, (event) => {
        inbox.push(event.type === 'message' ? Buffer.from(event.message).toString('latin1') : showEvent(event))
      }, controller.signal))
    }
    const expected: string[][] = channels.map((channel) => [`subscribe ${channel} 1`])
    for (let m = 0; m < 10_000; m++) {
      const channel = m % 10
      const message = `m${m}`
      expect(executor.execSync(['PUBLISH', channels[channel], message])).toBe(100)
      expected[channel].push(message)
    }
    for (let s = 0; s < 1000; s++) expect(received[s]).toEqual(expected[s % 10])
    controller.abort()
    await Promise.all(done)
    expect(executor.engine.pubsub.size).toEqual(emptyHub)
    expect(executor.execSync(['PUBLISH', 'ch0', 'late'])).toBe(0)
    expect(received[0]).toHaveLength(1001)
    await executor.close()
  })

  test('a callback that throws ends only its own subscription, which rejects with the error', async () => {
    const executor = new MemoryExecutor({ activeExpiryInterval: 0 })
    const controller = new AbortController()
    const boom = new Error('boom')
    const healthy: string[] = []
    const broken = executor.subscribe({ kind: 'channel', names: ['a'] }, (event) => {
      if (event.type === 'message') throw boom
    }, controller.signal)
    const fine = executor.subscribe({ kind: 'channel', names: ['a'] }, (event) => healthy.push(showEvent(event)), controller.signal)
    expect(await executor.exec(['PUBLISH', 'a', 'm1'])).toBe(2)
    await expect(broken).rejects.toBe(boom)
    expect(await executor.exec(['PUBLISH', 'a', 'm2'])).toBe(1)
    expect(healthy).toEqual(['subscribe a 1', 'message a m1', 'message a m2'])
    controller.abort()
    await fine
    await executor.close()
  })

  test('a callback that throws on its confirmation rejects at once and leaves nothing subscribed', async () => {
    const executor = new MemoryExecutor({ activeExpiryInterval: 0 })
    const boom = new Error('boom')
    const subscription = executor.subscribe({ kind: 'channel', names: ['a', 'b'] }, () => {
      throw boom
    }, new AbortController().signal)
    await expect(subscription).rejects.toBe(boom)
    expect(executor.engine.pubsub.size).toEqual(emptyHub)
    await executor.close()
  })

  test('an aborted signal resolves at once without subscribing', async () => {
    const executor = new MemoryExecutor({ activeExpiryInterval: 0 })
    await executor.subscribe({ kind: 'channel', names: ['a'] }, () => {}, AbortSignal.abort())
    expect(executor.engine.pubsub.size).toEqual(emptyHub)
    await executor.close()
  })

  test('no names: nothing is subscribed and the promise waits for the abort', async () => {
    const executor = new MemoryExecutor({ activeExpiryInterval: 0 })
    const controller = new AbortController()
    const events: PubSubEvent[] = []
    const waiting = executor.subscribe({ kind: 'channel', names: [] }, (event) => events.push(event), controller.signal)
    expect(executor.engine.pubsub.size).toEqual({ ...emptyHub, clients: 1 })
    controller.abort()
    await waiting
    expect(events).toEqual([])
    expect(executor.engine.pubsub.size).toEqual(emptyHub)
    await executor.close()
  })

  test('close() rejects the subscribers still waiting with BackendUnavailableError', async () => {
    const executor = new MemoryExecutor({ activeExpiryInterval: 0 })
    const waiting = executor.subscribe({ kind: 'channel', names: ['a'] }, () => {}, new AbortController().signal)
    await executor.close()
    await expect(waiting).rejects.toBeInstanceOf(BackendUnavailableError)
    await expect(executor.subscribe({ kind: 'channel', names: ['a'] }, () => {}, new AbortController().signal)).rejects.toBeInstanceOf(BackendUnavailableError)
  })
})
