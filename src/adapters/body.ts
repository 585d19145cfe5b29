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
