/**
 * The dashboard page, assembled from its sources: the shell (styles, navigation, token form) and
 * the scripts inlined at its `<!-- scripts -->` marker, so the queue serves one self-contained
 * document. The `.html` sources are text imports (the build's `text` loader, vitest's plugin).
 */
import shell from './shell.html'
import core from './core.html'
import runs from './runs.html'
import admin from './admin.html'

const START = '<script>dash.render(true); dash.connect()</script>\n'

/** The whole page, as `GET /dashboard` serves it. */
export const dashboardPage: string = shell.replace('<!-- scripts -->', () => core + runs + admin + START)
