/**
 * Headless Chromium for the dashboard's browser tests (Debian's `/usr/bin/chromium`, driven over
 * the DevTools protocol by playwright-core): the skip reason when it is missing (a failure under
 * CI=true), pages that accept confirmation dialogs and keep their text, and screenshots checked
 * to be real, non-trivial PNGs.
 */
import { existsSync } from 'node:fs'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { expect } from 'vitest'
import { chromium, type Browser, type Page } from 'playwright-core'

const CHROMIUM = process.env.CHROMIUM_BIN || '/usr/bin/chromium'

/** Why the browser suites are skipped, or undefined when Chromium is there (or CI demands it). */
export const chromiumSkipReason = existsSync(CHROMIUM) || process.env.CI === 'true' ? undefined : `${CHROMIUM} not found (apt-get install -y chromium)`

const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync']

export interface DashboardBrowser {
  /**
   * A page on `url` whose confirmation dialogs are accepted; their texts collect in `dialogs`.
   * `before` runs before the page loads (to route its requests).
   */
  open(url: string, before?: (page: Page) => Promise<void>): Promise<{ page: Page; dialogs: string[] }>
  /** A full-page screenshot, checked to be a PNG of some size. */
  shot(page: Page, name: string): Promise<void>
  close(): Promise<void>
}

export async function launchDashboardBrowser(): Promise<DashboardBrowser> {
  const browser: Browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS, headless: true })
  const shots = await mkdtemp(join(tmpdir(), 'restis-dashboard-'))
  return {
    async open(url, before) {
      const page = await browser.newPage({ viewport: { width: 1400, height: 900 } })
      page.setDefaultTimeout(10_000)
      const dialogs: string[] = []
      page.on('dialog', (dialog) => {
        dialogs.push(dialog.message())
        void dialog.accept()
      })
      await before?.(page)
      await page.goto(url)
      return { page, dialogs }
    },
    async shot(page, name) {
      const path = join(shots, `${name}.png`)
      await page.screenshot({ path, fullPage: true })
      const png = await readFile(path)
      expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))
      expect(png.length).toBeGreaterThan(5_000)
    },
    async close() {
      await browser.close()
      if (process.env.KEEP_SHOTS) console.log('screenshots in', shots)
      else await rm(shots, { recursive: true, force: true })
    },
  }
}
