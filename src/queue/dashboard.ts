/**
 * The dashboard page: plain HTML and a little JS over the JSON API (`/v2/dashboard/…`). The page
 * itself holds no data; it asks for the queue token (or takes `?_token=` once, keeps it in
 * sessionStorage and removes it from the address bar) and sends it as a Bearer token.
 * Every value is inserted with textContent, never as HTML.
 */
export const dashboardHtml = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>restis queue</title>
<style>
  :root { font-family: system-ui, sans-serif; color: #1b1f24; background: #f6f7f9; }
  body { margin: 0; }
  header { background: #20252d; color: #fff; padding: 10px 20px; display: flex; gap: 16px; align-items: baseline; }
  header h1 { font-size: 18px; margin: 0; }
  header a { color: #9cc3ff; }
  main { padding: 16px 20px; }
  table { border-collapse: collapse; width: 100%; background: #fff; }
  th, td { text-align: left; padding: 6px 8px; border-bottom: 1px solid #e3e6ea; font-size: 13px; vertical-align: top; }
  th { background: #eef0f3; }
  tr.clickable { cursor: pointer; }
  tr.clickable:hover { background: #f0f5ff; }
  .state { font-weight: 600; }
  .RUN_SUCCESS, .delivered { color: #137333; }
  .RUN_FAILED, .failed { color: #b3261e; }
  .RUN_STARTED, .pending, .delivering { color: #8a5a00; }
  .RUN_CANCELED, .canceled { color: #5f6368; }
  pre { background: #f3f4f6; padding: 8px; margin: 4px 0; white-space: pre-wrap; word-break: break-all; font-size: 12px; max-height: 240px; overflow: auto; }
  .muted { color: #6b7280; }
  .error { color: #b3261e; }
  section { margin-bottom: 18px; }
  h2 { font-size: 16px; }
  button { font: inherit; }
</style>
</head>
<body>
<header><h1>restis queue</h1><a href="#" id="home">runs</a><span class="muted" id="status"></span></header>
<main>
  <form id="login" hidden>
    <p>Queue token: <input id="token" type="password" size="40" autocomplete="off"> <button type="submit">Open</button></p>
  </form>
  <div id="view"></div>
</main>
<script>
(() => {
  const params = new URLSearchParams(location.search)
  if (params.has('_token')) {
    sessionStorage.setItem('restis-queue-token', params.get('_token'))
    params.delete('_token')
    history.replaceState(null, '', location.pathname + (params.toString() ? '?' + params : '') + location.hash)
  }
  const view = document.getElementById('view')
  const status = document.getElementById('status')
  const login = document.getElementById('login')
  let timer
  const token = () => sessionStorage.getItem('restis-queue-token')
  const el = (tag, props = {}, ...children) => {
    const node = document.createElement(tag)
    for (const [key, value] of Object.entries(props)) {
      if (key === 'class') node.className = value
      else if (key === 'onclick') node.addEventListener('click', value)
      else if (key.startsWith('data-')) node.setAttribute(key, value)
      else node[key] = value
    }
    for (const child of children) node.append(child instanceof Node ? child : document.createTextNode(child === undefined || child === null ? '' : String(child)))
    return node
  }
  const time = (ms) => (ms ? new Date(Number(ms)).toLocaleString() : '')
  const api = async (path) => {
    const response = await fetch(path, { headers: { authorization: 'Bearer ' + token() } })
    if (response.status === 401) { sessionStorage.removeItem('restis-queue-token'); showLogin(); throw new Error('unauthorized') }
    const body = await response.json()
    if (!response.ok) throw new Error(body.error || response.statusText)
    return body
  }
  const showLogin = () => { login.hidden = false; view.replaceChildren() }
  login.addEventListener('submit', (event) => {
    event.preventDefault()
    sessionStorage.setItem('restis-queue-token', document.getElementById('token').value)
    login.hidden = true
    render()
  })
  document.getElementById('home').addEventListener('click', (event) => { event.preventDefault(); location.hash = '' })
  const table = (id, head, rows) => el('table', { id }, el('thead', {}, el('tr', {}, ...head.map((h) => el('th', {}, h)))), el('tbody', {}, ...rows))
  const pretty = (text) => { try { return JSON.stringify(JSON.parse(text), null, 2) } catch { return text } }
  const headersText = (headers) => Object.entries(headers || {}).map(([k, v]) => k + ': ' + v).join('\\n')

  async function runsView() {
    const data = await api('/v2/dashboard/runs?count=100')
    const rows = data.runs.map((run) => el('tr', { class: 'clickable run-row', 'data-run-id': run.workflowRunId, onclick: () => { location.hash = 'run=' + encodeURIComponent(run.workflowRunId) } },
      el('td', {}, el('code', {}, run.workflowRunId)), el('td', { class: 'state ' + run.state }, run.state), el('td', {}, run.url), el('td', {}, time(run.createdAt)), el('td', {}, run.steps)))
    view.replaceChildren(el('h2', {}, 'Workflow runs (' + data.total + ')'), rows.length ? table('runs', ['Run', 'State', 'Endpoint', 'Created', 'Steps'], rows) : el('p', { id: 'runs', class: 'muted' }, 'No runs yet.'))
  }

  async function runView(id) {
    const data = await api('/v2/dashboard/runs/' + encodeURIComponent(id))
    const run = data.run
    const rows = []
    for (const step of data.steps) {
      rows.push(el('tr', { class: 'clickable step-row', 'data-message-id': step.messageId, onclick: () => { location.hash = 'msg=' + encodeURIComponent(step.messageId) } },
        el('td', {}, step.stepId ?? ''), el('td', { class: 'step-name' }, step.stepName), el('td', {}, step.stepType), el('td', { class: 'ran-step' }, step.ranStep ?? ''), el('td', { class: 'state ' + step.status }, step.status),
        el('td', {}, step.attempts + ' / ' + (step.maxRetries + 1)), el('td', {}, step.lastStatus ?? ''), el('td', {}, el('pre', {}, headersText(step.headers))), el('td', {}, el('pre', {}, pretty(step.body)))))
    }
    view.replaceChildren(
      el('h2', {}, 'Run ', el('code', { id: 'run-id' }, run.workflowRunId)),
      el('p', {}, 'State: ', el('span', { class: 'state ' + run.state, id: 'run-state' }, run.state), ' · endpoint ', run.url, ' · created ', time(run.createdAt), run.finishedAt ? ' · finished ' + time(run.finishedAt) : ''),
      run.error ? el('p', { class: 'error' }, 'Error: ' + run.error) : '',
      run.failureCallback ? el('p', {}, 'Failure callback: ' + run.failureCallback) : '',
      el('section', {}, el('h3', {}, 'Payload'), el('pre', {}, pretty(run.payload))),
      run.result !== undefined ? el('section', {}, el('h3', {}, 'Result'), el('pre', {}, pretty(run.result))) : '',
      el('h3', {}, 'Steps'),
      el('p', { class: 'muted' }, 'Each row is a message of the run: a step\u2019s result (its body) on its way back to the endpoint. Delivering it replays the steps so far and runs the next one, named in \u201cDelivery ran\u201d; open a row for the attempts.'),
      table('steps', ['#', 'Name', 'Type', 'Delivery ran', 'Status', 'Attempts', 'HTTP', 'Headers', 'Body'], rows))
  }

  async function messageView(id) {
    const data = await api('/v2/dashboard/messages/' + encodeURIComponent(id))
    const m = data.message
    const rows = data.log.map((entry) => el('tr', { class: 'log-row' },
      el('td', {}, entry.attempt), el('td', {}, time(entry.at)), el('td', {}, entry.durationMs === undefined ? '' : entry.durationMs + ' ms'),
      el('td', { class: 'state ' + (entry.outcome === 'delivered' ? 'delivered' : entry.outcome === 'failed' ? 'failed' : 'pending') }, entry.outcome),
      el('td', {}, entry.status ?? ''), el('td', {}, entry.error ?? ''), el('td', {}, entry.nextAttemptAt ? time(entry.nextAttemptAt) : ''),
      el('td', {}, el('pre', {}, (entry.responseBody ?? '').slice(0, 2000)))))
    view.replaceChildren(
      el('h2', {}, 'Step ', el('span', { id: 'step-name' }, m.stepName), ' ', el('span', { class: 'muted' }, '(' + m.stepType + ')')),
      el('p', {}, m.runId ? el('a', { href: '#run=' + encodeURIComponent(m.runId) }, 'back to run ' + m.runId) : ''),
      m.ranStep ? el('p', {}, 'This delivery ran: ', el('strong', { id: 'ran-step' }, m.ranStep)) : '',
      el('p', {}, 'Status: ', el('span', { class: 'state ' + m.status, id: 'step-status' }, m.status), ' · ', m.method, ' ', m.url, ' · attempts ', m.attempts, ' of ', m.maxRetries + 1, m.note ? ' · ' + m.note : ''),
      el('section', {}, el('h3', {}, 'Headers'), el('pre', { id: 'step-headers' }, headersText(m.headers))),
      el('section', {}, el('h3', {}, 'Body'), el('pre', { id: 'step-body' }, pretty(m.body))),
      el('h3', {}, 'Attempts'),
      table('log', ['Attempt', 'Started', 'Took', 'Outcome', 'HTTP', 'Error', 'Next attempt', 'Response'], rows))
  }

  async function render() {
    clearTimeout(timer)
    if (!token()) return showLogin()
    const hash = new URLSearchParams(location.hash.slice(1))
    try {
      if (hash.has('run')) await runView(hash.get('run'))
      else if (hash.has('msg')) await messageView(hash.get('msg'))
      else await runsView()
      status.textContent = 'updated ' + new Date().toLocaleTimeString()
    } catch (error) {
      status.textContent = String(error.message || error)
    }
    timer = setTimeout(render, 2000)
  }
  window.addEventListener('hashchange', render)
  render()
})()
</script>
</body>
</html>
`
