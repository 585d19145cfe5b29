/**
 * The ordered index of a sorted set: a B+ tree of `(score, member)` entries that also counts the
 * entries under every child, so that rank lookups and rank-based seeks are O(log n) like Redis's
 * skip list (`zslGetRank`, `zslGetElementByRank`), with far less memory per entry than a node
 * per member. Leaves are linked, so a range is walked entry by entry from a {@link TreeCursor}.
 *
 * Order is Redis's: by score, then by member bytes. Members are binary strings (one char per
 * byte), so JS string comparison is exactly `sdscmp` (memcmp, then the shorter first). Scores
 * compare with `<` as doubles do in C: `-0` and `0` are equal and fall back to the member.
 *
 * The tree stores entries only; the caller (the sorted set) owns the member → score map and
 * must never insert an entry twice or delete one that is absent.
 */

/** Most entries a leaf holds, and most children a branch holds, before splitting in two. */
const MAX_FANOUT = 64
/** Below this many entries (or children) a node is merged into a sibling when they fit together. */
const MIN_FANOUT = 16

/** A monotone test over the order: false for a prefix of the entries, true for the rest. */
export type EntryPredicate = (score: number, member: string) => boolean

/** `-1`, `0` or `1` as `(s1, m1)` sorts before, with or after `(s2, m2)`. */
export function compareEntries(s1: number, m1: string, s2: number, m2: string): number {
  if (s1 < s2) return -1
  if (s1 > s2) return 1
  return m1 < m2 ? -1 : m1 > m2 ? 1 : 0
}

class Leaf {
  readonly isLeaf = true
  prev: Leaf | null = null
  next: Leaf | null = null
  constructor(
    public scores: number[],
    public members: string[],
  ) {}
}

class Branch {
  readonly isLeaf = false
  constructor(
    public children: TreeNode[],
    /** Entries under each child. */
    public counts: number[],
    /** The first (smallest) entry under each child: the separators descents compare with. */
    public firstScores: number[],
    public firstMembers: string[],
    /** Entries under this branch: the sum of `counts`. */
    public total: number,
  ) {}
}

type TreeNode = Leaf | Branch

function sizeOf(node: TreeNode): number {
  return node.isLeaf ? node.scores.length : node.total
}

/** Children of a branch or entries of a leaf: what the fan-out limits apply to. */
function widthOf(node: TreeNode): number {
  return node.isLeaf ? node.scores.length : node.children.length
}

function firstScoreOf(node: TreeNode): number {
  return node.isLeaf ? node.scores[0] : node.firstScores[0]
}

function firstMemberOf(node: TreeNode): string {
  return node.isLeaf ? node.members[0] : node.firstMembers[0]
}

/*
 * The searches below compare scores first and read a member only when the scores are equal: a
 * member is a pointer into another array (and a string elsewhere), so reading it on every probe
 * would touch about twice the cache lines on a descent through nodes that are not in the caches.
 */

/** Index of the first entry of `leaf` at or after `(score, member)`. */
function leafPosition(leaf: Leaf, score: number, member: string): number {
  const scores = leaf.scores
  let low = 0
  let high = scores.length
  while (low < high) {
    const middle = (low + high) >>> 1
    const s = scores[middle]
    if (s < score || (s === score && leaf.members[middle] < member)) low = middle + 1
    else high = middle
  }
  return low
}

/** The child of `branch` whose range holds `(score, member)`: the last one starting at or before it. */
function childIndex(branch: Branch, score: number, member: string): number {
  const firstScores = branch.firstScores
  let low = 1
  let high = firstScores.length
  while (low < high) {
    const middle = (low + high) >>> 1
    const s = firstScores[middle]
    if (s < score || (s === score && branch.firstMembers[middle] <= member)) low = middle + 1
    else high = middle
  }
  return low - 1
}

/**
 * Entries under the children of `branch` before child `i`: summed from whichever end is nearer
 * (the branch's total minus the children from `i` on), so at most half the counts are read.
 */
