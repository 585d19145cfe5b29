/**
 * What durability costs the queue: `restis queue` (a real process, built from src/) with its state
 * in memory only (`--no-persistence`), and with the append-only file under each fsync policy
 * (`no`, `everysec`, `always`: the default), each round in a fresh temporary `--dir`.
 * - publish: BENCH_PUBLISHES `POST /v2/publish` from 16 clients (delayed an hour, so no delivery
 *   runs meanwhile): acknowledgements per second, p50 and p99 latency of one acknowledgement.
 * - workflow: BENCH_RUNS runs of BENCH_STEPS steps of restis `serveNode()` (in this process,
 *   requests signed and verified), 50 started at a time: runs per second to completion.
 * Each also gives the CPU time the queue process spent (from /proc) per publish and per run: on
 * a shared machine wall-clock rates mostly measure the scheduler, CPU time much less.
 * Modes alternate within a round; medians of BENCH_ROUNDS rounds.
 *
 * Env: BENCH_ROUNDS (3), BENCH_RUNS (300), BENCH_STEPS (5), BENCH_PUBLISHES (2000).
 * Run: node bench/queue.mjs
 */

import { createServer } from 'node:http'
import { benchBuild, envNumber, fmt, inFlight, main, median, QUEUE_MODES, saveResults, startQueueProcess, table } from './lib.mjs'

const ROUNDS = envNumber('BENCH_ROUNDS', 3)
const RUNS = envNumber('BENCH_RUNS', 300)
const STEPS = envNumber('BENCH_STEPS', 5)
const PUBLISHES = envNumber('BENCH_PUBLISHES', 2000)
const TOKEN = 'bench-token'
const KEYS = ['sig_bench_current', 'sig_bench_next']

const MODES = [QUEUE_MODES.memory, QUEUE_MODES.aofNo, QUEUE_MODES.aofEverysec, QUEUE_MODES.aofAlways]

function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))]
}

async function publishLoad(queue) {
  const latencies = []
  const started = performance.now()
  await inFlight(PUBLISHES, 16, async (index) => {
    const sent = performance.now()
    const response = await fetch(`${queue.url}/v2/publish/http://127.0.0.1:9/never/${index}`, {
      method: 'POST',
      body: `message ${index}`,
      headers: { authorization: `Bearer ${TOKEN}`, 'upstash-delay': '1h' },
    })
    await response.arrayBuffer()
    if (response.status !== 201) throw new Error(`publish answered ${response.status}`)
    latencies.push(performance.now() - sent)
  })
  const seconds = (performance.now() - started) / 1000
  latencies.sort((a, b) => a - b)
  return { perSecond: PUBLISHES / seconds, p50: percentile(latencies, 50), p99: percentile(latencies, 99) }
}

async function workflowLoad(queue) {
  const { serveNode } = await (await benchBuild()).import('workflow')
  let finished = 0
  let allDone
  const done = new Promise((resolve) => (allDone = resolve))
  const handler = serveNode(
    async (context) => {
      let total = 0
      for (let step = 1; step <= STEPS; step++) total += await context.run(`step ${step}`, () => step)
      if (++finished === RUNS) allDone()
      return total
    },
    { queueUrl: queue.url, token: TOKEN, currentSigningKey: KEYS[0], nextSigningKey: KEYS[1], env: {} },
  )
  const server = createServer(handler)
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  const endpoint = `http://127.0.0.1:${server.address().port}/workflow`
  try {
    const started = performance.now()
    await inFlight(RUNS, 50, async () => {
      // through the queue: the endpoint verifies that the queue signed each request
      const response = await fetch(`${queue.url}/v2/publish/${endpoint}`, { method: 'POST', body: '{}', headers: { authorization: `Bearer ${TOKEN}` } })
      await response.arrayBuffer()
      if (response.status !== 201) throw new Error(`start answered ${response.status}`)
    })
    await done
    return { runsPerSecond: RUNS / ((performance.now() - started) / 1000) }
  } finally {
    server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
  }
}

await main('bench:queue', async () => {
  const results = new Map(MODES.map((mode) => [mode.name, { perSecond: [], p50: [], p99: [], runsPerSecond: [], cpuPerPublish: [], cpuPerRun: [] }]))
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? MODES : [...MODES].reverse()
    for (const mode of order) {
      const queue = await startQueueProcess(mode, { token: TOKEN, signingKeys: KEYS })
      try {
        const cpuStart = queue.cpuMs()
        const publish = await publishLoad(queue)
        const cpuPublished = queue.cpuMs()
        const workflow = await workflowLoad(queue)
        const cpuEnd = queue.cpuMs()
        const entry = results.get(mode.name)
        entry.cpuPerPublish.push(((cpuPublished - cpuStart) * 1000) / PUBLISHES)
        entry.cpuPerRun.push((cpuEnd - cpuPublished) / RUNS)
        entry.perSecond.push(publish.perSecond)
        entry.p50.push(publish.p50)
        entry.p99.push(publish.p99)
        entry.runsPerSecond.push(workflow.runsPerSecond)
        console.log(`round ${round + 1}, ${mode.name}: ${fmt(publish.perSecond)} publishes/s (p50 ${fmt(publish.p50, 2)} ms, p99 ${fmt(publish.p99, 2)} ms), ${fmt(workflow.runsPerSecond, 1)} runs/s; queue CPU ${fmt(entry.cpuPerPublish.at(-1))} µs/publish, ${fmt(entry.cpuPerRun.at(-1), 1)} ms/run`)
      } finally {
        await queue.stop()
      }
    }
  }
  const rows = MODES.map((mode) => {
    const entry = results.get(mode.name)
    return [mode.name, fmt(median(entry.perSecond)), fmt(median(entry.p50), 2), fmt(median(entry.p99), 2), fmt(median(entry.cpuPerPublish)), fmt(median(entry.runsPerSecond), 1), fmt(median(entry.cpuPerRun), 1)]
  })
  const header = ['restis queue state', 'publishes/s (16 clients)', 'publish p50 ms', 'publish p99 ms', 'queue CPU µs/publish', `runs/s (${RUNS} runs of ${STEPS} steps)`, 'queue CPU ms/run']
  console.log(`\n${table(header, rows)}`)
  saveResults('queue', { rounds: ROUNDS, runs: RUNS, steps: STEPS, publishes: PUBLISHES, header, rows })
})
