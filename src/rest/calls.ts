/**
 * One function per kind of call the REST protocol has: a single command, a pipeline, a
 * transaction (`/multi-exec`), and the `/monitor` and `/subscribe` event streams. Each admits its
 * commands, takes them from the limits, runs them and renders the result; errors are values
 * ({@link RestError}) until the response.
 */
import { ReplyError, type Command, type Reply } from '../reply.js'
import { NOPERM_CHANNEL, NOPERM_KEY } from '../commands/errors.js'
import type { CallContext, Executor, PubSubEvent } from '../executor/executor.js'
import type { Principal } from '../auth/tokens.js'
import { checkPermission, noPermission } from '../auth/permissions.js'
import type { RequestAuth } from '../auth/user-tokens.js'
import type { HttpResponse } from '../adapters/http.js'
import { MAX_DAILY_REQUESTS, RestError } from './errors.js'
import { eventStream, type SseOptions } from './sse.js'
import { isWriteRow, type Admission, type Row } from './admission.js'
import { renderSlice, replyTooLarge, type Format, type Responses } from './responses.js'
import type { Call } from './request.js'

/** What every call needs of the gateway. */
export interface CallRuntime {
  readonly executor: Executor
  /** Largest reply rendered for one request, bytes. */
  readonly maxReplyBytes: number
  readonly admission: Admission
  readonly auth: RequestAuth
  readonly responses: Responses
  readonly sse: SseOptions | undefined
}

/** Who asks, in which format, with which executor context. */
export interface Caller {
  readonly principal: Principal
  readonly format: Format
  readonly context: CallContext
}

type CallOf<T extends Call['type']> = Extract<Call, { type: T }>

const utf8 = new TextDecoder()

/** Counts a write for the sync token once a command that writes is about to run. */
function countWrites(runtime: CallRuntime, rows: readonly Row[]): void {
  if (rows.some(isWriteRow)) runtime.responses.wrote()
}

export async function runCommand(runtime: CallRuntime, call: CallOf<'command'>, caller: Caller): Promise<HttpResponse> {
  const { admission, responses, auth } = runtime
  const row = admission.admit(caller.principal, call.command)
  if (row.refusal !== null) return responses.fail(row.refusal)
  if (!admission.charge(caller.principal, 'command', 1)) return responses.fail(MAX_DAILY_REQUESTS)
  if (isWriteRow(row)) responses.wrote()
  const reply = row.local ? await auth.restToken(row.command, caller.principal) : await runtime.executor.exec(row.command, caller.context)
  if (auth.watchesAcl) auth.noticeAclChanges([row.command])
  return responses.reply(reply, caller.format, runtime.maxReplyBytes)
}

/** Rows of a pipeline admitted, run and rendered together, before the event loop gets a turn. */
export const PIPELINE_SLICE_ROWS = 1024

/** Lets the event loop run (I/O of other clients) before the next slice. */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => (typeof setImmediate === 'function' ? setImmediate(resolve) : setTimeout(resolve, 0)))
}

/**
 * A pipeline in slices of {@link PIPELINE_SLICE_ROWS} rows: each slice is admitted, charged, run
 * and rendered, then other clients get a turn. A pipeline is not atomic, so commands of other
 * clients may run between slices as they may between its rows on Redis. The rendered replies are
 * counted against `maxReplyBytes`: once past it, no further slice runs and the answer says how
 * many commands ran.
 */
export async function runPipeline(runtime: CallRuntime, call: CallOf<'pipeline'>, caller: Caller, body: Uint8Array | undefined): Promise<HttpResponse> {
  const { admission, auth } = runtime
  const { commands } = call
  const pieces: (string | Uint8Array)[] = []
  let replyBytes = 0
  let taken = 0
  for (let start = 0; start < commands.length; start += PIPELINE_SLICE_ROWS) {
    if (start > 0) await nextTurn()
    const rows = admission.admitAll(caller.principal, commands.slice(start, start + PIPELINE_SLICE_ROWS), body)
    taken += admission.takeRows(rows)
    countWrites(runtime, rows)
    const replies = await pipelineReplies(runtime, rows, caller)
    if (auth.watchesAcl) auth.noticeAclChanges(rows.filter((row) => row.refusal === null).map((row) => row.command))
    const piece = renderSlice(replies, caller.format)
    replyBytes += typeof piece === 'string' ? Buffer.byteLength(piece) : piece.length
    if (replyBytes > runtime.maxReplyBytes) {
      admission.recordRows(caller.principal, taken)
      return runtime.responses.fail(replyTooLarge(runtime.maxReplyBytes, { rows: start + rows.length, of: commands.length }))
    }
    pieces.push(piece)
  }
  admission.recordRows(caller.principal, taken)
  return runtime.responses.slicedReplies(pieces, caller.format)
}

/** A pipeline's rows in order: runs of executor rows go as one pipeline, gateway rows between them. */
async function pipelineReplies(runtime: CallRuntime, rows: readonly Row[], caller: Caller): Promise<Reply[]> {
  const { executor } = runtime
  const { context } = caller
  if (rows.every((row) => row.refusal === null && !row.local)) {
    return executor.pipeline(
      rows.map((row) => row.command),
      context,
    )
  }
  const replies: Reply[] = new Array(rows.length)
  let batch: number[] = []
  const flush = async (): Promise<void> => {
    if (batch.length === 0) return
    const indices = batch
    batch = []
    const out = await executor.pipeline(
      indices.map((i) => rows[i].command),
      context,
    )
    indices.forEach((index, k) => (replies[index] = out[k]))
  }
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i]
    if (row.refusal !== null) replies[i] = new ReplyError(row.refusal.message)
    else if (row.local) {
      await flush()
      replies[i] = await runtime.auth.restToken(row.command, caller.principal)
    } else batch.push(i)
  }
  await flush()
  return replies
}

