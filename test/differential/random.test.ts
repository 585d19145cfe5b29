/**
 * Random differential testing: seeded command sequences (generator.ts) run through the memory
 * executor and a real redis-server, compared reply by reply. A divergence is shrunk to a minimal
 * sequence, printed with its seed so it can be replayed (`RANDOM_SEED=<seed> RANDOM_SEEDS=1`).
 *
 * Knobs (environment): RANDOM_SEED (first seed, default 1), RANDOM_SEEDS (default 40),
 * RANDOM_LENGTH (commands per seed, default 5000), RANDOM_FAMILIES (comma-separated families,
 * default all whose commands the engine implements), RANDOM_EXCLUDE (comma-separated command
 * names to leave out, e.g. `object|encoding`, to look past a known divergence).
 */
import { expect, test } from 'vitest'
import type { Executor } from '../../src/executor/executor.js'
import { handlers } from '../../src/executor/memory/commands/index.js'
import type { Reply } from '../../src/reply.js'
import { CATALOGUE, generateSequence, shrink, showCommand, type GeneratedCommand } from './generator.js'
import { compareReplies, describeDifferential, showReply } from './harness.js'

const FIRST_SEED = Number(process.env.RANDOM_SEED ?? 1)
const SEEDS = Number(process.env.RANDOM_SEEDS ?? 40)
const LENGTH = Number(process.env.RANDOM_LENGTH ?? 5000)
const FAMILIES = process.env.RANDOM_FAMILIES?.split(',').map((family) => family.trim())
const EXCLUDED = new Set(process.env.RANDOM_EXCLUDE?.split(',').map((name) => name.trim().toLowerCase()) ?? [])
/** Commands per pipeline round trip. */
const BATCH = 1000

/** The catalogue entries the engine implements (families still being built join as they land). */
const specs = CATALOGUE.filter(
  (entry) => handlers.has(entry.name) && !EXCLUDED.has(entry.name) && (FAMILIES === undefined || FAMILIES.includes(entry.family)),
)

interface Divergence {
  /** Index of the first command whose replies differ. */
  readonly index: number
  readonly detail: string
}

/** Runs `sequence` on both executors from empty databases; the first divergence, or null. */
async function replay(memory: Executor, redis: Executor, sequence: readonly GeneratedCommand[]): Promise<Divergence | null> {
  await Promise.all([memory.exec(['FLUSHALL']), redis.exec(['FLUSHALL'])])
  for (let start = 0; start < sequence.length; start += BATCH) {
    const batch = sequence.slice(start, start + BATCH)
    const commands = batch.map((entry) => entry.command)
    const [ours, theirs] = await Promise.all([memory.pipeline(commands), redis.pipeline(commands)])
    for (let i = 0; i < batch.length; i++) {
      const detail = compareReplies(ours[i], theirs[i], batch[i].relax)
      if (detail !== null) return { index: start + i, detail }
    }
  }
  return null
}

/** The shrunk sequence with both executors' replies, one command per line. */
async function describeDivergence(memory: Executor, redis: Executor, seed: number, original: Divergence, minimal: readonly GeneratedCommand[]): Promise<string> {
  await Promise.all([memory.exec(['FLUSHALL']), redis.exec(['FLUSHALL'])])
  const commands = minimal.map((entry) => entry.command)
  const [ours, theirs] = await Promise.all([memory.pipeline(commands), redis.pipeline(commands)])
  const lines = minimal.map((entry, i) => {
    const replies: Reply[] = [ours[i], theirs[i]]
    const same = compareReplies(replies[0], replies[1], entry.relax) === null
    return `  ${showCommand(entry.command)}\n      ${same ? `-> ${showReply(replies[0])}` : `memory ${showReply(replies[0])}\n      redis  ${showReply(replies[1])}`}`
  })
  return [
    `seed ${seed}: first divergence at command ${original.index}`,
    original.detail,
    `minimal reproduction (${minimal.length} commands, from empty databases):`,
    ...lines,
  ].join('\n')
}

describeDifferential(
  'random sequences',
  (live) => {
    test('the catalogue has commands the engine implements', () => {
      expect(specs.length).toBeGreaterThan(0)
    })

    for (let seed = FIRST_SEED; seed < FIRST_SEED + SEEDS; seed++) {
      test(`seed ${seed}: ${LENGTH} commands`, async () => {
        const sequence = generateSequence(seed, LENGTH, specs)
        const divergence = await replay(live.memory, live.redis, sequence)
        if (divergence === null) return
        const minimal = await shrink(sequence.slice(0, divergence.index + 1), async (candidate) => {
          const found = await replay(live.memory, live.redis, candidate)
          return found === null ? 0 : found.index + 1
        })
        expect.fail(await describeDivergence(live.memory, live.redis, seed, divergence, minimal))
      }, 300_000)
    }
  },
  { flushBeforeEach: false },
)
