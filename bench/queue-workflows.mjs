/**
 * Load of the queue with the official `@upstash/workflow` SDK: BENCH_WF_RUNS concurrent runs
 * (default 1,000) against `restis queue` (a real process built from src/), each run doing
 *   run "before" → context.sleep("nap", BENCH_WF_SLEEP s) → context.call (a third party on
 *   node:http, POST, answers JSON) → run "after" → return
 * with the SDK's `serve()` endpoint on node:http in this process (deliveries signed by the queue
 * and verified by the SDK's Receiver). All runs are triggered at once (`Client.trigger`, 50
 * requests in flight), then the bench waits for every run to end.
 *
 * Figures per queue mode:
 * - runs/s: runs divided by the time from the first trigger to the last run's end;
 * - dispatch delay of a due step: for every message of every run (start, steps, the sleep's
 *   resumption, the call, its callback), the first arrival of the delivery at its destination
 *   minus the moment it became due (`dueAt` in the queue's run detail: the creation time, or the
 *   end of the sleep); p50 / p99 / max, and the same for the sleep's resumption alone;
 * - redeliveries: deliveries beyond the first of a message (at-least-once delivery), and step
 *   bodies that ran more than once (should be 0);
 * - CPU per run of the queue process (from /proc) and of this process (the SDK endpoint, the
 *   third party and the bench): on a shared 2-core machine they show which side is the limit.
 * Modes: state in memory (`--no-persistence`), the default (append-only file, appendfsync
 * always), and `--redis` on a redis-server (the peer: the same queue over real Redis).
 *
 * Env: BENCH_WF_RUNS (1000), BENCH_WF_SLEEP (2, seconds), BENCH_WF_DEADLINE (240, seconds per
 * mode: a mode that does not finish by then is reported as such and the bench goes on),
 * BENCH_WF_MODES (indexes of the modes to run, e.g. `0,2`; default all).
 * Run: nice -n -10 node bench/queue-workflows.mjs
 */

import { createServer } from 'node:http'
import { Client as QueueClient, Receiver } from '@upstash/qstash'
import { Client as WorkflowClient, serve } from '@upstash/workflow'
import { envNumber, fmt, inFlight, main, QUEUE_MODES, saveResults, startQueueProcess, table } from './lib.mjs'

const RUNS = envNumber('BENCH_WF_RUNS', 1000)
const SLEEP_S = envNumber('BENCH_WF_SLEEP', 2)
const DEADLINE_S = envNumber('BENCH_WF_DEADLINE', 240)
const TOKEN = 'bench-wf-token'
const KEYS = ['sig_bench_wf_current', 'sig_bench_wf_next']

const MODES = [QUEUE_MODES.memory, QUEUE_MODES.aofAlways, QUEUE_MODES.redis]

/** A Fetch handler on node:http; `onArrival(messageId)` sees each request as it arrives. */
async function listenFetch(handler, onArrival) {
  const server = createServer(async (request, response) => {
    onArrival(request.headers['upstash-message-id'])
    const chunks = []
    for await (const chunk of request) chunks.push(chunk)
    const url = `http://127.0.0.1:${server.address().port}${request.url}`
    const headers = new Headers()
    for (const [name, value] of Object.entries(request.headers)) if (typeof value === 'string') headers.set(name, value)
    const body = request.method === 'GET' || request.method === 'HEAD' ? undefined : Buffer.concat(chunks)
    try {
      const answer = await handler(new Request(url, { method: request.method, headers, body }))
      response.writeHead(answer.status, Object.fromEntries(answer.headers))
      response.end(Buffer.from(await answer.arrayBuffer()))
    } catch (error) {
      response.writeHead(500)
      response.end(String(error))
    }
  })
  server.keepAliveTimeout = 65_000
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    close: () =>
      new Promise((resolve) => {
        server.close(resolve)
        server.closeAllConnections()
      }),
  }
}

function percentile(sorted, p) {
  return sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.ceil((sorted.length * p) / 100) - 1)]
}

/** The queue's run detail of every run (20 requests in flight). */
async function runDetails(queue, runIds) {
  const details = []
  await inFlight(runIds.length, 20, async (index) => {
    const answer = await fetch(`${queue.url}/v2/dashboard/runs/${runIds[index]}`, { headers: { authorization: `Bearer ${TOKEN}` } })
    details.push(await answer.json())
  })
  return details
}

