/**
 * The dashboard in headless Chromium: every page opened, screenshot taken and its rows' text
 * checked, and every action clicked, with its effect on the queue checked through the API
 * (cancelled run, notified run resumed, dead letter resumed / restarted / retried / deleted,
 * message deleted, schedule paused / resumed / deleted, queue paused / resumed / deleted, URL
 * group endpoint removed and group deleted), and a refused action showing the queue's error text.
 * Runs come from the real `@upstash/workflow` SDK; schedules, queues and URL groups from the
 * real `@upstash/qstash` client.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { Page } from 'playwright-core'
import { Client as WorkflowClient, WorkflowNonRetryableError, type WorkflowContext } from '@upstash/workflow'
import { createWorkflow, serveMany } from '@upstash/workflow/cloudflare'
import { Client as SdkQueueClient, Receiver } from '@upstash/qstash'
import { listenFetch, startQueue, TOKEN, until, type Listening } from './support.js'
import { chromiumSkipReason, launchDashboardBrowser, type DashboardBrowser } from './dashboard-browser.js'
import type { QueueService } from '../../src/queue/index.js'

type Queue = QueueService & { url: string }
type Ctx = WorkflowContext<Record<string, unknown>>
const auth = { authorization: `Bearer ${TOKEN}` }

describe.skipIf(chromiumSkipReason !== undefined)(`dashboard actions in headless Chromium${chromiumSkipReason ? ` (skipped: ${chromiumSkipReason})` : ''}`, () => {
  let queue: Queue
  let endpoint: Listening
  let browser: DashboardBrowser
  let qstash: SdkQueueClient
  let workflows: WorkflowClient
  /** Whether the `fragile` workflow's step throws (turned off to let a resumed run through). */
  let fragileFails = true
  /** Whether the `guarded` workflow's failure function throws; what it was called with. */
  let failureFunctionFails = true
  const failureCalls: string[] = []

  const api = async <T = unknown>(path: string, init: RequestInit = {}): Promise<T> => {
    const response = await fetch(`${queue.url}${path}`, { ...init, headers: { ...auth, ...(init.headers as Record<string, string>) } })
    const text = await response.text()
    return (text ? JSON.parse(text) : undefined) as T
  }
  const runState = async (id: string) => (await queue.runs.get(id))?.run.state
  const dlqIds = async () => (await api<{ messages: { dlqId: string }[] }>('/v2/dlq')).messages.map((message) => message.dlqId)
  const trigger = async (name: string, body: unknown) => (await workflows.trigger({ url: `${endpoint.url}/api/${name}`, body, retries: 0 })).workflowRunId

  /** Opens the dashboard on `hash` with the token, and waits for `selector`. */
  async function open(hash: string, selector: string, before?: (page: Page) => Promise<void>): Promise<{ page: Page; dialogs: string[] }> {
    const opened = await browser.open(`${queue.url}/dashboard?_token=${TOKEN}#${hash}`, before)
    await opened.page.locator(selector).first().waitFor()
    return opened
  }
  /** Clicks an action and waits for the page's notice of it. */
  async function click(page: Page, selector: string): Promise<string> {
    await page.locator('#notice').evaluate((node) => ((node as HTMLElement).hidden = true))
    await page.locator(selector).first().click()
    await page.locator('#notice:not([hidden])').waitFor()
    return page.locator('#notice').innerText()
  }
  /** A failed run with its dead letter. */
  async function failedRun(): Promise<{ runId: string; dlqId: string }> {
    fragileFails = true
    const runId = await trigger('fragile', { order: 'B-2' })
    const detail = await queue.waitForRun(runId)
    expect(detail.run.state).toBe('RUN_FAILED')
    const dlqId = await until(async () => (await api<{ dlqId?: string }>(`/v2/dashboard/runs/${runId}`)).dlqId)
    return { runId, dlqId }
  }

  beforeAll(async () => {
    queue = await startQueue()
    qstash = new SdkQueueClient({ baseUrl: queue.url, token: TOKEN })
    workflows = new WorkflowClient({ baseUrl: queue.url, token: TOKEN })
    const options = { qstashClient: qstash, receiver: new Receiver({ currentSigningKey: queue.signingKeys.current, nextSigningKey: queue.signingKeys.next }) }
    const waiter = createWorkflow(async (context: Ctx) => {
      const event = await context.waitForEvent('await approval', context.requestPayload.eventId as string, { timeout: 600 })
      return context.run('after approval', () => event.eventData)
    })
    const fragile = createWorkflow(async (context: Ctx) => {
      await context.run('reserve', () => 'reserved')
      return context.run('ship', () => {
        if (fragileFails) throw new WorkflowNonRetryableError('courier refused the parcel')
        return 'shipped'
      })
    })
    const guarded = createWorkflow(
      async (context: Ctx) => {
        await context.run('charge', () => {
          throw new WorkflowNonRetryableError('card declined')
        })
      },
      {
        failureFunction: async ({ failResponse }: { failResponse: string }) => {
          failureCalls.push(failResponse)
          if (failureFunctionFails) throw new Error('failure handler down')
        },
      } as never,
    )
    const { fetch: handler } = serveMany({ waiter, fragile, guarded } as never, options as never) as unknown as { fetch: (request: Request, env: object) => Promise<Response> }
    endpoint = await listenFetch((request) => handler(request, {}))
    browser = await launchDashboardBrowser()
  }, 60_000)
  afterAll(async () => {
    await browser?.close()
    await endpoint?.close()
    await queue?.close()
  })

  test('run page: notify the awaited event; the run resumes and succeeds', async () => {
    const runId = await trigger('waiter', { eventId: 'approve-7' })
    const { page } = await open(`run?id=${runId}`, '#steps .step-row[data-status="waiting"]')
    try {
      expect(await page.locator('#steps .step-name').allInnerTexts()).toEqual(['await approval'])
      await browser.shot(page, 'run-waiting')
      await page.locator('.notify .event-data').fill('{"approvedBy":"ada"}')
      expect(await click(page, '.notify button')).toContain('done')
      const detail = await queue.waitForRun(runId)
      expect(detail.run.state).toBe('RUN_SUCCESS')
      expect(JSON.parse(detail.run.result!)).toEqual({ approvedBy: 'ada' })
      // the page shows the resumed run: the output of the wait, decoded
      await page.locator('#run-state.RUN_SUCCESS').waitFor()
      expect(await page.locator('#steps .step-name').allInnerTexts()).toEqual(['await approval', 'after approval'])
      expect(await page.locator('#steps .step-output').first().innerText()).toContain('"approvedBy": "ada"')
    } finally {
      await page.close()
    }
  })

  test('run page: cancel asks first, then the run is cancelled', async () => {
    const runId = await trigger('waiter', { eventId: 'never-8' })
    const { page, dialogs } = await open(`run?id=${runId}`, '#steps .step-row[data-status="waiting"]')
    try {
      expect(await click(page, '[data-action="cancel"]')).toContain('Cancel run: done')
      expect(dialogs).toEqual([`Cancel run ${runId}?`])
      expect(await runState(runId)).toBe('RUN_CANCELED')
      await page.locator('#run-state.RUN_CANCELED').waitFor()
    } finally {
      await page.close()
    }
  })

  test('run page of a failed run: the error text, then resume from the failed step', async () => {
    const { runId, dlqId } = await failedRun()
    const { page } = await open(`run?id=${runId}`, '#steps .step-row[data-status="failed"]')
    try {
      expect(await page.locator('#steps .step-row[data-status="failed"] .step-error').innerText()).toContain('courier refused the parcel')
      await browser.shot(page, 'run-failed')
      fragileFails = false
      expect(await click(page, '[data-action="resume"]')).toContain('done')
      const detail = await queue.waitForRun(runId)
      expect(detail.run.state).toBe('RUN_SUCCESS')
      expect(await dlqIds()).not.toContain(dlqId)
      await page.locator('#run-state.RUN_SUCCESS').waitFor()
    } finally {
      await page.close()
    }
  })

  test('run page of a failed run: restart makes a new run from the first step', async () => {
    const { runId, dlqId } = await failedRun()
    const before = new Set((await queue.runs.list(0, 1000)).runs.map((run) => run.workflowRunId))
    const { page } = await open(`run?id=${runId}`, '[data-action="restart"]')
    try {
      fragileFails = false
      expect(await click(page, '[data-action="restart"]')).toContain('done')
      const restarted = await until(async () => (await queue.runs.list(0, 1000)).runs.find((run) => !before.has(run.workflowRunId)))
      expect(restarted.payload).toBe('{"order":"B-2"}')
      expect((await queue.waitForRun(restarted.workflowRunId)).run.state).toBe('RUN_SUCCESS')
      expect(await dlqIds()).not.toContain(dlqId)
    } finally {
      await page.close()
    }
  })

  test('run page of a failed run: retry and delete the dead letter', async () => {
    const first = await failedRun()
    const { page, dialogs } = await open(`run?id=${first.runId}`, '[data-action="dlq-retry"]')
    try {
      fragileFails = false
      expect(await click(page, '[data-action="dlq-retry"]')).toContain('done')
      expect((await queue.waitForRun(first.runId)).run.state).toBe('RUN_SUCCESS')
      expect(await dlqIds()).not.toContain(first.dlqId)
    } finally {
      await page.close()
    }
    const second = await failedRun()
    const again = await open(`run?id=${second.runId}`, '[data-action="dlq-delete"]')
    try {
      expect(await click(again.page, '[data-action="dlq-delete"]')).toContain('done')
      expect(again.dialogs[0]).toContain(`Delete dead letter ${second.dlqId}?`)
      expect(await dlqIds()).not.toContain(second.dlqId)
      expect(await runState(second.runId)).toBe('RUN_FAILED')
    } finally {
      await again.page.close()
    }
    expect(dialogs).toEqual([])
  })

  test('run page of a run whose failure function failed: retry the failure function', async () => {
    failureFunctionFails = true
    failureCalls.length = 0
    const runId = await trigger('guarded', { order: 'C-3' })
    await until(async () => ((await queue.runs.get(runId))?.run.failureCallback === 'failed' ? true : undefined), 20_000, 'the failure callback to fail')
    const { page } = await open(`run?id=${runId}`, '[data-action="failure-retry"]')
    try {
      expect(failureCalls).toEqual(['card declined'])
      failureFunctionFails = false
      expect(await click(page, '[data-action="failure-retry"]')).toContain('done')
      await until(async () => ((await queue.runs.get(runId))?.run.failureCallback === 'delivered' ? true : undefined), 10_000, 'the failure callback delivered')
      expect(failureCalls).toEqual(['card declined', 'card declined'])
      expect(await runState(runId)).toBe('RUN_FAILED')
    } finally {
      await page.close()
    }
  })

  test('DLQ page: rows with the error text; retry and delete from the list', async () => {
    const one = await failedRun()
    const two = await failedRun()
    const { page } = await open('dlq', `#dlq .dlq-row[data-dlq-id="${one.dlqId}"]`)
    try {
      expect(await page.locator(`.dlq-row[data-dlq-id="${one.dlqId}"] .dlq-error`).innerText()).toBe('courier refused the parcel')
      await browser.shot(page, 'dlq')
      expect(await click(page, `.dlq-row[data-dlq-id="${two.dlqId}"] [data-action="delete"]`)).toContain('done')
      expect(await dlqIds()).not.toContain(two.dlqId)
      fragileFails = false
      expect(await click(page, `.dlq-row[data-dlq-id="${one.dlqId}"] [data-action="retry"]`)).toContain('done')
      expect((await queue.waitForRun(one.runId)).run.state).toBe('RUN_SUCCESS')
      await page.locator(`.dlq-row[data-dlq-id="${one.dlqId}"]`).waitFor({ state: 'detached' })
    } finally {
      await page.close()
    }
  })

  test('runs page: the state filter is applied by the server; open a run', async () => {
    const { page } = await open('runs', '#runs .run-row')
    try {
      await browser.shot(page, 'runs')
      await page.selectOption('#filter-state', 'RUN_CANCELED')
      await page.click('#run-filters button[type="submit"]')
      await page.waitForFunction(() => location.hash.includes('state=RUN_CANCELED'))
      await page.locator('#runs .run-row').first().waitFor()
      const states = await page.locator('#runs .run-row td:nth-child(2)').allInnerTexts()
      expect(states.length).toBeGreaterThan(0)
      expect(new Set(states)).toEqual(new Set(['RUN_CANCELED']))
      const canceled = (await api<{ runs: { workflowRunId: string }[] }>('/v2/dashboard/runs?state=RUN_CANCELED')).runs.map((run) => run.workflowRunId)
      expect(await page.locator('#runs .run-row').evaluateAll((rows) => rows.map((row) => (row as HTMLElement).dataset.runId))).toEqual(canceled)
      await page.locator('#runs .run-row').first().click()
      await page.locator('#run-state').waitFor()
      expect(await page.locator('#run-state').innerText()).toBe('RUN_CANCELED')
    } finally {
      await page.close()
    }
  })

  test('messages page: a delayed message is listed and deleted', async () => {
    const { messageId } = await qstash.publishJSON({ url: `${endpoint.url}/later`, body: { remind: 'me' }, delay: 3600 })
    const { page, dialogs } = await open('messages', `#pending .message-row[data-message-id="${messageId}"]`)
    try {
      expect(await page.locator(`#pending .message-row[data-message-id="${messageId}"]`).innerText()).toContain('"remind": "me"')
      await browser.shot(page, 'messages')
      expect(await click(page, `.message-row[data-message-id="${messageId}"] [data-action="delete-message"]`)).toContain('done')
      expect(dialogs[0]).toContain(messageId)
      expect((await api<{ state: string }>(`/v2/messages/${messageId}`)).state).toBe('canceled')
    } finally {
      await page.close()
    }
  })

  test('schedules page: pause, resume, delete', async () => {
    const { scheduleId } = await qstash.schedules.create({ destination: `${endpoint.url}/tick`, cron: '0 3 * * *', body: 'tick' })
    const { page } = await open('schedules', `#schedules .schedule-row[data-schedule-id="${scheduleId}"]`)
    const row = `.schedule-row[data-schedule-id="${scheduleId}"]`
    try {
      await browser.shot(page, 'schedules')
      expect(await click(page, `${row} [data-action="pause"]`)).toContain('done')
      expect((await qstash.schedules.get(scheduleId)).isPaused).toBe(true)
      await page.locator(`${row} [data-action="resume"]`).waitFor()
      expect(await click(page, `${row} [data-action="resume"]`)).toContain('done')
      expect((await qstash.schedules.get(scheduleId)).isPaused).toBe(false)
      await page.locator(`${row} [data-action="pause"]`).waitFor()
      const other = await qstash.schedules.create({ destination: `${endpoint.url}/tock`, cron: '0 4 * * *' })
      await page.locator(`.schedule-row[data-schedule-id="${other.scheduleId}"]`).waitFor()
      expect(await click(page, `.schedule-row[data-schedule-id="${other.scheduleId}"] [data-action="delete"]`)).toContain('done')
      expect((await qstash.schedules.list()).map((schedule) => schedule.scheduleId)).not.toContain(other.scheduleId)
    } finally {
      await page.close()
    }
  })

  test('a refused action shows the queue’s own error text', async () => {
    const { scheduleId } = await qstash.schedules.create({ destination: `${endpoint.url}/tick`, cron: '0 5 * * *' })
    // without live updates the page keeps showing the schedule after it is deleted elsewhere
    const { page } = await open('schedules', `.schedule-row[data-schedule-id="${scheduleId}"]`, async (target) => {
      await target.route('**/v2/dashboard/stream', (route) => route.abort())
    })
    try {
      await qstash.schedules.delete(scheduleId)
      const refused = await click(page, `.schedule-row[data-schedule-id="${scheduleId}"] [data-action="pause"]`)
      const answer = await fetch(`${queue.url}/v2/schedules/${scheduleId}/pause`, { method: 'PATCH', headers: auth })
      expect(answer.status).toBe(404)
      expect(refused).toBe(`Pause refused: ${((await answer.json()) as { error: string }).error}`)
      expect(await page.locator('#notice').getAttribute('class')).toBe('error')
    } finally {
      await page.close()
    }
  })

  test('queues page: pause, resume, delete', async () => {
    await qstash.queue({ queueName: 'emails' }).upsert({ parallelism: 2 })
    const { page } = await open('queues', '#queues .queue-row[data-queue="emails"]')
    const row = '.queue-row[data-queue="emails"]'
    try {
      expect(await page.locator(row).innerText()).toContain('2')
      await browser.shot(page, 'queues')
      expect(await click(page, `${row} [data-action="pause"]`)).toContain('done')
      expect((await qstash.queue({ queueName: 'emails' }).get()).paused).toBe(true)
      await page.locator(`${row} [data-action="resume"]`).waitFor()
      expect(await click(page, `${row} [data-action="resume"]`)).toContain('done')
      expect((await qstash.queue({ queueName: 'emails' }).get()).paused).toBe(false)
      expect(await click(page, `${row} [data-action="delete"]`)).toContain('done')
      expect((await qstash.queue().list()).map((entry) => entry.name)).not.toContain('emails')
    } finally {
      await page.close()
    }
  })

  test('URL groups page: remove an endpoint, delete the group', async () => {
    await qstash.urlGroups.addEndpoints({ name: 'fanout', endpoints: [{ url: `${endpoint.url}/a` }, { url: `${endpoint.url}/b` }] })
    const { page } = await open('topics', '#topics .topic-row[data-topic="fanout"]')
    const row = '.topic-row[data-topic="fanout"]'
    try {
      expect(await page.locator(`${row} .endpoint`).count()).toBe(2)
      await browser.shot(page, 'url-groups')
      expect(await click(page, `${row} .endpoint:nth-child(2) [data-action="remove-endpoint"]`)).toContain('done')
      expect((await qstash.urlGroups.get('fanout')).endpoints.map((entry) => entry.url)).toEqual([`${endpoint.url}/a`])
      await until(async () => ((await page.locator(`${row} .endpoint`).count()) === 1 ? true : undefined))
      expect(await click(page, `${row} [data-action="delete"]`)).toContain('done')
      expect((await qstash.urlGroups.list()).map((group) => group.name)).not.toContain('fanout')
    } finally {
      await page.close()
    }
  })

  test('event log page: filters and the cursor of older pages', async () => {
    // enough events for a second page (50 a page), whichever tests ran before
    await qstash.batchJSON(Array.from({ length: 60 }, (_, index) => ({ url: `${endpoint.url}/later`, body: { index }, delay: 3600 })))
    const { page } = await open('events', '#events .event-row')
    try {
      await browser.shot(page, 'events')
      await page.selectOption('#event-state', 'CREATED')
      await page.click('#event-filters button[type="submit"]')
      await page.waitForFunction(() => location.hash.includes('state=CREATED'))
      await until(async () => {
        const states = await page.locator('#events .event-row td:nth-child(2)').allInnerTexts()
        return states.length > 0 && states.every((state) => state === 'CREATED') ? true : undefined
      })
      await page.click('#nav a[data-page="events"]')
      const total = (await api<{ events: unknown[] }>('/v2/events?count=1000')).events.length
      expect(total).toBeGreaterThan(50)
      await page.waitForFunction(() => !location.hash.includes('state='))
      await page.locator('#next-page').click()
      await page.waitForFunction(() => location.hash.includes('cursor='))
      await page.locator('#events .event-row').first().waitFor()
      const cursor = new URLSearchParams(new URL(page.url()).hash.split('?')[1]).get('cursor')
      const older = await api<{ events: { messageId: string; time: number }[] }>(`/v2/events?count=50&cursor=${cursor}`)
      await until(async () => ((await page.locator('#events .event-row').count()) === older.events.length ? true : undefined))
      expect(await page.locator('#events .event-row').evaluateAll((rows) => rows.map((row) => (row as HTMLElement).dataset.messageId))).toEqual(older.events.map((event) => event.messageId))
    } finally {
      await page.close()
    }
  })
})
