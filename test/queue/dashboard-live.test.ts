/**
 * Live updates of the dashboard in headless Chromium: with a page open, a run advances (notified
 * through the API, not the page) and the page shows its new step without reloading; a run
 * triggered elsewhere appears in the open run list, and what the user typed in the filters stays.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { Page } from 'playwright-core'
import { Client as WorkflowClient, type WorkflowContext } from '@upstash/workflow'
import { createWorkflow, serveMany } from '@upstash/workflow/cloudflare'
import { Client as SdkQueueClient, Receiver } from '@upstash/qstash'
import { listenFetch, startQueue, TOKEN, type Listening } from './support.js'
import { chromiumSkipReason, launchDashboardBrowser, type DashboardBrowser } from './dashboard-browser.js'
import type { QueueService } from '../../src/queue/index.js'

type Queue = QueueService & { url: string }
type Ctx = WorkflowContext<Record<string, unknown>>

describe.skipIf(chromiumSkipReason !== undefined)(`dashboard live updates in headless Chromium${chromiumSkipReason ? ` (skipped: ${chromiumSkipReason})` : ''}`, () => {
  let queue: Queue
  let endpoint: Listening
  let browser: DashboardBrowser
  let workflows: WorkflowClient

  const trigger = async (eventId: string) => (await workflows.trigger({ url: `${endpoint.url}/api/waiter`, body: { eventId } })).workflowRunId
  /** Marks the document, so a reload (which would drop the mark) is detected. */
  const mark = (page: Page) => page.evaluate(() => ((window as unknown as { loadMark: number }).loadMark = 42))
  const marked = (page: Page) => page.evaluate(() => (window as unknown as { loadMark?: number }).loadMark)

  beforeAll(async () => {
    queue = await startQueue()
    const qstash = new SdkQueueClient({ baseUrl: queue.url, token: TOKEN })
    workflows = new WorkflowClient({ baseUrl: queue.url, token: TOKEN })
    const waiter = createWorkflow(async (context: Ctx) => {
      const prepared = await context.run('prepare', () => ({ box: 'small' }))
      const event = await context.waitForEvent('await pickup', context.requestPayload.eventId as string, { timeout: 600 })
      return context.run('hand over', () => ({ ...prepared, courier: (event.eventData as { courier: string }).courier }))
    })
    const { fetch: handler } = serveMany({ waiter } as never, { qstashClient: qstash, receiver: new Receiver({ currentSigningKey: queue.signingKeys.current, nextSigningKey: queue.signingKeys.next }) } as never) as unknown as {
      fetch: (request: Request, env: object) => Promise<Response>
    }
    endpoint = await listenFetch((request) => handler(request, {}))
    browser = await launchDashboardBrowser()
  }, 60_000)
  afterAll(async () => {
    await browser?.close()
    await endpoint?.close()
    await queue?.close()
  })

  test('the open run page shows the run advancing, without a reload', async () => {
    const runId = await trigger('pickup-1')
    const { page } = await browser.open(`${queue.url}/dashboard?_token=${TOKEN}#run?id=${runId}`)
    try {
      await page.locator('#steps .step-row[data-status="waiting"]').waitFor()
      await page.locator('#live.on').waitFor()
      expect(await page.locator('#steps .step-name').allInnerTexts()).toEqual(['prepare', 'await pickup'])
      await browser.shot(page, 'live-before')
      await mark(page)
      const notified = await fetch(`${queue.url}/v2/notify/pickup-1`, { method: 'POST', body: JSON.stringify({ courier: 'lin' }), headers: { authorization: `Bearer ${TOKEN}` } })
      expect(await notified.json()).toHaveLength(1)
      await page.locator('#steps .step-row:has(.step-name:text-is("hand over"))').waitFor()
      await page.locator('#run-state.RUN_SUCCESS').waitFor()
      expect(await page.locator('#steps .step-status').allInnerTexts()).toEqual(['succeeded', 'succeeded', 'succeeded'])
      expect(await page.locator('#steps .step-output').last().innerText()).toContain('"courier": "lin"')
      expect(await marked(page)).toBe(42)
      await browser.shot(page, 'live-after')
    } finally {
      await page.close()
    }
  })

  test('the open run list shows a run triggered elsewhere; typed filter text stays', async () => {
    const { page } = await browser.open(`${queue.url}/dashboard?_token=${TOKEN}#runs`)
    try {
      await page.locator('#runs .run-row').first().waitFor()
      await page.locator('#live.on').waitFor()
      await mark(page)
      await page.fill('#filter-label', 'half-typed')
      const runId = await trigger('pickup-2')
      await page.locator(`#runs .run-row[data-run-id="${runId}"]`).waitFor()
      expect(await page.locator('#runs .run-row').first().getAttribute('data-run-id')).toBe(runId)
      expect(await page.inputValue('#filter-label')).toBe('half-typed')
      expect(await marked(page)).toBe(42)
    } finally {
      await page.close()
    }
  })
})
