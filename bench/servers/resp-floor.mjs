// The floor of the AOF suite: what node:net alone costs a RESP server on this machine. It keeps
// no data: it answers +OK to every command (redis-benchmark -t set sends nothing else that needs
// an answer it checks) and logs the bytes it read to a file, as restis's AOF does:
//   always       one write and one fdatasync per turn of the event loop, on the loop, replies after
//   always-pool  the same, with the fdatasync in libuv's thread pool while the loop reads on
//   everysec     one write per turn before the replies, an fdatasync each second
//   none         no file, each reply written as its input arrives
// Commands are counted by the '*' that starts each RESP array: right for redis-benchmark's SET,
// whose keys and values never start a line with '*'; not a RESP parser.
import fs from 'node:fs'
import net from 'node:net'
import path from 'node:path'

const [port, mode, dir] = [Number(process.argv[2]), process.argv[3] ?? 'none', process.argv[4]]
const MODES = ['always', 'always-pool', 'everysec', 'none']
if (!MODES.includes(mode)) throw new Error(`mode must be one of ${MODES.join(', ')}`)
const fd = mode === 'none' ? -1 : fs.openSync(path.join(dir, 'floor.aof'), 'a')
const OK = '+OK\r\n'
const okReplies = Array.from({ length: 65 }, (_, n) => Buffer.from(OK.repeat(n)))
const okFor = (count) => okReplies[count] ?? Buffer.from(OK.repeat(count))

/** RESP arrays that start in `chunk` (a line that begins with '*'). */
function commandsIn(chunk) {
  let count = chunk[0] === 0x2a ? 1 : 0
  for (let at = chunk.indexOf(0x0a); at !== -1 && at < chunk.length - 1; at = chunk.indexOf(0x0a, at + 1)) {
    if (chunk[at + 1] === 0x2a) count++
  }
  return count
}

let logged = [] // input of this turn, for the file
let waiting = [] // [socket, replies owed] of this turn
let turnScheduled = false
let syncing = false // always-pool: an fdatasync in the thread pool

function reply(owed) {
  for (const [socket, count] of owed) if (!socket.destroyed) socket.write(okFor(count))
}

function endTurn() {
  turnScheduled = false
  if (syncing || logged.length === 0) return
  fs.writeSync(fd, Buffer.concat(logged))
  logged = []
  const owed = waiting
  waiting = []
  if (mode === 'always') fs.fdatasyncSync(fd)
  if (mode !== 'always-pool') return reply(owed)
  syncing = true
  fs.fdatasync(fd, () => {
    syncing = false
    reply(owed)
    endTurn() // what the loop read meanwhile is the next group
  })
}

if (mode === 'everysec') setInterval(() => fs.fdatasync(fd, () => {}), 1000).unref()

const server = net.createServer((socket) => {
  socket.setNoDelay(true)
  socket.on('error', () => socket.destroy())
  socket.on('data', (chunk) => {
    const count = commandsIn(chunk)
    if (mode === 'none') return void socket.write(okFor(count))
    logged.push(chunk)
    waiting.push([socket, count])
    if (!turnScheduled) {
      turnScheduled = true
      setImmediate(endTurn)
    }
  })
})
server.listen(port, '127.0.0.1')
process.on('SIGTERM', () => process.exit(0))
