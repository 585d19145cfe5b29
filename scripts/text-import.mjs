/**
 * `node --import ./scripts/text-import.mjs …` (or `tsx --import …`): lets Node import the source's
 * `.lua` and `.html` files as text when it runs the TypeScript directly (`npm start`). The build
 * inlines them instead.
 */
import { register } from 'node:module'

register('./text-hooks.mjs', import.meta.url)
