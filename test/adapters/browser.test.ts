/**
 * Browser use in headless Chromium: a page served on one loopback origin calls the gateway on
 * another port with the read-only token (CORS preflight and all). A read works, a write is
 * refused with NOPERM, and an origin that is not allowed cannot read anything.
 *
 * Skipped (with the reason) when Chromium is not installed, except under CI=true, where it fails.
 * Debian/Ubuntu package: `chromium`.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { existsSync } from 'node:fs'
import type { Browser, Page } from 'playwright-core'
import { createNodeHandler } from '../../src/adapters/node.js'
import { MemoryExecutor } from '../../src/executor/memory/memory-executor.js'
import { listen } from '../support/http.js'

const CHROMIUM = process.env.CHROMIUM_BIN || '/usr/bin/chromium'
const available = existsSync(CHROMIUM)
const skipReason = available || process.env.CI === 'true' ? null : `${CHROMIUM} not found (apt-get install -y chromium)`

const TOKEN = 'browser-standard'
const READONLY = 'browser-readonly'
const PAGE = '<!doctype html><html><head><meta charset="utf-8"><title>restis</title></head><body>restis browser test</body></html>'

describe.skipIf(skipReason !== null)(`from a browser page on another origin${skipReason ? ` (skipped: ${skipReason})` : ''}`, () => {
  const executor = new MemoryExecutor()
  let browser: Browser
  let page: Page
  let app: Awaited<ReturnType<typeof listen>>
  let other: Awaited<ReturnType<typeof listen>>
  let gateway: Awaited<ReturnType<typeof listen>>

  beforeAll(async () => {
    const servePage = (_req: unknown, res: import('node:http').ServerResponse) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
      res.end(PAGE)
    }
    app = await listen(servePage)
    other = await listen(servePage)
    gateway = await listen(createNodeHandler({ executor, token: TOKEN, readonlyToken: READONLY, cors: { origins: [app.url] } }))
    await executor.exec(['SET', 'greeting', 'hello from restis'])
    const { chromium } = await import('playwright-core')
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    })
    page = await browser.newPage()
  }, 60_000)
  afterAll(async () => {
    await browser?.close()
    await gateway?.close()
    await app?.close()
    await other?.close()
    await executor.close()
  })

  /** Runs fetch in the page: status, JSON body, and the exposed sync-token header. */
  const fetchFromPage = (url: string, init: { method?: string; token: string; body?: string }) =>
    page.evaluate(
      async ({ url, init }) => {
        try {
          const response = await fetch(url, { method: init.method ?? 'GET', headers: { authorization: `Bearer ${init.token}` }, body: init.body })
          return { status: response.status, body: await response.json(), syncToken: response.headers.get('service-sync-token') }
        } catch (error) {
          return { failed: String(error) }
        }
      },
      { url, init },
    )

  test('the read-only token reads across origins; the page sees the sync token', async () => {
    await page.goto(app.url)
    const read = await fetchFromPage(`${gateway.url}/get/greeting`, { token: READONLY })
    expect(read).toMatchObject({ status: 200, body: { result: 'hello from restis' } })
    expect((read as { syncToken: string }).syncToken).toBeTruthy()
  })

  test('a write with the read-only token is refused with NOPERM, readable by the page; nothing is written', async () => {
    await page.goto(app.url)
    const write = await fetchFromPage(`${gateway.url}/set/greeting/defaced`, { method: 'POST', token: READONLY })
    expect(write).toMatchObject({ status: 400, body: { error: "NOPERM this user has no permissions to run the 'set' command" } })
    const json = await fetchFromPage(`${gateway.url}/`, { method: 'POST', token: READONLY, body: '["DEL","greeting"]' })
    expect(json).toMatchObject({ status: 400, body: { error: "NOPERM this user has no permissions to run the 'del' command" } })
    expect(Buffer.from((await executor.exec(['GET', 'greeting'])) as Uint8Array).toString()).toBe('hello from restis')
  })

  test('a page on an origin that is not allowed cannot read the answer', async () => {
    await page.goto(other.url)
    const blocked = await fetchFromPage(`${gateway.url}/get/greeting`, { token: READONLY })
    expect(blocked).toHaveProperty('failed')
  })
})
