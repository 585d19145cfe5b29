/**
 * The dashboard: its JSON API, and the page itself in headless Chromium (text asserted in the
 * DOM, screenshots written to a temp dir and checked to be real PNGs). Without Chromium the
 * browser suite is skipped with the reason in its name, except under CI=true where it fails.
 */
import { existsSync } from 'node:fs'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { chromium, type Browser } from 'playwright-core'
import { serve } from '../../src/workflow/index.js'
import { Counter, listenFetch, startQueue, TOKEN, type Listening } from './support.js'
import type { QueueService, RunDetail } from '../../src/queue/index.js'

const CHROMIUM = process.env.CHROMIUM_BIN || '/usr/bin/chromium'
const chromiumSkipReason = existsSync(CHROMIUM) || process.env.CI === 'true' ? undefined : `${CHROMIUM} not found (apt-get install -y chromium)`
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
]

let queue: QueueService & { url: string }
let endpoint: Listening
let runId: string
let detail: RunDetail
const auth = { authorization: `Bearer ${TOKEN}` }

beforeAll(async () => {
  queue = await startQueue()
  const counter = new Counter()
  endpoint = await listenFetch(
    serve<{ order: string }>(
      async (context) => {
        const reserved = await context.run('reserve stock', () => ({ order: context.requestPayload.order, items: 2 }))
        const charged = await context.run('charge card', () => {
          if (counter.hit('charge card') === 1) throw new Error('card network timeout')
          return { amount: reserved.items * 21 }
        })
        return context.run('send receipt', () => `receipt for ${charged.amount}`)
      },
      { queueUrl: queue.url, token: TOKEN, env: {} },
    ),
  )
  const response = await fetch(`${endpoint.url}/api/workflow`, { method: 'POST', body: JSON.stringify({ order: 'A-17' }), headers: { 'x-shop': 'berlin' } })
  runId = ((await response.json()) as { workflowRunId: string }).workflowRunId
  detail = await queue.waitForRun(runId)
})
afterAll(async () => {
  await endpoint?.close()
  await queue?.close()
})

describe('dashboard JSON API', () => {
  test('GET /v2/dashboard/runs lists runs, newest first, with state and step count', async () => {
    const answer = await (await fetch(`${queue.url}/v2/dashboard/runs`, { headers: auth })).json()
    expect(answer.total).toBe(1)
    expect(answer.runs[0]).toMatchObject({ workflowRunId: runId, state: 'RUN_SUCCESS', url: `${endpoint.url}/api/workflow`, steps: 4, payload: '{"order":"A-17"}' })
  })

  test('GET /v2/dashboard/runs/<id> gives every step with name, status, headers and body', async () => {
    const answer = (await (await fetch(`${queue.url}/v2/dashboard/runs/${runId}`, { headers: auth })).json()) as RunDetail
    expect(answer.run.result).toBe('"receipt for 42"')
    expect(answer.steps.map((step) => [step.stepId, step.stepName, step.stepType, step.status, step.attempts])).toEqual([
      [0, 'init', 'Initial', 'delivered', 1],
      [1, 'reserve stock', 'Run', 'delivered', 2],
      [2, 'charge card', 'Run', 'delivered', 1],
      [3, 'send receipt', 'Run', 'delivered', 1],
    ])
    expect(answer.steps.map((step) => step.ranStep)).toEqual(['reserve stock', 'charge card', 'send receipt', '(end of run)'])
    expect(answer.steps[0].headers['x-shop']).toBe('berlin')
    expect(answer.steps[2].headers['x-shop']).toBe('berlin')
    expect(JSON.parse(answer.steps[2].body)).toEqual({ stepId: 2, stepName: 'charge card', stepType: 'Run', out: '{"amount":42}', concurrent: 1 })
  })

  test('GET /v2/dashboard/messages/<id> gives the attempt log with statuses and timings', async () => {
    const reserve = detail.steps[1]
    const answer = await (await fetch(`${queue.url}/v2/dashboard/messages/${reserve.messageId}`, { headers: auth })).json()
    expect(answer.message.stepName).toBe('reserve stock')
    expect(answer.message.ranStep).toBe('charge card')
    expect(answer.log.map((entry: { outcome: string; status?: number }) => [entry.outcome, entry.status])).toEqual([
      ['created', undefined],
      ['retry', 500],
      ['delivered', 200],
    ])
    expect(answer.log[1].responseBody).toContain('card network timeout')
    expect(typeof answer.log[1].durationMs).toBe('number')
  })

  test('the API needs the token; the page itself carries no data', async () => {
    expect((await fetch(`${queue.url}/v2/dashboard/runs`)).status).toBe(401)
    const page = await fetch(`${queue.url}/dashboard`)
    expect(page.status).toBe(200)
    expect(await page.text()).not.toContain(runId)
  })
})