export async function runTransaction(runtime: CallRuntime, call: CallOf<'transaction'>, caller: Caller, body: Uint8Array | undefined): Promise<HttpResponse> {
  const { admission, responses, auth } = runtime
  const rows = admission.admitAll(caller.principal, call.commands, body)
  for (const row of rows) if (row.refusal !== null) return responses.fail(row.refusal)
  // An ACL user needs MULTI and EXEC. Asked first: a server that refuses MULTI would run the
  // commands sent after it one by one, outside any transaction.
  if (rows.some((row) => !row.local)) {
    const refused = await dryRun(runtime, caller.principal, ['MULTI'], ['EXEC'])
    if (refused !== null) return responses.fail(refused)
  }
  if (!admission.charge(caller.principal, 'transaction', rows.length)) return responses.fail(MAX_DAILY_REQUESTS)
  countWrites(runtime, rows)
  const remote = rows.filter((row) => !row.local)
  const out = remote.length > 0 ? await runtime.executor.transaction(remote.map((row) => row.command), caller.context) : []
  if (out instanceof ReplyError) return responses.fail(new RestError(400, out.message))
  auth.noticeAclChanges(remote.map((row) => row.command))
  // ACL RESTTOKEN rows are answered after the transaction ran: they see its ACL changes.
  let next = 0
  const replies: Reply[] = []
  for (const row of rows) replies.push(row.local ? await auth.restToken(row.command, caller.principal) : out[next++])
  return responses.replies(replies, { ...caller.format, resp2: false }, runtime.maxReplyBytes) // /multi-exec answers JSON only
}

export async function runMonitor(runtime: CallRuntime, caller: Caller): Promise<HttpResponse> {
  const { admission, responses, executor } = runtime
  const denied = checkPermission(caller.principal, ['MONITOR'])
  if (denied !== null) return responses.fail(new RestError(400, denied))
  const refused = await dryRun(runtime, caller.principal, ['MONITOR'])
  if (refused !== null) return responses.fail(refused)
  if (!admission.charge(caller.principal, 'monitor', 1)) return responses.fail(MAX_DAILY_REQUESTS)
  return responses.stream(
    eventStream(async (emit, signal) => {
      emit('"OK"')
      await executor.monitor((event) => emit(event.line), signal, caller.context)
    }, runtime.sse),
  )
}

export async function runSubscribe(runtime: CallRuntime, call: CallOf<'subscribe'>, caller: Caller): Promise<HttpResponse> {
  const { admission, responses, executor } = runtime
  const { kind, names } = call
  const refused = await dryRun(runtime, caller.principal, [kind === 'channel' ? 'SUBSCRIBE' : 'PSUBSCRIBE', ...names])
  if (refused !== null) return responses.fail(refused)
  if (!admission.charge(caller.principal, 'subscribe', 1)) return responses.fail(MAX_DAILY_REQUESTS)
  return responses.stream(
    eventStream((emit, signal) => executor.subscribe({ kind, names }, (event) => emit(formatPubSubEvent(event)), signal, caller.context), runtime.sse),
  )
}

/**
 * Whether an ACL user may run `command` (MONITOR, SUBSCRIBE to these channels, MULTI): asked
 * with `ACL DRYRUN` before a stream or a transaction starts, so a refusal is a 400 with Redis's
 * NOPERM text rather than a stream that ends at once. When the gateway's own connection may not
 * run ACL DRYRUN, the executor's own refusal stands.
 */
async function dryRun(runtime: CallRuntime, principal: Principal, ...commands: Command[]): Promise<RestError | null> {
  if (principal.kind !== 'user') return null
  const { user } = principal
  const verdicts = await runtime.executor.pipeline(commands.map((command) => ['ACL', 'DRYRUN', user, ...command]))
  for (let i = 0; i < commands.length; i++) {
    const verdict = verdicts[i]
    if (!(verdict instanceof Uint8Array)) continue
    const sentence = utf8.decode(verdict)
    if (sentence.includes("' channel")) return new RestError(400, NOPERM_CHANNEL.message)
    if (sentence.includes("' key")) return new RestError(400, NOPERM_KEY.message)
    const name = commands[i][0]
    return new RestError(400, noPermission((typeof name === 'string' ? name : utf8.decode(name)).toLowerCase()))
  }
  return null
}

/** The SSE payloads of the protocol: `subscribe,<channel>,<count>`, `message,<channel>,<text>` … @public */
export function formatPubSubEvent(event: PubSubEvent): string {
  switch (event.type) {
    case 'subscribe':
    case 'psubscribe':
    case 'ssubscribe':
    case 'sunsubscribe':
      return `${event.type},${utf8.decode(event.channel)},${event.count}`
    case 'message':
    case 'smessage':
      return `${event.type},${utf8.decode(event.channel)},${utf8.decode(event.message)}`
    case 'pmessage':
      return `pmessage,${utf8.decode(event.pattern)},${utf8.decode(event.channel)},${utf8.decode(event.message)}`
  }
}
