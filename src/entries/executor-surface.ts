/**
 * What an {@link Executor}'s signature reaches: its call context, pub/sub and monitor events, and
 * the reply model. An entry point that exports something taking or returning an executor
 * re-exports this module (`export * from`), so its users can name every type they are handed.
 * The reply model's values come along as values, not types only: a declaration bundle cannot
 * keep `export type` apart, so a type-only re-export would promise a value the entry lacks.
 */
export type { Executor, ExecutorSession, CallContext, Subscription, PubSubEvent, MonitorEvent } from '../executor/executor.js'
export { NULL_ARRAY, ReplyError, Status } from '../reply.js'
// RESP3's reply types: the Reply union names them (the RESP listener's HELLO 3 connections).
export { AttributedReply, BigNumber, BlobError, ReplyDouble, ReplyMap, ReplyPush, ReplySet, VerbatimString } from '../reply.js'
export type { Arg, Bytes, Command, NullArray, Reply, Resp3Reply } from '../reply.js'
