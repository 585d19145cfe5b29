/**
 * Step records and the body of a step delivery.
 *
 * A delivery's body is a JSON array of raw steps `{messageId, body, callType}` whose `body` is
 * base64: the first one is the run's initial payload, each later one (with `callType: "step"`)
 * a step record `{stepId, stepName, stepType, out, concurrent, targetStep?}` as JSON. `out` is
 * the step's return value as a JSON string (absent for `undefined`).
 */
import { MalformedDeliveryError, WorkflowReplayError } from './errors.js'
import { asBuffer } from '../resp/protocol.js'

/** Step types of the protocol. @public */
export type StepType =
  | 'Initial'
  | 'Run'
  | 'SleepFor'
  | 'SleepUntil'
  | 'Call'
  | 'Wait'
  | 'Notify'
  | 'Invoke'
  | 'CreateWebhook'
  | 'WaitForWebhook'

/** One step of a run as the queue stores it. @public */
export interface StepRecord {
  /** 1-based position of a result step; 0 for a plan step of a parallel group. */
  readonly stepId: number
  readonly stepName: string
  readonly stepType: StepType | string
  /** The step's return value, JSON-encoded as a string; absent when it returned `undefined`. */
  readonly out?: unknown
  /** How many steps ran in parallel with it (1: not parallel). */
  readonly concurrent: number
  /** For a plan step: the step id its result will get. */
  readonly targetStep?: number
  readonly sleepFor?: number | string
  readonly sleepUntil?: number
}

/** One element of a delivery body. @public */
export interface RawStep {
  readonly messageId: string
  /** base64 of the initial payload (first element) or of a step record's JSON. */
  readonly body: string
  readonly callType: 'step' | 'toCallback' | 'fromCallback' | string
}

/** A delivery body, decoded. */
export interface ParsedDelivery {
  /** The body of the request that started the run, as text. */
  readonly rawInitialPayload: string
  /** Step records after the initial one, duplicates removed (first occurrence kept). */
  readonly steps: readonly StepRecord[]
  /** The last record repeats an earlier one: the queue delivered the same step twice. */
  readonly isLastDuplicate: boolean
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/

/** Decodes standard base64 to UTF-8 text; refuses anything that is not base64. */
export function decodeBase64Text(value: string, what: string): string {
  if (value.length % 4 === 1 || !BASE64.test(value)) throw new MalformedDeliveryError(`${what} is not base64`)
  return Buffer.from(value, 'base64').toString('utf8')
}

/** Standard base64 of text or bytes. */
export function encodeBase64(value: string | Uint8Array): string {
  return (typeof value === 'string' ? Buffer.from(value, 'utf8') : asBuffer(value)).toString('base64')
}

function isInteger(value: unknown, min: number): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= min
}

/** Checks the shape of one decoded step record. */
export function validateStepRecord(value: unknown, position: number): StepRecord {
  const where = `step record ${position}`
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new MalformedDeliveryError(`${where} is not a JSON object`)
  const step = value as Record<string, unknown>
  if (!isInteger(step.stepId, 0)) throw new MalformedDeliveryError(`${where}: stepId must be an integer >= 0`)
  if (typeof step.stepName !== 'string' || step.stepName === '') throw new MalformedDeliveryError(`${where}: stepName must be a non-empty string`)
  if (typeof step.stepType !== 'string' || step.stepType === '') throw new MalformedDeliveryError(`${where}: stepType must be a non-empty string`)
  if (step.concurrent !== undefined && !isInteger(step.concurrent, 1)) throw new MalformedDeliveryError(`${where}: concurrent must be an integer >= 1`)
  if (step.targetStep !== undefined && !isInteger(step.targetStep, 0)) throw new MalformedDeliveryError(`${where}: targetStep must be an integer >= 0`)
  if (step.stepId === 0 && !step.targetStep) throw new MalformedDeliveryError(`${where}: stepId 0 is only valid for a plan step (with targetStep)`)
  return { ...(step as object), concurrent: (step.concurrent as number | undefined) ?? 1 } as StepRecord
}

/**
 * Parses a delivery body: the initial payload plus the step records, with the SDK's rules
 * (only `callType: "step"` records count; a repeated record is dropped). Throws
 * {@link MalformedDeliveryError} with the reason.
 */
export function parseDeliveryBody(text: string): ParsedDelivery {
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    throw new MalformedDeliveryError('the body is not JSON')
  }
  return parseRawSteps(parsed)
}

