// The ceiling of the gateway suite: node:http answering a constant JSON envelope, nothing else.
import { createServer } from 'node:http'

const port = Number(process.argv[2])
const body = '{"result":"bar"}'
const server = createServer((request, response) => {
  response.writeHead(200, { 'content-type': 'application/json', 'content-length': String(body.length) })
  response.end(body)
})
server.keepAliveTimeout = 65_000
server.listen(port, '127.0.0.1')
process.on('SIGTERM', () => process.exit(0))