describe.skipIf(chromiumSkipReason !== undefined)(`dashboard page in headless Chromium${chromiumSkipReason ? ` (skipped: ${chromiumSkipReason})` : ''}`, () => {
  let browser: Browser
  let shots: string
  beforeAll(async () => {
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true })
    shots = await mkdtemp(join(tmpdir(), 'restis-dashboard-'))
  })
  afterAll(async () => {
    await browser?.close()
    if (shots && !process.env.KEEP_SHOTS) await rm(shots, { recursive: true, force: true })
    else if (shots) console.log('screenshots in', shots)
  })

  async function expectPng(path: string): Promise<void> {
    const png = await readFile(path)
    expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))
    expect(png.length).toBeGreaterThan(5_000)
  }

  test('lists runs, opens a run with its steps, opens a step with its attempt log', async () => {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } })
    try {
      await page.goto(`${queue.url}/dashboard?_token=${TOKEN}`)
      const row = page.locator(`tr.run-row[data-run-id="${runId}"]`)
      await row.waitFor()
      expect(await row.innerText()).toContain('RUN_SUCCESS')
      expect(new URL(page.url()).search).toBe('') // the token left the address bar
      await page.screenshot({ path: join(shots, 'runs.png'), fullPage: true })
      await expectPng(join(shots, 'runs.png'))

      await row.click()
      await page.locator('#steps').waitFor()
      expect(await page.locator('#run-state').innerText()).toBe('RUN_SUCCESS')
      const names = await page.locator('#steps .step-name').allInnerTexts()
      expect(names).toEqual(['reserve stock', 'charge card', 'send receipt'])
      expect(await page.locator('#steps .step-status').allInnerTexts()).toEqual(['succeeded', 'succeeded', 'succeeded'])
      expect(await page.locator('#steps .step-attempts').allInnerTexts()).toEqual(['1', '2', '1'])
      // the output once decoded: an object, not the JSON text of a string
      expect(await page.locator('#steps .step-output').nth(1).innerText()).toContain('"amount": 42')
      expect(await page.locator('#steps .step-output').nth(2).innerText()).toBe('"receipt for 42"')
      expect(await page.locator('#steps .step-row').nth(1).locator('.step-error').innerText()).toContain('card network timeout')
      // headers are folded until opened
      const headers = page.locator('#steps .step-row').nth(0).locator('details')
      expect(await headers.getAttribute('open')).toBeNull()
      await headers.locator('summary').click()
      expect(await headers.locator('pre').innerText()).toContain('x-shop: berlin')
      await page.screenshot({ path: join(shots, 'run.png'), fullPage: true })
      await expectPng(join(shots, 'run.png'))

      await page.locator('#messages-details summary').click()
      await page.locator(`#messages .message-row[data-message-id="${detail.steps[1].messageId}"]`).click()
      await page.locator('#log').waitFor()
      expect(await page.locator('#step-name').innerText()).toBe('reserve stock')
      expect(await page.locator('#ran-step').innerText()).toBe('charge card')
      const outcomes = await page.locator('#log .log-row td:nth-child(4)').allInnerTexts()
      expect(outcomes).toEqual(['created', 'retry', 'delivered'])
      const logText = await page.locator('#log').innerText()
      expect(logText).toContain('500')
      expect(logText).toContain('card network timeout')
      await page.locator('details[data-key="msg-headers"] summary').click()
      expect(await page.locator('details[data-key="msg-headers"] pre').innerText()).toContain('upstash-workflow-sdk-version: 1')
      await page.screenshot({ path: join(shots, 'step.png'), fullPage: true })
      await expectPng(join(shots, 'step.png'))
    } finally {
      await page.close()
    }
  })

  test('without a token the page asks for one', async () => {
    const page = await browser.newPage()
    try {
      await page.goto(`${queue.url}/dashboard`)
      await page.locator('#login').waitFor()
      expect(await page.locator('#login').isVisible()).toBe(true)
      await page.fill('#token', TOKEN)
      await page.click('#login button')
      await page.locator(`tr.run-row[data-run-id="${runId}"]`).waitFor()
    } finally {
      await page.close()
    }
  })
})
