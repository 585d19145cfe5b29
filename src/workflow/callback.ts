/**
 * The callback of a third-party call: the queue delivers the call's outcome to the workflow URL
 * with `Upstash-Workflow-Callback: true` and the call step's identity in `Upstash-Workflow-Step*`
 * headers; the body is `{status, header, body (base64), retried, maxRetries, …}`. The endpoint
 * records it as the call step's result, which resumes the run.
 */
import { MalformedDeliveryError } from './errors.js'
import { decodeBase64Text, type StepRecord } from './steps.js'

/** Marks a delivery as a call's callback. */
export const CALLBACK_HEADER = 'Upstash-Workflow-Callback'

function requiredHeader(headers: Headers, name: string): string {
  const value = headers.get(name)
  if (value === null || value === '') throw new MalformedDeliveryError(`a call's callback needs the ${name} header`)
  return value
}

function positiveInteger(value: string, name: string): number {
  const number = Number(value)
  if (!Number.isInteger(number) || number < 1) throw new MalformedDeliveryError(`${name} must be an integer >= 1, got ${JSON.stringify(value)}`)
  return number
}

/**
 * The call step's result record from a callback, or `undefined` for an intermediate failed
 * attempt the queue will retry (`retried` < `maxRetries`).
 */
export function callResultRecord(headers: Headers, body: string): StepRecord | undefined {
  let outcome: { status?: unknown; header?: unknown; body?: unknown; retried?: unknown; maxRetries?: unknown }
  try {
    outcome = JSON.parse(body) as typeof outcome
  } catch {
    throw new MalformedDeliveryError("a call's callback body must be JSON {status, header, body}")
  }
  if (typeof outcome !== 'object' || outcome === null || typeof outcome.status !== 'number') {
    throw new MalformedDeliveryError("a call's callback body must be a JSON object with a numeric status")
  }
  const status = outcome.status
  const ok = status >= 200 && status < 300
  if (!ok && typeof outcome.maxRetries === 'number' && outcome.maxRetries > 0 && outcome.retried !== outcome.maxRetries) return undefined
  const text = typeof outcome.body === 'string' && outcome.body !== '' ? decodeBase64Text(outcome.body, "the call's response body") : ''
  const header = typeof outcome.header === 'object' && outcome.header !== null ? outcome.header : {}
  const stepType = requiredHeader(headers, 'Upstash-Workflow-StepType')
  if (stepType !== 'Call') throw new MalformedDeliveryError(`a call's callback names step type ${JSON.stringify(stepType)}, expected "Call"`)
  return {
    stepId: positiveInteger(requiredHeader(headers, 'Upstash-Workflow-StepId'), 'Upstash-Workflow-StepId'),
    stepName: requiredHeader(headers, 'Upstash-Workflow-StepName'),
    stepType,
    concurrent: positiveInteger(requiredHeader(headers, 'Upstash-Workflow-Concurrent'), 'Upstash-Workflow-Concurrent'),
    out: JSON.stringify({ status, body: text, header }),
  }
}
