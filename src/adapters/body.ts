import type { Readable } from 'node:stream'

/**
 * Reads a request body up to a limit, refusing an oversize body as soon as it crosses the limit
 * instead of buffering it whole. Chunks are collected and joined once.
 */
export class BodyTooLargeError extends Error {
  constructor() {
    super('request body exceeds the maximum request size')
  }
}

/** Joins chunks read from an async source, failing once more than `limit` bytes arrive. */
export async function readBody(source: AsyncIterable<Uint8Array | string>, limit: number): Promise<Uint8Array> {
  const chunks: Uint8Array[] = []
  let size = 0
  for await (const chunk of source) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk
    size += bytes.length
    if (size > limit) throw new BodyTooLargeError()
    chunks.push(bytes)
  }
  if (chunks.length === 1) return chunks[0]
  return Buffer.concat(chunks, size)
}

/**
 * Joins the chunks of the request stream, refusing the body (and pausing the stream) as soon as
 * it crosses `limit`, or as soon as `onChunk` (told each chunk's size) throws. Plain listeners rather than the stream's async iterator: a body usually
 * comes in one chunk, and the iterator's machinery costs more than reading it.
 */
export function readEmitterBody(request: Readable, limit: number, onChunk?: (bytes: number) => void): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    if (request.destroyed) return reject(prematureClose())
    let first: Buffer | undefined
    let chunks: Buffer[] | undefined
    let size = 0
    const onData = (chunk: Buffer | string) => {
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk
      size += bytes.length
      if (size > limit) {
        stop()
        request.pause()
        return reject(new BodyTooLargeError())
      }
      if (onChunk !== undefined) {
        try {
          onChunk(bytes.length)
        } catch (error) {
          stop()
          request.pause()
          return reject(error)
        }
      }
      if (first === undefined) first = bytes
      else if (chunks === undefined) chunks = [first, bytes]
      else chunks.push(bytes)
    }
    const onEnd = () => {
      stop()
      resolve(chunks !== undefined ? Buffer.concat(chunks, size) : (first ?? EMPTY_BODY))
    }
    const onError = (error: Error) => {
      stop()
      reject(error)
    }
    const onClose = () => {
      stop()
      reject(prematureClose())
    }
    const stop = () => {
      request.off('data', onData)
      request.off('end', onEnd)
      request.off('error', onError)
      request.off('close', onClose)
    }
    request.on('data', onData)
    request.on('end', onEnd)
    request.on('error', onError)
    request.on('close', onClose)
  })
}

const EMPTY_BODY = new Uint8Array(0)

function prematureClose(): Error {
  return Object.assign(new Error('the request closed before its body ended'), { code: 'ERR_STREAM_PREMATURE_CLOSE' })
}
