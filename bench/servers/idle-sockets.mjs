/**
 * Opens many TCP connections to a port and sends nothing on them: idle, unauthenticated
 * clients, as an attacker holding descriptors would. Used by the RESP overload probe and its test.
 *
 * Usage: node idle-sockets.mjs <port> <count> [concurrency=500]
 * (needs an open-file limit above <count>: run it under `prlimit --nofile=…`).
 *
 * Reports JSON lines (over IPC when started with one, else on stdout):
 *   { event: 'opened', opened, failed, ms }   once every connection was tried
 *   { event: 'closed', closed, ms, replies, ghosts }
 *                                             once every opened connection is closed; `replies`
 *                                             counts what the server said before closing it
 * then exits. Ctrl-C or the parent going away ends it too.
 *
 * When the server accepts more slowly than connections arrive, its kernel drops handshakes whose
 * accept queue is full: this side believes them open, the server never had them, and nothing
 * ever closes them. The IPC message `{ type: 'probe' }` (send it once the server holds none)
 * writes an empty line on each connection still open: the reset that answers closes those, and
 * they are counted as `ghosts`. (An empty line is no command in RESP; a server would ignore it.)
 */

import net from 'node:net'

const [port, count, concurrency = '500'] = process.argv.slice(2).map(Number)
if (!Number.isInteger(port) || !Number.isInteger(count)) {
  process.stderr.write('usage: node idle-sockets.mjs <port> <count> [concurrency]\n')
  process.exit(2)
}

const report = (message) => {
  if (process.send) process.send(message)
  else process.stdout.write(`${JSON.stringify(message)}\n`)
}

const started = Date.now()
let opened = 0
let failed = 0
let closed = 0
let ghosts = 0
let probing = false
const openSockets = new Set()
let openingDone = false
const replies = {}

function finishIfAllClosed() {
  if (!openingDone || closed < opened) return
  report({ event: 'closed', closed, ms: Date.now() - started, replies, ghosts })
  process.exit(0)
}

function open() {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1')
    let said = ''
    let connected = false
    socket.on('connect', () => {
      connected = true
      opened++
      openSockets.add(socket)
      resolve()
    })
    socket.on('data', (chunk) => (said += chunk.toString('latin1')))
    socket.on('error', () => {})
    socket.on('close', () => {
      if (!connected) {
        failed++
        resolve()
        return
      }
      openSockets.delete(socket)
      if (probing && said === '') ghosts++
      else {
        const key = said === '' ? '(nothing)' : said.trim()
        replies[key] = (replies[key] ?? 0) + 1
      }
      closed++
      finishIfAllClosed()
    })
  })
}

let next = 0
async function worker() {
  while (next < count) {
    next++
    await open()
  }
}
await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker))
openingDone = true
report({ event: 'opened', opened, failed, ms: Date.now() - started })
finishIfAllClosed()
process.on('disconnect', () => process.exit(0))
process.on('message', (message) => {
  if (message?.type !== 'probe') return
  probing = true
  for (const socket of openSockets) socket.write('\r\n')
  finishIfAllClosed()
})
