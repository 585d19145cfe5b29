/**
 * Redis's `pqsort` (pqsort.c): the NetBSD/Bentley–McIlroy quicksort, pruned to the partitions
 * that overlap a range of positions. SORT … BY pattern … LIMIT uses it, and when the comparator
 * calls elements equal (ALPHA with equal or missing BY values) the order they come out in is
 * this algorithm's, not a stable sort's. It is ported step for step so that those replies match
 * Redis's; positions are array indexes where the C code uses byte pointers.
 */

type Compare<T> = (a: T, b: T) => number

/**
 * Sorts `items` just enough that positions `low`..`high` (inclusive) hold what a full sort with
 * this algorithm would put there.
 */
export function partialSort<T>(items: T[], compare: Compare<T>, low: number, high: number): void {
  sortRange(items, 0, items.length, compare, low, high)
}

function swap<T>(items: T[], i: number, j: number): void {
  const t = items[i]
  items[i] = items[j]
  items[j] = t
}

/** Swaps the `n` items from `i` with the `n` items from `j` (`vecswap`). */
function swapRuns<T>(items: T[], i: number, j: number, n: number): void {
  for (let k = 0; k < n; k++) swap(items, i + k, j + k)
}

/** Index of the median of three (`med3`), with the C code's exact comparison sequence. */
function median<T>(items: T[], a: number, b: number, c: number, compare: Compare<T>): number {
  return compare(items[a], items[b]) < 0
    ? compare(items[b], items[c]) < 0 ? b : compare(items[a], items[c]) < 0 ? c : a
    : compare(items[b], items[c]) > 0 ? b : compare(items[a], items[c]) < 0 ? a : c
}

function insertionSort<T>(items: T[], base: number, n: number, compare: Compare<T>): void {
  for (let m = base + 1; m < base + n; m++) {
    for (let l = m; l > base && compare(items[l - 1], items[l]) > 0; l--) swap(items, l, l - 1)
  }
}

/** True when the positions `low`..`high` lie wholly outside `from`..`to`. */
function outside(low: number, high: number, from: number, to: number): boolean {
  return (low < from && high < from) || (low > to && high > to)
}

function sortRange<T>(items: T[], base: number, n: number, compare: Compare<T>, low: number, high: number): void {
  for (;;) {
    if (n < 7) return insertionSort(items, base, n, compare)
    let pm = base + Math.floor(n / 2)
    if (n > 7) {
      let pl = base
      let pn = base + n - 1
      if (n > 40) {
        const d = Math.floor(n / 8)
        pl = median(items, pl, pl + d, pl + 2 * d, compare)
        pm = median(items, pm - d, pm, pm + d, compare)
        pn = median(items, pn - 2 * d, pn - d, pn, compare)
      }
      pm = median(items, pl, pm, pn, compare)
    }
    swap(items, base, pm)
    let pa = base + 1
    let pb = pa
    let pc = base + n - 1
    let pd = pc
    for (;;) {
      let result: number
      while (pb <= pc && (result = compare(items[pb], items[base])) <= 0) {
        if (result === 0) {
          swap(items, pa, pb)
          pa++
        }
        pb++
      }
      while (pb <= pc && (result = compare(items[pc], items[base])) >= 0) {
        if (result === 0) {
          swap(items, pc, pd)
          pd--
        }
        pc--
      }
      if (pb > pc) break
      swap(items, pb, pc)
      pb++
      pc--
    }
    // No "nothing swapped: finish with insertion sort" shortcut here: Redis 7.0's pqsort has
    // none, and taking it reorders equal-weight elements differently (SORT … BY … LIMIT, GEO COUNT).

    const end = base + n
    let r = Math.min(pa - base, pb - pa)
    swapRuns(items, base, pb - r, r)
    r = Math.min(pd - pc, end - pd - 1)
    swapRuns(items, pb, end - r, r)
    r = pb - pa
    if (r > 1 && !outside(low, high, base, base + r - 1)) sortRange(items, base, r, compare, low, high)
    r = pd - pc
    if (r <= 1) return
    // Iterate rather than recurse on the right part, as the C code does.
    base = end - r
    n = r
    if (outside(low, high, base, base + r - 1)) return
  }
}
