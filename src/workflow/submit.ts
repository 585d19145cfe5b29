/**
 * How a delivery's new step reaches the queue: a step record to the workflow URL (delayed for
 * a sleep), a third-party call with its callback, a waiter (`POST /v2/wait/<eventId>`), an
 * invoked run's start, or the plan steps of a parallel group.
 */
import type { QueueClient } from './client.js'
import { DELAY_HEADER, NOT_BEFORE_HEADER } from './constants.js'
import { WorkflowNonRetryableError } from './errors.js'
import type { StepSink, StepSubmission } from './executor.js'
import { callMessageHeaders, invokeMessageHeaders, stepMessageHeaders } from './headers.js'
import type { StepRecord } from './steps.js'

/** The run a delivery belongs to, as the sink needs it. */
export interface RunTarget {
  readonly queue: QueueClient
  readonly runId: string
  /** The workflow endpoint's public URL. */
  readonly url: string
  /** The run's invocation depth (0: started directly). */
  readonly invokeCount: number
  readonly createdAt: number | undefined
}

function timed(headers: Record<string, string>, delaySeconds?: number, notBefore?: number): Record<string, string> {
  if (delaySeconds) headers[DELAY_HEADER] = `${delaySeconds}s`
  if (notBefore !== undefined) headers[NOT_BEFORE_HEADER] = String(notBefore)
  return headers
}

async function submitOne(target: RunTarget, submission: StepSubmission): Promise<void> {
  const { queue, runId, url } = target
  const { record } = submission
  switch (submission.kind) {
    case 'record':
      await queue.batch([{ destination: url, headers: timed(stepMessageHeaders(runId, url), submission.delaySeconds, submission.notBefore), body: JSON.stringify(record) }])
      return
    case 'call': {
      const { call } = submission
      const headers = callMessageHeaders({ runId, url, stepId: record.stepId, stepName: record.stepName, concurrent: record.concurrent, method: call.method, retries: call.retries, timeout: call.timeout, callHeaders: call.headers })
      await queue.batch([{ destination: call.url, headers, body: call.body }])
      return
    }
    case 'wait': {
      if (!queue.wait) throw new WorkflowNonRetryableError(`context.waitForEvent('${record.stepName}') needs a queue client with wait(): the queue option given to serve() has none`)
      const headers = stepMessageHeaders(runId, url)
      const timeoutHeaders: Record<string, string[]> = {}
      for (const [name, value] of Object.entries(headers)) timeoutHeaders[name] = [value]
      await queue.wait(
        submission.eventId,
        runId,
        { url, timeout: submission.timeout, timeoutUrl: url, timeoutHeaders, step: { stepId: record.stepId, stepName: record.stepName, stepType: 'Wait', concurrent: record.concurrent } },
        headers,
      )
      return
    }
    case 'invoke': {
      const { invoke } = submission
      const headers = invokeMessageHeaders({
        runId: invoke.workflowRunId,
        url: invoke.url,
        retries: invoke.retries,
        failureUrl: invoke.url,
        forward: new Headers(invoke.headers),
        contentType: new Headers(invoke.headers).get('content-type'),
        invokeCount: target.invokeCount + 1,
      })
      // the envelope names the parent and its step: the queue resumes it when the child ends
      const envelope = { body: invoke.body, headers: {}, workflowRunId: runId, workflowRunCreatedAt: target.createdAt, workflowUrl: url, step: record }
      await queue.batch([{ destination: invoke.url, headers, body: JSON.stringify(envelope) }])
      return
    }
  }
}

/** A {@link StepSink} that submits to the queue; `onSubmitted` hears of each step sent. */
export function queueSink(target: RunTarget, onSubmitted: (what: string) => void): StepSink {
  return {
    async submit(submission) {
      await submitOne(target, submission)
      onSubmitted(`step ${submission.record.stepId} '${submission.record.stepName}' (${submission.record.stepType}) submitted`)
    },
    async submitPlans(plans: readonly StepRecord[]) {
      const { queue, runId, url } = target
      await queue.batch(
        plans.map((plan) => ({
          destination: url,
          // a sleep in a group waits on its plan's message; its result then goes on at once
          headers: timed(stepMessageHeaders(runId, url), plan.sleepFor === undefined ? undefined : Number(plan.sleepFor), plan.sleepUntil),
          body: JSON.stringify(plan),
        })),
      )
      onSubmitted(`parallel steps ${plans.map((plan) => `'${plan.stepName}'`).join(', ')} planned`)
    },
  }
}
