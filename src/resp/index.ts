/**
 * RESP2 and RESP3 wire codec, without I/O: encode commands and replies, decode replies and requests from a
 * stream of chunks.
 *
 * @packageDocumentation
 */

export {
  encodeCommand,
  encodeCommands,
  encodeReplies,
  encodeReply,
  encodeResp3Replies,
  encodeResp3Reply,
  replyByteLength,
  writeReply,
} from './encode.js'
export { decodeReply, RespDecoder, type Decoded, type ReplyHandler, type RespDecoderOptions } from './decode.js'
export { decodeRequest, RequestDecoder, splitInlineArgs, type RequestDecoderOptions } from './request.js'
export { NEED_MORE, RespProtocolError, type NeedMore } from './protocol.js'
export {
  argBytes,
  AttributedReply,
  BigNumber,
  BlobError,
  isBytes,
  isResp3Reply,
  isReplyError,
  NULL_ARRAY,
  OK,
  PONG,
  QUEUED,
  ReplyDouble,
  ReplyError,
  ReplyMap,
  ReplyPush,
  ReplySet,
  Status,
  toResp2,
  VerbatimString,
  type Arg,
  type Bytes,
  type Command,
  type NullArray,
  type Reply,
  type Resp3Reply,
} from '../reply.js'
