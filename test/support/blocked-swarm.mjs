/**
 * Opens many connections to a RESP server, blocks each on `BLPOP <key> <timeout>`, and reports
 * on stdout: `sent` once every command is written, then one JSON line `{ served, timedOut }`
 * once every connection has its reply. A child process of its own, so that its sockets do not
 * count against the test process's file limit (the listener under test lives there).
 *
 * usage: node blocked-swarm.mjs <port> <count> <key> <timeout-seconds>
 */
import net from 'node:net'

const [port, count, key, timeout] = process.argv.slice(2)
const total = Number(count)
const command = `*3\r\n$5\r\nBLPOP\r\n$${key.length}\r\n${key}\r\n$${timeout.length}\r\n${timeout}\r\n`
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
    socket.write(command)
    if (++connected === total) process.stdout.write('sent\n')
  })
  socket.on('data', (chunk) => {
    reply += chunk.toString('latin1')
    if (reply === '*-1\r\n') timedOut++
    else if (SERVED.test(reply)) served++
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