/** {@link parseDeliveryBody} for an already parsed value (the queue's lazy-fetch answer). */
export function parseRawSteps(parsed: unknown): ParsedDelivery {
  if (!Array.isArray(parsed) || parsed.length === 0) {
    throw new MalformedDeliveryError('the body must be a non-empty JSON array of raw steps {messageId, body, callType}')
  }
  const raw = parsed.map((item: unknown, index) => {
    if (typeof item !== 'object' || item === null || typeof (item as RawStep).body !== 'string') {
      throw new MalformedDeliveryError(`raw step ${index} must be an object with a base64 "body" string`)
    }
    return item as RawStep
  })
  const rawInitialPayload = decodeBase64Text(raw[0].body, 'the initial payload (raw step 0)')
  const steps: StepRecord[] = []
  for (let index = 1; index < raw.length; index++) {
    if (raw[index].callType !== 'step') continue
    const json = decodeBase64Text(raw[index].body, `raw step ${index}`)
    let record: unknown
    try {
      record = JSON.parse(json)
    } catch {
      throw new MalformedDeliveryError(`raw step ${index} is not a JSON step record`)
    }
    steps.push(validateStepRecord(record, index))
  }
  return { rawInitialPayload, ...deduplicate(steps) }
}

function stepKey(step: StepRecord): string {
  return step.stepId === 0 ? `p:${step.targetStep ?? 0}` : `s:${step.stepId}`
}

function deduplicate(steps: StepRecord[]): { steps: StepRecord[]; isLastDuplicate: boolean } {
  const seen = new Set<string>()
  const kept: StepRecord[] = []
  let isLastDuplicate = false
  steps.forEach((step, index) => {
    const key = stepKey(step)
    if (seen.has(key)) {
      if (index === steps.length - 1) isLastDuplicate = true
      return
    }
    seen.add(key)
    kept.push(step)
  })
  return { steps: kept, isLastDuplicate }
}

/** A parallel group while its records are read: where it starts, its size, what arrived. */
interface OpenGroup {
  readonly start: number
  readonly size: number
  planned: number
  readonly results: Set<number>
}

function inconsistent(index: number, step: StepRecord, problem: string): WorkflowReplayError {
  return new WorkflowReplayError(`inconsistent history: record ${index + 1} ('${step.stepName}') ${problem}; the step list was altered or comes from another run`)
}

/**
 * Checks that a history is consistent: sequential result steps numbered 1, 2, 3 … in order; a
 * parallel group of `k` steps at position `n` is `k` plan steps (targetStep `n` … `n+k-1`, each
 * `concurrent: k`) followed by the results of those positions in any order, each after its
 * plan. The last group may be incomplete (its steps are still running).
 */
export function assertConsistentHistory(steps: readonly StepRecord[]): void {
  let expected = 1
  let group: OpenGroup | undefined
  steps.forEach((step, index) => {
    if (step.stepId === 0) {
      const target = step.targetStep ?? 0
      if (step.concurrent < 2) throw inconsistent(index, step, `is a plan step with concurrent ${step.concurrent}, expected 2 or more`)
      if (group === undefined) {
        if (target !== expected) throw inconsistent(index, step, `plans step ${target}, expected ${expected}`)
        group = { start: target, size: step.concurrent, planned: 1, results: new Set() }
        return
      }
      if (group.planned === group.size) throw inconsistent(index, step, `plans step ${target} while the group of steps ${group.start}-${group.start + group.size - 1} is unfinished`)
      if (step.concurrent !== group.size) throw inconsistent(index, step, `has concurrent ${step.concurrent} in a group of ${group.size}`)
      if (target !== group.start + group.planned) throw inconsistent(index, step, `plans step ${target}, expected ${group.start + group.planned}`)
      group.planned++
      return
    }
    if (group !== undefined) {
      const planned = step.stepId >= group.start && step.stepId < group.start + group.planned
      if (!planned || group.results.has(step.stepId)) throw inconsistent(index, step, `has stepId ${step.stepId}, which is no unfinished planned step of the group at ${group.start}`)
      if (step.concurrent !== group.size) throw inconsistent(index, step, `has concurrent ${step.concurrent} in a group of ${group.size}`)
      group.results.add(step.stepId)
      if (group.results.size === group.size) {
        expected = group.start + group.size
        group = undefined
      }
      return
    }
    if (step.concurrent !== 1) throw inconsistent(index, step, `has concurrent ${step.concurrent} but no plan step before it`)
    if (step.stepId !== expected) throw inconsistent(index, step, `has stepId ${step.stepId}, expected ${expected}`)
    expected++
  })
}

/** Decodes a step's `out`: JSON text back to its value, other text as is. */
export function parseOut(out: unknown): unknown {
  if (typeof out !== 'string') return out
  try {
    return JSON.parse(out)
  } catch {
    return out
  }
}
