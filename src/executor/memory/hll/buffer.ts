import { ENCODING_OFFSET } from './format.js'

/**
 * An HLL value being written by one command: its bytes, copied once from the stored string and
 * turned back into one when the command stores its result.
 *
 * It behaves like the sds string Redis edits in place: spare capacity for the sparse encoding to
 * grow into, and a zero byte kept right after the content (sds's terminator), which Redis's
 * sparse code may read one byte past the end of a truncated opcode.
 */
export class HllBuffer {
  /** Content in `[0, length)`, then a zero byte, then spare room. */
  bytes: Buffer
  length: number

  private constructor(bytes: Buffer, length: number) {
    this.bytes = bytes
    this.length = length
  }

  /** A writable copy of the stored value `value`, with room to grow by `spare` bytes. */
  static from(value: string, spare = 64): HllBuffer {
    const bytes = Buffer.alloc(value.length + 1 + spare)
    bytes.write(value, 0, 'latin1')
    return new HllBuffer(bytes, value.length)
  }

  /** Replaces the content (the dense conversion builds a new buffer, as Redis swaps the sds). */
  replace(bytes: Buffer, length: number): void {
    this.bytes = bytes
    this.length = length
    bytes[length] = 0
  }

  get encoding(): number {
    return this.bytes[ENCODING_OFFSET]
  }

  /** Makes room for `extra` more bytes after the content (`sdsMakeRoomFor`). */
  reserve(extra: number): void {
    const needed = this.length + extra + 1
    if (needed <= this.bytes.length) return
    const grown = Buffer.alloc(Math.max(needed, this.bytes.length * 2))
    this.bytes.copy(grown, 0, 0, this.length + 1)
    this.bytes = grown
  }

  /** Moves the end of the content by `delta` bytes and writes the terminator (`sdsIncrLen`). */
  growBy(delta: number): void {
    this.length += delta
    this.bytes[this.length] = 0
  }

  /** The content as the engine's binary string. */
  toString(): string {
    return this.bytes.toString('latin1', 0, this.length)
  }
}
