const src = Buffer.alloc(65536, 97)
const N = 2e6
function bench(name, f, len) {
  let best = Infinity
  for (let r = 0; r < 5; r++) {
    const t = process.cpuUsage(); let s = 0
    for (let i = 0; i < N; i++) { const o = f((i * 16) & 32767, len); s += o.length }
    const u = process.cpuUsage(t); best = Math.min(best, (u.user + u.system) * 1000 / N)
  }
  console.log(name.padEnd(22), String(len).padStart(5), best.toFixed(1), 'ns cpu (best of 5)')
}
function A(start, len) { const out = Buffer.allocUnsafe(len); if (len <= 12) for (let i = 0; i < len; i++) out[i] = src[start + i]; else src.copy(out, 0, start, start + len); return out }
const SLAB = 65536
let slab = Buffer.allocUnsafeSlow(SLAB), off = 0
function B(start, len) {
  if (off + len > SLAB) { slab = Buffer.allocUnsafeSlow(SLAB); off = 0 }
  const out = slab.subarray(off, off + len); 
  if (len <= 16) for (let i = 0; i < len; i++) slab[off + i] = src[start + i]; else slab.set(new Uint8Array(src.buffer, src.byteOffset + start, len), off)
  off += (len + 7) & ~7
  return out
}
const FB = Object.getPrototypeOf(Buffer.prototype).constructor === Uint8Array ? Buffer.allocUnsafe(1).constructor : null
let slab2 = Buffer.allocUnsafeSlow(SLAB), ab2 = slab2.buffer, off2 = 0
function C(start, len) {
  if (off2 + len > SLAB) { slab2 = Buffer.allocUnsafeSlow(SLAB); ab2 = slab2.buffer; off2 = 0 }
  const out = Buffer.from(ab2, off2, len)
  if (len <= 16) for (let i = 0; i < len; i++) slab2[off2 + i] = src[start + i]; else slab2.set(new Uint8Array(src.buffer, src.byteOffset + start, len), off2)
  off2 += (len + 7) & ~7
  return out
}
let slab3 = Buffer.allocUnsafeSlow(SLAB), ab3 = slab3.buffer, off3 = 0
function E(start, len) {
  if (off3 + len > SLAB) { slab3 = Buffer.allocUnsafeSlow(SLAB); ab3 = slab3.buffer; off3 = 0 }
  const out = new FB(ab3, off3, len)
  if (len <= 16) for (let i = 0; i < len; i++) slab3[off3 + i] = src[start + i]; else slab3.set(new Uint8Array(src.buffer, src.byteOffset + start, len), off3)
  off3 += (len + 7) & ~7
  return out
}
function D(start, len) { return src.subarray(start, start + len) }
console.log(FB && FB.name)
for (const len of [10, 100, 1024]) { bench('A allocUnsafe+copy', A, len); bench('B slab.subarray', B, len); bench('C Buffer.from(ab)', C, len); bench('E new FastBuffer', E, len); bench('D view (peers)', D, len) }
