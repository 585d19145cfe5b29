/**
 * The runs a bulk cancel covers (`DELETE /v2/workflows/runs` without `workflowRunIds`, the
 * workflow SDK's `client.cancel({filter})` / `cancel({all: true})`): running runs matching the
 * SDK's cancel filters, newest first, at most `count` (default 100) per call. `workflowUrl` is a
 * prefix unless `workflowUrlExactMatch=true` (the SDK sends that for `filter.workflowUrl`, and a
 * prefix for `filter.workflowUrlStartingWith`).
 */
import { labelsOf, parseFilter, type FilterName } from './filters.js'
import { loadOrigins } from './message-subjects.js'
import { StoreError, text, type QueueStore } from './store.js'
import type { Reply } from '../reply.js'

const CANCEL_FILTERS: readonly FilterName[] = ['fromDate', 'toDate', 'callerIp', 'label', 'flowControlKey', 'host', 'path', 'workflowUrl', 'workflowUrlExactMatch']
const DEFAULT_COUNT = 100

/** Ids of the running runs the query selects. */
export async function runsToCancel(store: QueueStore, query: URLSearchParams): Promise<string[]> {
  const filter = parseFilter(query, CANCEL_FILTERS, ['count', 'cursor'], 'the bulk run cancel (DELETE /v2/workflows/runs)', true)
  const countText = query.get('count')
  const count = countText === null ? DEFAULT_COUNT : Number(countText)
  if (!Number.isInteger(count) || count < 1 || count > 1000) throw new StoreError(`invalid count ${JSON.stringify(countText)}: an integer from 1 to 1000`, 400)
  const ids = ((await store.call(['ZREVRANGE', store.runsKey, '0', '-1'])) as Reply[]).map((id) => text(id)!)
  const running = (await store.loadRuns(ids)).filter((run) => run.state === 'RUN_STARTED')
  const origins = await loadOrigins(store, running.map((run) => run.initMessageId))
  const inits = new Map((await store.loadMessages(running.map((run) => run.initMessageId))).map((message) => [message.id, message]))
  const selected: string[] = []
  for (const [index, run] of running.entries()) {
    const subject = {
      time: run.createdAt,
      workflowUrl: run.url,
      labels: labelsOf(run.label),
      callerIp: origins[index].callerIp,
      flowControlKey: inits.get(run.initMessageId)?.flowControl?.key,
    }
    if (!filter.accepts(subject)) continue
    selected.push(run.id)
    if (selected.length === count) break
  }
  return selected
}
