/**
 * RESP2 wire codec, without I/O: encode commands and replies, decode replies and requests from a
 * stream of chunks.
 *
 * @packageDocumentation
 */

export { encodeCommand, encodeCommands, encodeReplies, encodeReply, replyByteLength, writeReply } from './encode.js'
export { decodeReply, RespDecoder, type Decoded, type ReplyHandler, type RespDecoderOptions } from './decode.js'
export { decodeRequest, RequestDecoder, splitInlineArgs, type RequestDecoderOptions } from './request.js'
export { NEED_MORE, RespProtocolError, type NeedMore } from './protocol.js'
export {
  argBytes,
  isBytes,
  isReplyError,
  NULL_ARRAY,
  OK,
  PONG,
  QUEUED,
  ReplyError,
  Status,
  type Arg,
  type Bytes,
  type Command,
  type NullArray,
  type Reply,
} from '../reply.js'
