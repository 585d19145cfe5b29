import { runDifferential } from './harness.js'
import { bitmapCases } from './bitmap.cases.js'

runDifferential('bitmap', bitmapCases)