async function workflowLoad(queue) {
  const arrivals = new Map() // message id → first arrival (ms); repeats counted
  let redeliveries = 0
  const onArrival = (messageId) => {
    if (typeof messageId !== 'string') return
    if (arrivals.has(messageId)) redeliveries++
    else arrivals.set(messageId, Date.now())
  }
  const bodies = new Map() // `${runId}/${step}` → times the step body ran
  const ran = (runId, step) => bodies.set(`${runId}/${step}`, (bodies.get(`${runId}/${step}`) ?? 0) + 1)
  const upstream = await listenFetch(async (request) => {
    const { n } = await request.json()
    return Response.json({ doubled: n * 2 })
  }, onArrival)
  let wrong = 0
  const returned = new Set()
  let allReturned
  const everyRunReturned = new Promise((resolve) => (allReturned = resolve))
  const { handler } = serve(
    async (context) => {
      const { index } = context.requestPayload
      const before = await context.run('before', () => {
        ran(context.workflowRunId, 'before')
        return index + 1
      })
      await context.sleep('nap', SLEEP_S)
      const call = await context.call('double', { url: `${upstream.url}/double`, method: 'POST', body: JSON.stringify({ n: before }), headers: { 'content-type': 'application/json' } })
      const result = await context.run('after', () => {
        ran(context.workflowRunId, 'after')
        return call.body.doubled + 1
      })
      if (result !== (index + 1) * 2 + 1) wrong++
      returned.add(context.workflowRunId)
      if (returned.size === RUNS) allReturned()
      return result
    },
    {
      qstashClient: new QueueClient({ baseUrl: queue.url, token: TOKEN }),
      receiver: new Receiver({ currentSigningKey: KEYS[0], nextSigningKey: KEYS[1] }),
      env: {},
    },
  )
  const endpoint = await listenFetch(handler, onArrival)
  const client = new WorkflowClient({ baseUrl: queue.url, token: TOKEN })
  const runIds = []
  try {
    const started = performance.now()
    await inFlight(RUNS, 50, async (index) => {
      const { workflowRunId } = await client.trigger({ url: `${endpoint.url}/wf`, body: { index }, retries: 3 })
      runIds.push(workflowRunId)
    })
    let timer
    const outOfTime = new Promise((resolve) => (timer = setTimeout(resolve, DEADLINE_S * 1000)))
    await Promise.race([everyRunReturned, outOfTime])
    clearTimeout(timer)
    const seconds = (performance.now() - started) / 1000
    // the queue ends a run when the endpoint answers its last delivery: wait for the records
    let details = []
    for (let pass = 0; pass < 50; pass++) {
      details = await runDetails(queue, runIds)
      if (details.every((detail) => detail.run?.state !== 'RUN_STARTED')) break
      await new Promise((resolve) => setTimeout(resolve, 200))
    }
    const delays = []
    const sleepDelays = []
    let missing = 0
    let retried = 0
    let succeeded = 0
    for (const detail of details) {
      if (detail.run?.state === 'RUN_SUCCESS') succeeded++
      for (const step of detail.steps ?? []) {
        const arrived = arrivals.get(step.messageId)
        if (arrived === undefined) {
          if (step.kind !== 'failure') missing++
          continue
        }
        // a retried message's dueAt is its last retry's: only first-attempt deliveries are timed
        if (step.attempts > 1) {
          retried++
          continue
        }
        delays.push(arrived - step.dueAt)
        if (step.stepType === 'SleepFor') sleepDelays.push(arrived - step.dueAt)
      }
    }
    delays.sort((a, b) => a - b)
    sleepDelays.sort((a, b) => a - b)
    const repeatedBodies = [...bodies.values()].filter((count) => count > 1).length
    return { seconds, runsPerSecond: RUNS / seconds, succeeded, wrong, delays, sleepDelays, redeliveries, retried, repeatedBodies, missing, bodies: bodies.size }
  } finally {
    await endpoint.close()
    await upstream.close()
  }
}

await main('bench:queue-workflows', async () => {
  const rows = []
  const results = []
  const only = process.env.BENCH_WF_MODES?.split(',')
  for (const mode of MODES.filter((_, index) => !only || only.includes(String(index)))) {
    const queue = await startQueueProcess(mode, { token: TOKEN, signingKeys: KEYS })
    try {
      const cpuStart = queue.cpuMs()
      const ownStart = process.cpuUsage()
      const load = await workflowLoad(queue)
      const cpu = queue.cpuMs() - cpuStart
      const own = process.cpuUsage(ownStart)
      const endpointCpuMsPerRun = (own.user + own.system) / 1000 / RUNS
      const line = {
        mode: mode.name,
        runsPerSecond: load.runsPerSecond,
        seconds: load.seconds,
        succeeded: load.succeeded,
        wrongResults: load.wrong,
        deliveries: load.delays.length,
        p50: percentile(load.delays, 50),
        p99: percentile(load.delays, 99),
        max: load.delays.at(-1),
        sleepP99: percentile(load.sleepDelays, 99),
        sleepMax: load.sleepDelays.at(-1),
        redeliveries: load.redeliveries,
        repeatedBodies: load.repeatedBodies,
        neverDelivered: load.missing,
        cpuMsPerRun: cpu / RUNS,
        endpointCpuMsPerRun,
      }
      results.push(line)
      console.log(
        `${mode.name}: ${load.succeeded}/${RUNS} runs succeeded in ${fmt(load.seconds, 1)} s = ${fmt(load.runsPerSecond, 1)} runs/s; ` +
          `dispatch delay of ${load.delays.length} due messages p50 ${fmt(line.p50)} ms, p99 ${fmt(line.p99)} ms, max ${fmt(line.max)} ms; ` +
          `sleep resumption p99 ${fmt(line.sleepP99)} ms; ${load.redeliveries} redeliveries (${load.retried} messages retried), ${load.repeatedBodies} step bodies run twice, ` +
          `${load.wrong} wrong results, ${load.missing} messages never delivered; queue CPU ${fmt(line.cpuMsPerRun, 1)} ms/run, endpoint (SDK, this process) CPU ${fmt(endpointCpuMsPerRun, 1)} ms/run`,
      )
      rows.push([mode.name, `${load.succeeded}/${RUNS}`, fmt(load.runsPerSecond, 1), fmt(line.p50), fmt(line.p99), fmt(line.max), fmt(line.sleepP99), String(load.redeliveries), String(load.repeatedBodies), fmt(line.cpuMsPerRun, 1), fmt(endpointCpuMsPerRun, 1)])
    } finally {
      await queue.stop()
    }
  }
  const header = ['restis queue state', 'runs ok', 'runs/s', 'dispatch p50 ms', 'dispatch p99 ms', 'dispatch max ms', 'sleep resume p99 ms', 'redeliveries', 'steps run twice', 'queue CPU ms/run', 'endpoint CPU ms/run']
  console.log(`\n${RUNS} concurrent @upstash/workflow runs (run, sleep ${SLEEP_S} s, call, run):\n${table(header, rows)}`)
  saveResults('queue-workflows', { runs: RUNS, sleepSeconds: SLEEP_S, header, rows, results })
})
