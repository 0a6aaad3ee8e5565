import { END, START } from "./names";

/**
 * The immutable shape of a compiled graph: which nodes may connect. Nodes without outgoing edges
 * get an implicit edge to END (deliver with no target resolves there). Precomputes what the
 * schedulers ask on their hot path: successors, descendants, and a stable topological rank.
 */
export class Topology {
  readonly names: readonly string[];
  readonly index: ReadonlyMap<string, number>;
  private readonly successors: readonly (readonly string[])[];
  private readonly predecessors: readonly (readonly string[])[];
  /**
   * Only for wide fan-outs, where a linear `includes` on every deliver would turn quadratic: one bit
   * per node, set for each successor. A 10,000-node graph's bitmap is 1.25 KB and stays in cache
   * while the fan delivers, where a set of 10,000 names is probed at random.
   */
  private readonly successorBits: readonly (Uint8Array | undefined)[];
  private readonly descendantCache: (readonly number[] | undefined)[];
  private readonly successorIndices: readonly (readonly number[])[];
  private readonly predecessorIndices: readonly (readonly number[])[];
  /** Short descendant lists by content: the branches of a fan-out share one. */
  private readonly descendantPool = new Map<string, readonly number[]>();
  private visited: Int32Array | undefined;
  private stamp = 0;
  /** Breadth-first rank from START; nodes unreachable from START come last. */
  readonly rank: Int32Array;
  readonly implicitEndEdges: readonly string[];

  // Construction runs once per compile, mostly in the interpreter: plain index loops over flat typed
  // arrays, because a for-of or a destructured pair allocates iterator results there, a list per node
  // grown by push keeps ~17 slots of slack, and a 10,000-branch graph has 20,000 edges.
  constructor(names: readonly string[], edges: readonly (readonly [string, string])[]) {
    const n = names.length;
    this.names = names.slice();
    const index = new Map<string, number>();
    for (let i = 0; i < n; i++) index.set(names[i], i);
    this.index = index;
    const implicit: string[] = [];
    const succ = successorGraph(index, n, edges, (i) => implicit.push(names[i]));
    const pred = reversed(succ, n);
    // Frozen lists, and equal lists shared: the 10,000 branches of a fan-out all have the same four
    // (from the fan, to the join).
    const lists = new ListPool(this.names);
    const successorIndices = new Array<readonly number[]>(n);
    const predecessorIndices = new Array<readonly number[]>(n);
    const successors = new Array<readonly string[]>(n);
    const predecessors = new Array<readonly string[]>(n);
    const successorBits = new Array<Uint8Array | undefined>(n);
    for (let i = 0; i < n; i++) {
      const out = lists.entry(succ, i);
      const into = lists.entry(pred, i);
      successorIndices[i] = out.indices;
      successors[i] = out.names;
      predecessorIndices[i] = into.indices;
      predecessors[i] = into.names;
      successorBits[i] = out.indices.length > WIDE ? bitsOf(out.indices, n) : undefined;
    }
    this.successorIndices = successorIndices;
    this.predecessorIndices = predecessorIndices;
    this.successors = successors;
    this.predecessors = predecessors;
    this.successorBits = successorBits;
    this.implicitEndEdges = implicit;
    this.descendantCache = new Array(n);
    this.rank = this.bfsRank();
  }

  has(name: string): boolean {
    return this.index.has(name);
  }

  successorsOf(name: string): readonly string[] {
    const i = this.index.get(name);
    return i === undefined ? [] : this.successors[i];
  }

  successorsAt(i: number): readonly string[] {
    return this.successors[i];
  }

  successorIndicesAt(i: number): readonly number[] {
    return this.successorIndices[i];
  }

  /** True when an edge (declared or implicit) leads from `from` to `to`. */
  hasEdge(from: string, to: string): boolean {
    const i = this.index.get(from);
    const t = this.index.get(to);
    return i !== undefined && t !== undefined && this.hasEdgeBetween(i, t);
  }

