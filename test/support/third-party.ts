/**
 * The third party a workflow's `context.call` reaches in the queue tests, and a port where none
 * listens. The third party counts each path it is asked for and answers by path:
 * - `/echo`: 201 with `x-upstream: yes` and a JSON body of the method, the body as text and the
 *   `x-api-key` header (null when absent) under the field `echoKeyAs` names;
 * - `/broken`: 503 `upstream is down`;
 * - `/hang` (or any other path): no answer at all, so that the caller's timeout ends the attempt.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import { listenServer, type Counter, type Listening } from '../queue/support.js'

export function thirdParty(counter: Counter, echoKeyAs: string): Promise<Listening> {
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      const path = request.url ?? '/'
      counter.hit(path)
      if (path === '/echo') {
        const body = Buffer.concat(chunks).toString('utf8')
        response.writeHead(201, { 'content-type': 'application/json', 'x-upstream': 'yes' })
        response.end(JSON.stringify({ method: request.method, body, [echoKeyAs]: request.headers['x-api-key'] ?? null }))
      } else if (path === '/broken') {
        response.writeHead(503, { 'content-type': 'text/plain' })
        response.end('upstream is down')
      }
    })
  })
  return listenServer(server)
}

/** A loopback port nothing listens on (bound, then closed), for a refused connection. */
export async function closedPort(): Promise<number> {
  const probe = await listenServer(createServer())
  await probe.close()
  return probe.port
}
