const src = Buffer.alloc(65536, 97)
const dst = Buffer.allocUnsafeSlow(65536)
const N = 2e6
function bench(name, f) {
  let best = Infinity
  for (let r = 0; r < 5; r++) {
    const t = process.cpuUsage(); let s = 0
    for (let i = 0; i < N; i++) s += f((i * 16) & 32767)
    const u = process.cpuUsage(t); best = Math.min(best, (u.user + u.system) * 1000 / N)
  }
  console.log(name.padEnd(30), best.toFixed(1), 'ns cpu')
}
const srcU8 = new Uint8Array(src.buffer, src.byteOffset, src.length)
bench('set(new U8 view)', (s) => { dst.set(new Uint8Array(src.buffer, src.byteOffset + s, 1024), 0); return 1 })
bench('set(subarray)', (s) => { dst.set(srcU8.subarray(s, s + 1024), 0); return 1 })
bench('src.copy', (s) => src.copy(dst, 0, s, s + 1024))
bench('copyWithin same', (s) => { src.copyWithin(40000, s, s + 1024); return 1 })
bench('new U8 view only', (s) => new Uint8Array(src.buffer, src.byteOffset + s, 1024).length)
bench('allocUnsafe(1024)', (s) => Buffer.allocUnsafe(1024).length)
bench('loop copy 1024', (s) => { for (let i = 0; i < 1024; i++) dst[i] = src[s + i]; return 1 })