  /** True when an edge (declared or implicit) leads from node `i` to node `t`. */
  hasEdgeBetween(i: number, t: number): boolean {
    const bits = this.successorBits[i];
    if (bits === undefined) return this.successorIndices[i].includes(t);
    return (bits[t >> 3] & (1 << (t & 7))) !== 0;
  }

  predecessorsOf(name: string): readonly string[] {
    const i = this.index.get(name);
    return i === undefined ? [] : this.predecessors[i];
  }

  /** True when `to` is reachable from `from` in one or more steps. */
  reaches(from: string, to: string): boolean {
    const f = this.index.get(from);
    const t = this.index.get(to);
    return f !== undefined && t !== undefined && this.descendantsOf(f).includes(t);
  }

  /** Indices reachable from node `i` in one or more steps (includes `i` itself on a cycle). Cached. */
  descendantsOf(i: number): readonly number[] {
    return (this.descendantCache[i] ??= this.shared(this.reach(i)));
  }

  private shared(list: number[]): readonly number[] {
    if (list.length > SHARED_MAX) return list;
    const key = list.join(",");
    const known = this.descendantPool.get(key);
    if (known) return known;
    this.descendantPool.set(key, list);
    return list;
  }

  /** Sorts names by topological rank (stable for ties). */
  sortByRank(names: Iterable<string>): string[] {
    return [...names].sort((a, b) => this.rank[this.index.get(a)!] - this.rank[this.index.get(b)!]);
  }

  private reach(start: number): number[] {
    // One visited-stamp array serves every traversal: a fresh buffer per node would allocate
    // O(n²) bytes for wide graphs (10,000 branches → 100 MB).
    const stamp = ++this.stamp;
    const seen = (this.visited ??= new Int32Array(this.names.length));
    const out: number[] = [];
    const stack = this.successorIndices[start].slice();
    while (stack.length > 0) {
      const i = stack.pop()!;
      if (seen[i] === stamp) continue;
      seen[i] = stamp;
      out.push(i);
      const next = this.successorIndices[i];
      for (let k = 0; k < next.length; k++) if (seen[next[k]] !== stamp) stack.push(next[k]);
    }
    return out.slice();
  }

  /** Indices reachable from `start` (inclusive) following edges forward, or backward: 1 where reachable. */
  closure(start: number, direction: "forward" | "backward"): Uint8Array {
    const adjacency = direction === "forward" ? this.successorIndices : this.predecessorIndices;
    const seen = new Uint8Array(this.names.length);
    seen[start] = 1;
    const queue = new Int32Array(this.names.length);
    queue[0] = start;
    let tail = 1;
    for (let q = 0; q < tail; q++) {
      const next = adjacency[queue[q]];
      for (let k = 0; k < next.length; k++) {
        const j = next[k];
        if (seen[j] === 0) {
          seen[j] = 1;
          queue[tail++] = j;
        }
      }
    }
    return seen;
  }

  private bfsRank(): Int32Array {
    const n = this.names.length;
    const rank = new Int32Array(n).fill(-1);
    const start = this.index.get(START);
    let next = 0;
    if (start !== undefined) {
      const queue = new Int32Array(n);
      queue[0] = start;
      let tail = 1;
      rank[start] = next++;
      for (let q = 0; q < tail; q++) {
        const out = this.successorIndices[queue[q]];
        for (let k = 0; k < out.length; k++) {
          const j = out[k];
          if (rank[j] === -1) {
            rank[j] = next++;
            queue[tail++] = j;
          }
        }
      }
    }
    for (let i = 0; i < n; i++) if (rank[i] === -1) rank[i] = next++;
    return rank;
  }
}

/** Adjacency as one flat list: node `i`'s neighbours are `to[start[i]]` up to `to[start[i + 1]]`. */
interface FlatGraph {
  start: Int32Array;
  to: Int32Array;
}

/**
 * Successors as indices, in edge order, without repeated edges or edges naming unknown nodes. A node
 * with none (other than END) gets the implicit edge to END, reported through `onImplicit`.
 */
