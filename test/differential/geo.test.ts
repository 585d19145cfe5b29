import { runDifferential } from './harness.js'
import { geoCases } from './geo.cases.js'
import { geoSequenceCases } from './geo.sequences.js'

runDifferential('geo', geoCases)
runDifferential('geo seeded points', geoSequenceCases)
