/**
 * Opens many connections to a RESP server, blocks each on `BLPOP <key> <timeout>`, and reports
 * on stdout: `sent` once every command is written, then one JSON line `{ served, timedOut }`
 * once every connection has its reply. A child process of its own, so that its sockets do not
 * count against the test process's file limit (the listener under test lives there).
 *
 * usage: node blocked-swarm.mjs <port> <count> <key> <timeout-seconds> [password]
 * (`{i}` in the key is replaced by the connection's index: one key per client.)
 */
import net from 'node:net'

const [port, count, key, timeout, password] = process.argv.slice(2)
const auth = password === undefined ? '' : `*2\r\n$4\r\nAUTH\r\n$${Buffer.byteLength(password)}\r\n${password}\r\n`
const AUTH_OK = password === undefined ? '' : '+OK\r\n'
const total = Number(count)
const commandFor = (i) => {
  const name = key.replaceAll('{i}', String(i))
  return `*3\r\n$5\r\nBLPOP\r\n$${name.length}\r\n${name}\r\n$${timeout.length}\r\n${timeout}\r\n`
}
const SERVED = /^\*2\r\n\$\d+\r\n[^\r]*\r\n\$\d+\r\n[^\r]*\r\n$/
let served = 0
let timedOut = 0
let connected = 0

function finishOne() {
  if (served + timedOut === total) {
    process.stdout.write(`${JSON.stringify({ served, timedOut })}\n`)
    process.exit(0)
  }
}

/** Connections opening at once: more overflow the listen backlog of a busy server. */
const CONCURRENT_CONNECTS = 100
let opened = 0

function openNext() {
  if (opened < total) open(opened++)
}

function open(i) {
  const socket = net.connect(Number(port), '127.0.0.1')
  let reply = ''
  socket.on('connect', () => {
    openNext()
    socket.write(auth + commandFor(i))
    if (++connected === total) process.stdout.write('sent\n')
  })
  socket.on('data', (chunk) => {
    reply += chunk.toString('latin1')
    if (!reply.startsWith(AUTH_OK)) return
    const answer = reply.slice(AUTH_OK.length)
    if (answer === '*-1\r\n') timedOut++
    else if (SERVED.test(answer)) served++
    else return
    socket.destroy()
    finishOne()
  })
  socket.on('error', (error) => {
    process.stderr.write(`connection ${i}: ${error.message}\n`)
    process.exit(1)
  })
}

for (let i = 0; i < CONCURRENT_CONNECTS; i++) openNext()