function successorGraph(
  index: ReadonlyMap<string, number>,
  n: number,
  edges: readonly (readonly [string, string])[],
  onImplicit: (i: number) => void,
): FlatGraph {
  const from = new Int32Array(edges.length);
  const to = new Int32Array(edges.length);
  let count = 0;
  for (let k = 0; k < edges.length; k++) {
    const f = index.get(edges[k][0]);
    const t = index.get(edges[k][1]);
    if (f === undefined || t === undefined) continue;
    from[count] = f;
    to[count++] = t;
  }
  const raw = groupBySource(from, to, count, n);
  const end = index.get(END) ?? -1;
  // mark[t] === i + 1 once t is among i's successors: repeated edges dropped without a key per edge.
  const mark = new Int32Array(n);
  const start = new Int32Array(n + 1);
  const out = new Int32Array(count + n);
  let size = 0;
  for (let i = 0; i < n; i++) {
    start[i] = size;
    for (let k = raw.start[i]; k < raw.start[i + 1]; k++) {
      const t = raw.to[k];
      if (mark[t] === i + 1) continue;
      mark[t] = i + 1;
      out[size++] = t;
    }
    if (size === start[i] && end !== -1 && i !== end) {
      out[size++] = end;
      onImplicit(i);
    }
  }
  start[n] = size;
  return { start, to: out };
}

/** Edges grouped by source, in their order (a counting sort). */
function groupBySource(from: Int32Array, to: Int32Array, count: number, n: number): FlatGraph {
  const start = new Int32Array(n + 1);
  for (let k = 0; k < count; k++) start[from[k] + 1]++;
  for (let i = 0; i < n; i++) start[i + 1] += start[i];
  const fill = start.slice(0, n);
  const grouped = new Int32Array(count);
  for (let k = 0; k < count; k++) grouped[fill[from[k]]++] = to[k];
  return { start, to: grouped };
}

/** The same edges pointing the other way; each node's predecessors in ascending index order. */
function reversed(g: FlatGraph, n: number): FlatGraph {
  const edges = g.start[n];
  const from = new Int32Array(edges);
  const to = new Int32Array(edges);
  for (let i = 0; i < n; i++) {
    for (let k = g.start[i]; k < g.start[i + 1]; k++) {
      from[k] = g.to[k];
      to[k] = i;
    }
  }
  return groupBySource(from, to, edges, n);
}

/** Nodes with more successors than this answer edge checks from a bitmap. */
const WIDE = 16;

function bitsOf(indices: readonly number[], n: number): Uint8Array {
  const bits = new Uint8Array((n + 7) >> 3);
  for (let k = 0; k < indices.length; k++) bits[indices[k] >> 3] |= 1 << (indices[k] & 7);
  return bits;
}

/** Lists this long or shorter are shared by content. */
const SHARED_MAX = 8;

/** Hands out one frozen list per distinct content (short lists only), as indices and as names. */
class ListPool {
  private readonly byKey = new Map<string, PooledList>();
  /** Lists of one node, by that node: most lists, and no key string needed. */
  private readonly single: (PooledList | undefined)[] = [];
  constructor(private readonly allNames: readonly string[]) {}

  /** Node `i`'s list in `g`. */
  entry(g: FlatGraph, i: number): PooledList {
    const from = g.start[i];
    const length = g.start[i + 1] - from;
    if (length === 1) return (this.single[g.to[from]] ??= this.make(g.to, from, 1));
    if (length > SHARED_MAX) return this.make(g.to, from, length);
    let key = "";
    for (let k = 0; k < length; k++) key += `${g.to[from + k]},`;
    const known = this.byKey.get(key);
    if (known) return known;
    const made = this.make(g.to, from, length);
    this.byKey.set(key, made);
    return made;
  }

  private make(to: Int32Array, from: number, length: number): PooledList {
    const indices = new Array<number>(length);
    const names = new Array<string>(length);
    for (let k = 0; k < length; k++) {
      indices[k] = to[from + k];
      names[k] = this.allNames[to[from + k]];
    }
    return { indices: Object.freeze(indices), names: Object.freeze(names) };
  }
}

interface PooledList {
  indices: readonly number[];
  names: readonly string[];
}
