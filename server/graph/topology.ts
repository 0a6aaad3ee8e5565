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
  /** Only for wide fan-outs, where a linear `includes` on every deliver would turn quadratic. */
  private readonly successorSets: readonly (ReadonlySet<string> | undefined)[];
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

  constructor(names: readonly string[], edges: readonly (readonly [string, string])[]) {
    this.names = [...names];
    this.index = new Map(names.map((n, i) => [n, i]));
    const succ: string[][] = names.map(() => []);
    const pred: string[][] = names.map(() => []);
    // Edge keys as numbers: a string per edge made tens of thousands of them for a wide graph.
    const seen = new Set<number>();
    for (const [from, to] of edges) {
      const f = this.index.get(from);
      const t = this.index.get(to);
      if (f === undefined || t === undefined) continue;
      const key = f * names.length + t;
      if (seen.has(key)) continue;
      seen.add(key);
      // The registered name, not the edge's copy of it: one string per node however many edges.
      succ[f].push(this.names[t]);
      pred[t].push(this.names[f]);
    }
    const implicit: string[] = [];
    names.forEach((n, i) => {
      if (n !== END && succ[i].length === 0 && this.index.has(END)) {
        succ[i].push(END);
        pred[this.index.get(END)!].push(n);
        implicit.push(n);
      }
    });
    // Exact-size frozen copies, and equal lists shared: a list grown by push keeps ~17 slots of slack,
    // and the 10,000 branches of a fan-out all have the same four lists (from the fan, to the join).
    const lists = new ListPool(this.names);
    const succIdx = succ.map((list) => list.map((n) => this.index.get(n)!));
    const predIdx = pred.map((list) => list.map((n) => this.index.get(n)!));
    this.successorIndices = succIdx.map((l) => lists.indices(l));
    this.predecessorIndices = predIdx.map((l) => lists.indices(l));
    this.successors = succIdx.map((l) => lists.names(l));
    this.predecessors = predIdx.map((l) => lists.names(l));
    this.successorSets = succ.map((s) => (s.length > 16 ? new Set(s) : undefined));
    this.implicitEndEdges = implicit;
    this.descendantCache = new Array(names.length);
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

  /** True when an edge (declared or implicit) leads from `from` to `to`. */
  hasEdge(from: string, to: string): boolean {
    const i = this.index.get(from);
    return i !== undefined && this.hasEdgeAt(i, to);
  }

  hasEdgeAt(i: number, to: string): boolean {
    return this.successorSets[i]?.has(to) ?? this.successors[i].includes(to);
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
      for (const j of this.successorIndices[i]) if (seen[j] !== stamp) stack.push(j);
    }
    return out.slice();
  }

  /** Indices reachable from `start` (inclusive) following edges forward, or backward. */
  closure(start: number, direction: "forward" | "backward"): Set<number> {
    const adjacency = direction === "forward" ? this.successorIndices : this.predecessorIndices;
    const seen = new Set<number>([start]);
    const queue = [start];
    for (let q = 0; q < queue.length; q++) {
      for (const j of adjacency[queue[q]]) {
        if (!seen.has(j)) {
          seen.add(j);
          queue.push(j);
        }
      }
    }
    return seen;
  }

  private bfsRank(): Int32Array {
    const rank = new Int32Array(this.names.length).fill(-1);
    const start = this.index.get(START);
    let next = 0;
    if (start !== undefined) {
      const queue = [start];
      rank[start] = next++;
      for (let q = 0; q < queue.length; q++) {
        for (const j of this.successorIndices[queue[q]]) {
          if (rank[j] === -1) {
            rank[j] = next++;
            queue.push(j);
          }
        }
      }
    }
    for (let i = 0; i < rank.length; i++) if (rank[i] === -1) rank[i] = next++;
    return rank;
  }
}

/** Lists this long or shorter are shared by content. */
const SHARED_MAX = 8;

/** Hands out one frozen list per distinct content (short lists only), as indices or as names. */
class ListPool {
  private readonly byKey = new Map<string, { indices: readonly number[]; names: readonly string[] }>();
  constructor(private readonly allNames: readonly string[]) {}

  indices(list: readonly number[]): readonly number[] {
    return this.entry(list).indices;
  }
  names(list: readonly number[]): readonly string[] {
    return this.entry(list).names;
  }

  private entry(list: readonly number[]) {
    const key = list.length <= SHARED_MAX ? list.join(",") : null;
    const known = key === null ? undefined : this.byKey.get(key);
    if (known) return known;
    const made = { indices: Object.freeze(list.slice()), names: Object.freeze(list.map((i) => this.allNames[i])) };
    if (key !== null) this.byKey.set(key, made);
    return made;
  }
}