function countBeforeChild(branch: Branch, i: number): number {
  const counts = branch.counts
  const width = counts.length
  if (i <= width >>> 1) {
    let sum = 0
    for (let j = 0; j < i; j++) sum += counts[j]
    return sum
  }
  let sum = branch.total
  for (let j = i; j < width; j++) sum -= counts[j]
  return sum
}

/**
 * A position in the tree, for walking a range. Moving past either end makes it invalid. The tree
 * must not change while a cursor is in use.
 */
export class TreeCursor {
  constructor(
    private leaf: Leaf | null,
    private index: number,
  ) {}

  get valid(): boolean {
    return this.leaf !== null
  }

  get score(): number {
    return this.leaf!.scores[this.index]
  }

  get member(): string {
    return this.leaf!.members[this.index]
  }

  // The walks read the members' length, not the scores': a walk that only wants members (ZRANGE
  // without WITHSCORES) then never touches a leaf's scores.
  next(): void {
    const leaf = this.leaf!
    if (++this.index < leaf.members.length) return
    this.leaf = leaf.next
    this.index = 0
  }

  prev(): void {
    if (--this.index >= 0) return
    this.leaf = this.leaf!.prev
    this.index = this.leaf === null ? 0 : this.leaf.members.length - 1
  }
}

/** The descent from the root to a leaf: the branches passed and the child taken in each. */
interface Path {
  readonly branches: Branch[]
  readonly indexes: number[]
}

/** The counted B+ tree. */
export class RankedTree {
  private root: TreeNode = new Leaf([], [])
  private head: Leaf = this.root as Leaf
  private tail: Leaf = this.root as Leaf

  /** Number of entries. */
  get size(): number {
    return sizeOf(this.root)
  }

  /** Nodes on a path from the root to a leaf, both included: what every descent (rank, seek, insert) visits. */
  get depth(): number {
    let levels = 1
    for (let node = this.root; !node.isLeaf; node = node.children[0]) levels++
    return levels
  }

  /** Adds an entry that is not in the tree. */
  insert(score: number, member: string): void {
    const path: Path = { branches: [], indexes: [] }
    let node = this.root
    while (!node.isLeaf) {
      const i = childIndex(node, score, member)
      node.counts[i]++
      node.total++
      path.branches.push(node)
      path.indexes.push(i)
      node = node.children[i]
    }
    const position = leafPosition(node, score, member)
    node.scores.splice(position, 0, score)
    node.members.splice(position, 0, member)
    if (position === 0) this.updateFirstEntry(path, path.branches.length - 1, score, member)
    if (node.scores.length > MAX_FANOUT) this.split(path, path.branches.length - 1, node)
  }

  /** Removes an entry; false (and nothing changes) when it is not in the tree. */
  delete(score: number, member: string): boolean {
    const path: Path = { branches: [], indexes: [] }
    let node = this.root
    while (!node.isLeaf) {
      const i = childIndex(node, score, member)
      path.branches.push(node)
      path.indexes.push(i)
      node = node.children[i]
    }
    const position = leafPosition(node, score, member)
    if (position >= node.scores.length || compareEntries(node.scores[position], node.members[position], score, member) !== 0) return false
    for (let level = 0; level < path.branches.length; level++) {
      path.branches[level].counts[path.indexes[level]]--
      path.branches[level].total--
    }
    node.scores.splice(position, 1)
    node.members.splice(position, 1)
    const leafLevel = path.branches.length - 1
    if (node.scores.length === 0) {
      this.removeChild(path, leafLevel)
    } else {
      if (position === 0) this.updateFirstEntry(path, leafLevel, node.scores[0], node.members[0])
      this.mergeIfSmall(path, leafLevel)
    }
    while (!this.root.isLeaf && this.root.children.length === 1) this.root = this.root.children[0]
    return true
  }

