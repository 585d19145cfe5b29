import { describe, expect, test } from 'vitest'
import { MalformedDeliveryError, WorkflowReplayError } from '../../src/workflow/errors.js'
import { assertSequentialHistory, parseDeliveryBody, parseOut, type StepRecord } from '../../src/workflow/steps.js'

/** A delivery body exactly as the SDK's own test utilities (and the hosted queue) build it. */
function deliveryBody(initialPayload: unknown, steps: object[]): string {
  const encode = (value: string) => Buffer.from(value).toString('base64')
  return JSON.stringify([
    { messageId: 'msgId', body: encode(typeof initialPayload === 'string' ? initialPayload : JSON.stringify(initialPayload)), callType: 'step' },
    ...steps.map((step) => ({ messageId: 'msgId', body: encode(JSON.stringify(step)), callType: 'step' })),
  ])
}

const step = (stepId: number, stepName: string, out?: unknown): StepRecord => ({
  stepId,
  stepName,
  stepType: 'Run',
  out: out === undefined ? undefined : JSON.stringify(out),
  concurrent: 1,
})

describe('delivery bodies', () => {
  test('decode the initial payload and the step records', () => {
    const parsed = parseDeliveryBody(deliveryBody({ name: 'ada' }, [step(1, 'a', 1), step(2, 'b', { x: 'é' })]))
    expect(parsed.rawInitialPayload).toBe('{"name":"ada"}')
    expect(parsed.steps.map((s) => [s.stepId, s.stepName, parseOut(s.out)])).toEqual([
      [1, 'a', 1],
      [2, 'b', { x: 'é' }],
    ])
    expect(parsed.isLastDuplicate).toBe(false)
  })

  test('only callType "step" records count, like the SDK', () => {
    const body = JSON.parse(deliveryBody('x', [step(1, 'a')])) as object[]
    body.push({ messageId: 'm', body: Buffer.from('{}').toString('base64'), callType: 'toCallback' })
    expect(parseDeliveryBody(JSON.stringify(body)).steps).toHaveLength(1)
  })

  test('a repeated last record is reported as a duplicate and dropped', () => {
    const parsed = parseDeliveryBody(deliveryBody('x', [step(1, 'a'), step(2, 'b'), step(2, 'b')]))
    expect(parsed.steps).toHaveLength(2)
    expect(parsed.isLastDuplicate).toBe(true)
  })

  test.each([
    ['not JSON', '[{', /the body is not JSON/],
    ['not an array', '{"a":1}', /non-empty JSON array/],
    ['an empty array', '[]', /non-empty JSON array/],
    ['a raw step without body', '[{"messageId":"m"}]', /raw step 0 must be an object with a base64 "body"/],
    ['a payload that is not base64', '[{"messageId":"m","body":"%%%","callType":"step"}]', /initial payload .* is not base64/],
    ['a step that is not JSON', JSON.stringify([{ body: 'e30=', callType: 'step' }, { body: Buffer.from('nope').toString('base64'), callType: 'step' }]), /raw step 1 is not a JSON step record/],
    ['a step without a name', deliveryBody({}, [{ stepId: 1, stepType: 'Run', concurrent: 1 }]), /stepName must be a non-empty string/],
    ['a negative step id', deliveryBody({}, [{ stepId: -1, stepName: 'a', stepType: 'Run', concurrent: 1 }]), /stepId must be an integer >= 0/],
    ['step id 0 without targetStep', deliveryBody({}, [{ stepId: 0, stepName: 'a', stepType: 'Run', concurrent: 1 }]), /only valid for a plan step/],
  ])('refuse %s with a clear error', (_name, body, message) => {
    expect(() => parseDeliveryBody(body)).toThrow(MalformedDeliveryError)
    expect(() => parseDeliveryBody(body)).toThrow(message)
  })
})

describe('history consistency', () => {
  test('steps numbered 1, 2, 3 in order pass', () => {
    expect(() => assertSequentialHistory([step(1, 'a'), step(2, 'b'), step(3, 'c')])).not.toThrow()
  })

  test('a gap or a reordering is an inconsistent history', () => {
    expect(() => assertSequentialHistory([step(1, 'a'), step(3, 'c')])).toThrow(WorkflowReplayError)
    expect(() => assertSequentialHistory([step(2, 'b'), step(1, 'a')])).toThrow(/has stepId 2, expected 1/)
  })

  test('parallel groups are refused by restis serve()', () => {
    expect(() => assertSequentialHistory([{ stepId: 0, targetStep: 1, stepName: 'a', stepType: 'Run', concurrent: 2 }])).toThrow(/parallel step group/)
  })

  test('outputs decode JSON and keep plain text', () => {
    expect(parseOut('{"a":[1,2]}')).toEqual({ a: [1, 2] })
    expect(parseOut('null')).toBeNull()
    expect(parseOut('plain text')).toBe('plain text')
    expect(parseOut(undefined)).toBeUndefined()
  })
})
