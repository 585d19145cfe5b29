/**
 * Overload probes of the RESP listener (`restis --resp-port`, memory executor, default limits
 * unless said): for each, whether the process survived, its peak RSS (VmHWM), and the GET
 * latency of an authenticated bystander client while the probe runs.
 *
 * - idleSockets: 20,000 connections that never send anything (from two processes, 10,000 each,
 *   so each stays under an open-file limit of 20,000). The cap refuses some, the authentication
 *   deadline (10 s) closes the rest.
 * - stalledReaders: 10 clients ask for a 50 MiB value and never read it; the send timeout
 *   (BENCH_SEND_TIMEOUT seconds, default 5 to keep the run short; the CLI default is 30) closes
 *   them. Reports the RSS while held and after.
 *
 * Exported as functions for an overall overload suite; run alone: node bench/overload-resp.mjs
 */

import net from 'node:net'
import path from 'node:path'
import { spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { pathToFileURL } from 'node:url'
import { freePort, main, ROOT, saveResults, startRestis, table } from './lib.mjs'

const TOKEN = 'bench-token'
const MiB = 1024 * 1024

/** VmRSS and VmHWM (peak) of a process, in MiB. */
function memory(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  const field = (name) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) / 1024
  return { rss: field('VmRSS'), peak: field('VmHWM') }
}