  /** The 0-based rank of an entry, or -1 when it is not in the tree. */
  rankOf(score: number, member: string): number {
    let rank = 0
    let node = this.root
    while (!node.isLeaf) {
      const i = childIndex(node, score, member)
      rank += countBeforeChild(node, i)
      node = node.children[i]
    }
    const position = leafPosition(node, score, member)
    // `!==` on scores is the order's equality (`0 === -0`, as `compareEntries` has them equal).
    if (position >= node.scores.length || node.scores[position] !== score || node.members[position] !== member) return -1
    return rank + position
  }

  /** A cursor on the entry of rank `rank` (invalid when out of range). */
  cursorAt(rank: number): TreeCursor {
    if (rank < 0 || rank >= this.size) return new TreeCursor(null, 0)
    let node = this.root
    let remaining = rank
    while (!node.isLeaf) {
      // From whichever end of the counts is nearer, so at most half of them are read.
      const counts = node.counts
      let i: number
      if (remaining < node.total >>> 1) {
        i = 0
        while (remaining >= counts[i]) remaining -= counts[i++]
      } else {
        // Counting back from the end: `after` is the number of entries past the rank's child.
        let after = node.total - 1 - remaining
        i = counts.length - 1
        while (after >= counts[i]) after -= counts[i--]
        remaining = counts[i] - 1 - after
      }
      node = node.children[i]
    }
    return new TreeCursor(node, remaining)
  }

  /** A cursor on the first entry (invalid when the tree is empty). */
  first(): TreeCursor {
    return new TreeCursor(this.head.scores.length === 0 ? null : this.head, 0)
  }

  /** A cursor on the last entry (invalid when the tree is empty). */
  last(): TreeCursor {
    const tail = this.tail
    return new TreeCursor(tail.scores.length === 0 ? null : tail, tail.scores.length - 1)
  }

  /**
   * The number of entries for which the monotone `test` is false, which is also the rank of the
   * first entry for which it is true. Like a skip-list descent, it only looks at the entries on
   * its way down, so a test that is not monotone over the order gives some boundary, not an error.
   */
  countBefore(test: EntryPredicate): number {
    let rank = 0
    let node = this.root
    while (!node.isLeaf) {
      if (test(node.firstScores[0], node.firstMembers[0])) return rank
      // The last child whose first entry still fails the test holds the boundary.
      let low = 1
      let high = node.children.length
      while (low < high) {
        const middle = (low + high) >>> 1
        if (test(node.firstScores[middle], node.firstMembers[middle])) high = middle
        else low = middle + 1
      }
      const i = low - 1
      rank += countBeforeChild(node, i)
      node = node.children[i]
    }
    const { scores, members } = node
    let low = 0
    let high = scores.length
    while (low < high) {
      const middle = (low + high) >>> 1
      if (test(scores[middle], members[middle])) high = middle
      else low = middle + 1
    }
    return rank + low
  }

  /** Calls `visit` for every entry in order. */
  forEach(visit: (score: number, member: string) => void): void {
    for (let leaf: Leaf | null = this.head; leaf !== null; leaf = leaf.next) {
      const { scores, members } = leaf
      for (let i = 0; i < scores.length; i++) visit(scores[i], members[i])
    }
  }

  // ---- structure maintenance ----

  /** Records the new first entry of the node under `path` at `level`, upwards while it is a first child. */
  private updateFirstEntry(path: Path, level: number, score: number, member: string): void {
    for (let l = level; l >= 0; l--) {
      const i = path.indexes[l]
      path.branches[l].firstScores[i] = score
      path.branches[l].firstMembers[i] = member
      if (i !== 0) return
    }
  }

  /** The node reached at `level` of `path` (level -1 is the root). */
  private nodeAt(path: Path, level: number): TreeNode {
    return level < 0 ? this.root : path.branches[level].children[path.indexes[level]]
  }

