import { describe, expect, test } from 'vitest'
import { MalformedDeliveryError, WorkflowReplayError } from '../../src/workflow/errors.js'
import { assertConsistentHistory, parseDeliveryBody, parseOut, type StepRecord } from '../../src/workflow/steps.js'

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
    expect(() => assertConsistentHistory([step(1, 'a'), step(2, 'b'), step(3, 'c')])).not.toThrow()
  })

  test('a gap or a reordering is an inconsistent history', () => {
    expect(() => assertConsistentHistory([step(1, 'a'), step(3, 'c')])).toThrow(WorkflowReplayError)
    expect(() => assertConsistentHistory([step(2, 'b'), step(1, 'a')])).toThrow(/has stepId 2, expected 1/)
  })

  test('a parallel group: its plans, then its results in any order, each after its plan; the last group may be unfinished', () => {
    const plan = (targetStep: number, stepName: string, concurrent = 2) => ({ stepId: 0, targetStep, stepName, stepType: 'Run', concurrent })
    const result = (stepId: number, stepName: string, concurrent = 2) => ({ stepId, stepName, stepType: 'Run', concurrent })
    expect(() => assertConsistentHistory([step(1, 'a'), plan(2, 'x'), plan(3, 'y'), result(3, 'y'), result(2, 'x'), step(4, 'b')])).not.toThrow()
    expect(() => assertConsistentHistory([plan(1, 'x'), plan(2, 'y'), result(2, 'y')])).not.toThrow()
    expect(() => assertConsistentHistory([plan(1, 'x'), result(1, 'x'), plan(2, 'y')])).not.toThrow()
    expect(() => assertConsistentHistory([plan(1, 'x'), plan(2, 'y'), step(3, 'b')])).toThrow(/record 3 \('b'\) has stepId 3, which is no unfinished planned step of the group at 1/)
    expect(() => assertConsistentHistory([plan(1, 'x'), result(2, 'y')])).toThrow(/record 2 \('y'\) has stepId 2, which is no unfinished planned step/)
    expect(() => assertConsistentHistory([plan(2, 'x')])).toThrow(/plans step 2, expected 1/)
    expect(() => assertConsistentHistory([plan(1, 'x'), plan(2, 'y', 3)])).toThrow(/has concurrent 3 in a group of 2/)
    expect(() => assertConsistentHistory([result(1, 'x')])).toThrow(/has concurrent 2 but no plan step before it/)
    expect(() => assertConsistentHistory([plan(1, 'x', 1)])).toThrow(/plan step with concurrent 1/)
  })

  test('outputs decode JSON and keep plain text', () => {
    expect(parseOut('{"a":[1,2]}')).toEqual({ a: [1, 2] })
    expect(parseOut('null')).toBeNull()
    expect(parseOut('plain text')).toBe('plain text')
    expect(parseOut(undefined)).toBeUndefined()
  })
})
