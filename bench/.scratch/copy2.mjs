const src = Buffer.alloc(65536, 97)
const N = 3e6
function bench(name, f, len) {
  let best = Infinity
  for (let r = 0; r < 5; r++) {
    const t = process.hrtime.bigint(); let s = 0
    for (let i = 0; i < N; i++) { const o = f((i * 16) & 32767, len); s += o.length }
    best = Math.min(best, Number(process.hrtime.bigint() - t) / N)
  }
  console.log(name.padEnd(20), len, best.toFixed(1), 'ns (best of 5)')
}
function A(start, len) { const out = Buffer.allocUnsafe(len); if (len <= 12) for (let i = 0; i < len; i++) out[i] = src[start + i]; else src.copy(out, 0, start, start + len); return out }
function A2(start, len) { const out = Buffer.allocUnsafe(len); if (len <= 12) for (let i = 0; i < len; i++) out[i] = src[start + i]; else out.set(src.subarray(start, start + len)); return out }
const U8set = Uint8Array.prototype.set
function A3(start, len) { const out = Buffer.allocUnsafe(len); if (len <= 64) for (let i = 0; i < len; i++) out[i] = src[start + i]; else out.set(new Uint8Array(src.buffer, src.byteOffset + start, len)); return out }
function D(start, len) { return src.subarray(start, start + len) }
for (const len of [10, 40, 1024]) { bench('A alloc+copy', A, len); bench('A2 alloc+set(sub)', A2, len); bench('A3 alloc+set(u8)', A3, len); bench('D view', D, len) }
