/**
 * `restis --resp-port`: the RESP port answers the REST API too (the direct database-port mode),
 * with the same tokens, beside RESP clients.
 */

import { afterAll, describe, expect, test } from 'vitest'
import { RawClient, show } from '../executor/socket/support.js'
import { startCli, stop, type Cli } from './cli-process.js'

describe('restis --resp-port serves HTTP too', () => {
  let cli: Cli | undefined
  afterAll(async () => {
    if (cli !== undefined) await stop(cli.child, 'SIGKILL')
  })

  test('curl-style requests and RESP clients on the one port, each with the token', async () => {
    cli = startCli(['--resp-port', '0', '--token', 'tok', '--no-persistence'])
    const { respPort } = await cli.ready
    expect(cli.output()).toContain(`the RESP port serves HTTP too: http://127.0.0.1:${respPort}\n`)
    const base = `http://127.0.0.1:${respPort}`
    const set = await fetch(`${base}/set/both/http`, { headers: { authorization: 'Bearer tok' } })
    expect(await set.json()).toEqual({ result: 'OK' })
    expect((await fetch(`${base}/get/both`)).status).toBe(401)
    const client = await RawClient.connect(respPort!)
    try {
      expect(show(await client.call('AUTH', 'tok'))).toBe('+OK')
      expect(show(await client.call('GET', 'both'))).toBe('http')
    } finally {
      client.destroy()
    }
    expect(await stop(cli.child, 'SIGTERM')).toBe(0)
    cli = undefined
  }, 60_000)
})
