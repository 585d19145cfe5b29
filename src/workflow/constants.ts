/**
 * Names of the wire protocol between a workflow endpoint and the message queue: the
 * QStash-compatible `Upstash-*` headers, as `@upstash/workflow` sends and reads them.
 * Header names are case-insensitive on the wire; these are the spellings the SDK uses.
 */

/** The run id of every request of a run. */
export const RUN_ID_HEADER = 'Upstash-Workflow-RunId'
/** `true` on the message that creates a run, `false` on step messages. */
export const INIT_HEADER = 'Upstash-Workflow-Init'
/** The workflow endpoint's public URL. */
export const WORKFLOW_URL_HEADER = 'Upstash-Workflow-Url'
/** Creation time of the run (milliseconds since the epoch), sent by the queue. */
export const CREATED_AT_HEADER = 'Upstash-Workflow-CreatedAt'
/** Feature flags the SDK announces to the queue. */
export const FEATURE_SET_HEADER = 'Upstash-Feature-Set'
/** The value `@upstash/workflow` 1.x sends. */
export const FEATURE_SET = 'LazyFetch,InitialBody,WF_DetectTrigger,WF_TriggerOnConfig'
/** Workflow protocol version; present (forwarded) on every step delivery, absent on a start request. */
export const PROTOCOL_VERSION_HEADER = 'Upstash-Workflow-Sdk-Version'
export const PROTOCOL_VERSION = '1'
/** Marks a failure-callback delivery. */
export const FAILURE_HEADER = 'Upstash-Workflow-Is-Failure'
export const FAILURE_CALLBACK_HEADER = 'Upstash-Workflow-Failure-Callback'
/** Answer of an endpoint that received a failure callback but has no failure function. */
export const FAILURE_NOT_FOUND_HEADER = 'Upstash-Workflow-Failure-Callback-Notfound'
/** How many times the queue already retried this delivery (0 on the first attempt). */
export const RETRIED_HEADER = 'Upstash-Retried'
export const MESSAGE_ID_HEADER = 'Upstash-Message-Id'
export const SIGNATURE_HEADER = 'Upstash-Signature'
export const LABEL_HEADER = 'Upstash-Label'
export const INVOKE_COUNT_HEADER = 'Upstash-Workflow-Invoke-Count'
/** The name of the step that threw, on a 500 answer. */
export const ERROR_STEP_NAME_HEADER = 'Upstash-Error-Step-Name'
/** Sent with status 489: the queue must not retry. */
export const NON_RETRYABLE_HEADER = 'Upstash-NonRetryable-Error'
/** Status of a non-retryable failure (the SDK's choice). */
export const NON_RETRYABLE_STATUS = 489

/** Message-level headers of the queue API (publish and batch). */
export const FORWARD_PREFIX = 'Upstash-Forward-'
export const RETRIES_HEADER = 'Upstash-Retries'
export const METHOD_HEADER = 'Upstash-Method'
export const DELAY_HEADER = 'Upstash-Delay'
export const NOT_BEFORE_HEADER = 'Upstash-Not-Before'
export const FAILURE_CALLBACK_URL_HEADER = 'Upstash-Failure-Callback'
export const FAILURE_CALLBACK_PREFIX = 'Upstash-Failure-Callback-'
export const CALL_TYPE_HEADER = 'Upstash-Workflow-CallType'

/** Retries per step when nothing else is configured. */
export const DEFAULT_RETRIES = 3
/** The hosted queue, used when no queue URL is configured. */
export const DEFAULT_QUEUE_URL = 'https://qstash.upstash.io'