  /** Splits an overfull node (the child taken at `level`, or the root) into two halves. */
  private split(path: Path, level: number, node: TreeNode): void {
    const half = widthOf(node) >>> 1
    let right: TreeNode
    if (node.isLeaf) {
      const leaf = new Leaf(node.scores.splice(half), node.members.splice(half))
      leaf.prev = node
      leaf.next = node.next
      if (node.next !== null) node.next.prev = leaf
      else this.tail = leaf
      node.next = leaf
      right = leaf
    } else {
      const counts = node.counts.splice(half)
      let total = 0
      for (const count of counts) total += count
      node.total -= total
      right = new Branch(node.children.splice(half), counts, node.firstScores.splice(half), node.firstMembers.splice(half), total)
    }
    const rightSize = sizeOf(right)
    if (level < 0) {
      this.root = new Branch(
        [node, right],
        [sizeOf(node), rightSize],
        [firstScoreOf(node), firstScoreOf(right)],
        [firstMemberOf(node), firstMemberOf(right)],
        sizeOf(node) + rightSize,
      )
      return
    }
    const parent = path.branches[level]
    const i = path.indexes[level]
    parent.counts[i] -= rightSize
    parent.children.splice(i + 1, 0, right)
    parent.counts.splice(i + 1, 0, rightSize)
    parent.firstScores.splice(i + 1, 0, firstScoreOf(right))
    parent.firstMembers.splice(i + 1, 0, firstMemberOf(right))
    if (parent.children.length > MAX_FANOUT) this.split(path, level - 1, parent)
  }

  /** Removes the (empty) child taken at `level` from its parent, and empty ancestors with it. */
  private removeChild(path: Path, level: number): void {
    const node = this.nodeAt(path, level)
    if (node.isLeaf) this.unlink(node)
    if (level < 0) {
      const leaf = new Leaf([], [])
      this.root = this.head = this.tail = leaf
      return
    }
    const parent = path.branches[level]
    const i = path.indexes[level]
    parent.children.splice(i, 1)
    parent.counts.splice(i, 1)
    parent.firstScores.splice(i, 1)
    parent.firstMembers.splice(i, 1)
    if (parent.children.length === 0) {
      this.removeChild(path, level - 1)
      return
    }
    if (i === 0) this.updateFirstEntry(path, level - 1, parent.firstScores[0], parent.firstMembers[0])
    this.mergeIfSmall(path, level - 1)
  }

  /**
   * Merges the node taken at `level` with a sibling when it has shrunk below {@link MIN_FANOUT}
   * and both fit in one node, so deletions do not leave the tree full of near-empty nodes.
   */
  private mergeIfSmall(path: Path, level: number): void {
    if (level < 0) return
    const parent = path.branches[level]
    const i = path.indexes[level]
    const node = parent.children[i]
    const width = widthOf(node)
    if (width >= MIN_FANOUT) return
    let left: number
    if (i + 1 < parent.children.length && width + widthOf(parent.children[i + 1]) <= MAX_FANOUT) left = i
    else if (i > 0 && width + widthOf(parent.children[i - 1]) <= MAX_FANOUT) left = i - 1
    else return
    const into = parent.children[left]
    const from = parent.children[left + 1]
    if (into.isLeaf) {
      const source = from as Leaf
      into.scores.push(...source.scores)
      into.members.push(...source.members)
      this.unlink(source)
    } else {
      const source = from as Branch
      into.children.push(...source.children)
      into.counts.push(...source.counts)
      into.firstScores.push(...source.firstScores)
      into.firstMembers.push(...source.firstMembers)
      into.total += source.total
    }
    parent.counts[left] += parent.counts[left + 1]
    parent.children.splice(left + 1, 1)
    parent.counts.splice(left + 1, 1)
    parent.firstScores.splice(left + 1, 1)
    parent.firstMembers.splice(left + 1, 1)
    this.mergeIfSmall(path, level - 1)
  }

  private unlink(leaf: Leaf): void {
    if (leaf.prev !== null) leaf.prev.next = leaf.next
    else if (leaf.next !== null) this.head = leaf.next
    if (leaf.next !== null) leaf.next.prev = leaf.prev
    else if (leaf.prev !== null) this.tail = leaf.prev
    leaf.prev = leaf.next = null
  }
}
