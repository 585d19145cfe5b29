/**
 * Deduplication of published messages: `Upstash-Deduplication-Id: <id>` or
 * `Upstash-Content-Based-Deduplication: true` (the id is then a digest of the destination, the
 * forwarded headers and the body). The first message with an id is scheduled; another with the
 * same id within the window is answered with the first one's message id and
 * `deduplicated: true`, and nothing is scheduled. The claim is one `SET … NX PX … GET` in the
 * executor, so processes sharing one Redis deduplicate against each other.
 */
import { createHash } from 'node:crypto'
import { randomId, StoreError, text, type QueueStore } from './store.js'

export const DEDUPLICATION_ID_HEADER = 'Upstash-Deduplication-Id'
export const CONTENT_BASED_DEDUPLICATION_HEADER = 'Upstash-Content-Based-Deduplication'

/** How long a deduplication id is remembered by default: 10 minutes. */
export const DEFAULT_DEDUPLICATION_WINDOW_MS = 10 * 60_000

/**
 * The deduplication id a message asks for, or undefined. Throws a 400 {@link StoreError} for a
 * malformed header (an empty id, a content-based flag other than true/false).
 */
export function deduplicationIdOf(destination: string, headers: Headers, forwarded: Record<string, string>, body: Uint8Array): string | undefined {
  const explicit = headers.get(DEDUPLICATION_ID_HEADER)
  if (explicit !== null) {
    if (explicit.trim() === '') throw new StoreError(`invalid ${DEDUPLICATION_ID_HEADER}: empty`, 400)
    return `id:${explicit}`
  }
  const contentBased = headers.get(CONTENT_BASED_DEDUPLICATION_HEADER)
  if (contentBased === null || contentBased === 'false') return undefined
  if (contentBased !== 'true') throw new StoreError(`invalid ${CONTENT_BASED_DEDUPLICATION_HEADER} ${JSON.stringify(contentBased)}: true or false`, 400)
  const hash = createHash('sha256')
  hash.update(destination).update('\0')
  for (const name of Object.keys(forwarded).sort()) hash.update(name).update(':').update(forwarded[name]).update('\0')
  hash.update(body)
  return `content:${hash.digest('base64url')}`
}

/**
 * Claims `dedupId` for a new message id. Returns `{ messageId, duplicate: false }` to schedule
 * under that id, or the first message's id with `duplicate: true`.
 */
export async function claimDeduplication(store: QueueStore, dedupId: string, windowMs: number): Promise<{ messageId: string; duplicate: boolean }> {
  const messageId = randomId('msg')
  const previous = await store.call(['SET', `${store.prefix}dedup:${dedupId}`, messageId, 'NX', 'PX', String(windowMs), 'GET'])
  return previous === null ? { messageId, duplicate: false } : { messageId: text(previous)!, duplicate: true }
}