function alive(pid) {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

function command(args) {
  let out = `*${args.length}\r\n`
  for (const arg of args) out += `$${Buffer.byteLength(arg)}\r\n${arg}\r\n`
  return out
}

/** An authenticated client that sends GETs one after another and records each latency. */
async function bystander(port) {
  const socket = net.connect(port, '127.0.0.1')
  await new Promise((resolve, reject) => socket.once('connect', resolve).once('error', reject))
  let buffered = ''
  let waiting
  let closedReject
  socket.once('close', () => closedReject?.(new Error('bystander connection closed')))
  socket.on('data', (chunk) => {
    buffered += chunk.toString('latin1')
    waiting?.()
  })
  const call = (args) =>
    new Promise((resolve, reject) => {
      const check = () => {
        const end = buffered.indexOf('\r\n')
        if (end < 0) return
        const line = buffered.slice(0, end)
        // Bulk replies here are short (`$1\r\nv\r\n`): wait for the whole of one.
        if (line.startsWith('$') && Number(line.slice(1)) >= 0) {
          const total = end + 2 + Number(line.slice(1)) + 2
          if (buffered.length < total) return
          buffered = buffered.slice(total)
        } else buffered = buffered.slice(end + 2)
        waiting = undefined
        resolve(line)
      }
      waiting = check
      closedReject = reject
      socket.write(command(args))
      check()
    })
  await call(['AUTH', TOKEN])
  await call(['SET', 'bystander', 'v'])
  const latencies = []
  let running = true
  let failed
  const loop = (async () => {
    while (running) {
      const start = performance.now()
      await call(['GET', 'bystander'])
      latencies.push(performance.now() - start)
    }
  })().catch((error) => (failed = error))
  return {
    call,
    async stop() {
      running = false
      await loop
      socket.destroy()
      const sorted = [...latencies].sort((a, b) => a - b)
      const p = (q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN
      return { gets: latencies.length, p50: p(0.5), p99: p(0.99), max: sorted.at(-1) ?? NaN, failed: failed?.message }
    },
  }
}

async function startListener(extraArgs = []) {
  const respPort = await freePort()
  const restis = await startRestis({ respPort, token: TOKEN, args: extraArgs })
  return { ...restis, respPort, pid: restis.child.pid }
}

/** Two openers of `count / 2` idle sockets each; resolves with what they saw. */
function openIdleSockets(port, count) {
  const script = path.join(ROOT, 'bench', 'servers', 'idle-sockets.mjs')
  const run = (n) =>
    new Promise((resolve, reject) => {
      // 200 connections in progress per opener: together below the listen backlog (511).
      const child = spawn(process.execPath, [script, String(port), String(n), '200'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
      const result = {}
      const timer = setTimeout(() => child.kill('SIGKILL'), 180_000)
      child.on('message', (message) => Object.assign(result, { [message.event]: message }))
      child.once('error', reject)
      child.once('exit', () => {
        clearTimeout(timer)
        resolve(result)
      })
    })
  return Promise.all([run(Math.ceil(count / 2)), run(Math.floor(count / 2))])
}

export async function probeIdleSockets(count = 20_000) {
  const listener = await startListener()
  const started = Date.now()
  const client = await bystander(listener.respPort)
  const openers = await openIdleSockets(listener.respPort, count)
  const latency = await client.stop()
  const replies = {}
  for (const part of openers) for (const [said, n] of Object.entries(part.closed?.replies ?? {})) replies[said] = (replies[said] ?? 0) + n
  const result = {
    probe: `${count} idle sockets`,
    survived: alive(listener.pid) && latency.failed === undefined,
    peakRssMiB: memory(listener.pid).peak,
    bystander: latency,
    opened: openers.reduce((sum, part) => sum + (part.opened?.opened ?? 0), 0),
    refusedByCap: replies['-ERR max number of clients reached'] ?? 0,
    closedByDeadline: replies['(nothing)'] ?? 0,
    allClosedAfterMs: Date.now() - started,
  }
  await listener.stop()
  return result
}

export async function probeStalledReaders(readers = 10, sizeMiB = 50, sendTimeoutSeconds = Number(process.env.BENCH_SEND_TIMEOUT ?? 5)) {
  const listener = await startListener(['--resp-send-timeout', String(sendTimeoutSeconds)])
  const client = await bystander(listener.respPort)
  // The value, written by a raw client (the bystander parses short replies only).
  const writer = net.connect(listener.respPort, '127.0.0.1')
  await new Promise((resolve) => writer.once('connect', resolve))
  const value = 'x'.repeat(sizeMiB * MiB)
  writer.write(command(['AUTH', TOKEN]) + command(['SET', 'big', value]))
  await new Promise((resolve) => {
    let seen = ''
    writer.on('data', (chunk) => {
      seen += chunk
      if (seen === '+OK\r\n+OK\r\n') resolve()
    })
  })
  writer.destroy()
  const before = memory(listener.pid)
  const sockets = []
  for (let i = 0; i < readers; i++) {
    const socket = net.connect(listener.respPort, '127.0.0.1')
    socket.pause()
    socket.on('error', () => {})
    await new Promise((resolve) => socket.once('connect', resolve))
    socket.write(command(['AUTH', TOKEN]) + command(['GET', 'big']))
    sockets.push(socket)
  }
  // Each gets what the kernel buffers held, then the close: resumed after the send timeout, a
  // reader sees how much of its reply arrived before the server let go of it.
  await new Promise((resolve) => setTimeout(resolve, sendTimeoutSeconds * 1000 + 2000))
  const during = memory(listener.pid)
  const received = await Promise.all(
    sockets.map(
      (socket) =>
        new Promise((resolve) => {
          let bytes = 0
          socket.on('data', (chunk) => (bytes += chunk.length))
          socket.once('close', () => resolve(bytes))
          socket.resume()
        }),
    ),
  )
  const latency = await client.stop()
  const result = {
    probe: `${readers} stalled readers of ${sizeMiB} MiB`,
    survived: alive(listener.pid) && latency.failed === undefined,
    peakRssMiB: during.peak,
    bystander: latency,
    rssBeforeMiB: before.rss,
    rssAfterTimeoutMiB: during.rss,
    closedWithPartialReply: received.filter((bytes) => bytes < sizeMiB * MiB).length,
  }
  await listener.stop()
  return result
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  await main('overload-resp', async () => {
    const results = [await probeIdleSockets(), await probeStalledReaders()]
    const rows = results.map((r) => [
      r.probe,
      r.survived ? 'yes' : 'NO',
      r.peakRssMiB.toFixed(0),
      r.bystander.gets,
      r.bystander.p99.toFixed(1),
      r.bystander.max.toFixed(1),
    ])
    console.log(table(['probe', 'survived', 'peak RSS MiB', 'bystander GETs', 'GET p99 ms', 'GET max ms'], rows))
    for (const r of results) console.log(JSON.stringify(r))
    saveResults('overload-resp', { results })
  })
}
