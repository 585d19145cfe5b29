const src = Buffer.alloc(65536, 97)
const N = 5e6
function bench(name, f, len) {
  for (let r = 0; r < 3; r++) {
    const t = process.hrtime.bigint(); let s = 0
    for (let i = 0; i < N; i++) { const o = f((i * 16) & 32767, len); s += o.length }
    if (r === 2) console.log(name, len, (Number(process.hrtime.bigint() - t) / N).toFixed(1), 'ns')
  }
}
function A(start, len) { const out = Buffer.allocUnsafe(len); if (len <= 12) for (let i = 0; i < len; i++) out[i] = src[start + i]; else src.copy(out, 0, start, start + len); return out }
let slab = Buffer.allocUnsafeSlow(16384), off = 0
function B(start, len) {
  if (off + len > slab.length) { slab = Buffer.allocUnsafeSlow(Math.max(16384, len)); off = 0 }
  const out = slab.subarray(off, off + len); off += (len + 7) & ~7
  if (len <= 12) for (let i = 0; i < len; i++) out[i] = src[start + i]; else out.set(src.subarray(start, start + len)); return out
}
const FB = Object.getPrototypeOf(Buffer.alloc(0)).constructor
function B2(start, len) {
  if (off + len > slab.length) { slab = Buffer.allocUnsafeSlow(Math.max(16384, len)); off = 0 }
  const out = new FB(slab.buffer, off, len); off += (len + 7) & ~7
  if (len <= 64) for (let i = 0; i < len; i++) out[i] = src[start + i]; else slab.set(src.subarray(start, start + len), out.byteOffset); return out
}
function D(start, len) { return src.subarray(start, start + len) }
function E(start, len) { return Buffer.from(Uint8Array.prototype.slice.call(src, start, start + len).buffer) }
for (const len of [10, 1024]) { bench('A alloc+copy', A, len); bench('B slab', B, len); bench('B2 slab FB', B2, len); bench('D view', D, len); bench('E slice', E, len) }
console.log(FB.name)
