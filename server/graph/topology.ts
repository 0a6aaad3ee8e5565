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
  private readonly successorSets: readonly ReadonlySet<string>[];
  private readonly descendantCache: (Int32Array | undefined)[];
  /** Breadth-first rank from START; nodes unreachable from START come last. */
  readonly rank: Int32Array;
  readonly implicitEndEdges: readonly string[];

  constructor(names: readonly string[], edges: readonly (readonly [string, string])[]) {
    this.names = [...names];
    this.index = new Map(names.map((n, i) => [n, i]));
    const succ: string[][] = names.map(() => []);
    const pred: string[][] = names.map(() => []);
    const seen = new Set<string>();
    for (const [from, to] of edges) {
      const f = this.index.get(from);
      const t = this.index.get(to);
      const key = `${from}\u0000${to}`;
      if (f === undefined || t === undefined || seen.has(key)) continue;
      seen.add(key);
      succ[f].push(to);
      pred[t].push(from);
    }
    const implicit: string[] = [];
    names.forEach((n, i) => {
      if (n !== END && succ[i].length === 0 && this.index.has(END)) {
        succ[i].push(END);
        pred[this.index.get(END)!].push(n);
        implicit.push(n);
      }
    });
    this.successors = succ.map((s) => Object.freeze(s));
    this.predecessors = pred.map((p) => Object.freeze(p));
    this.successorSets = succ.map((s) => new Set(s));
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

  /** True when an edge (declared or implicit) leads from `from` to `to`. */
  hasEdge(from: string, to: string): boolean {
    const i = this.index.get(from);
    return i !== undefined && this.successorSets[i].has(to);
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
  descendantsOf(i: number): Int32Array {
    return (this.descendantCache[i] ??= this.reach(i));
  }

  /** Edges as declared plus the implicit END edges, for display and validation. */
  edges(): [string, string][] {
    const out: [string, string][] = [];
    this.names.forEach((n, i) => this.successors[i].forEach((s) => out.push([n, s])));
    return out;
  }

  /** Sorts names by topological rank (stable for ties). */
  sortByRank(names: Iterable<string>): string[] {
    return [...names].sort((a, b) => this.rank[this.index.get(a)!] - this.rank[this.index.get(b)!]);
  }

  private reach(start: number): Int32Array {
    const seen = new Uint8Array(this.names.length);
    const out: number[] = [];
    const stack = this.successors[start].map((s) => this.index.get(s)!);
    while (stack.length > 0) {
      const i = stack.pop()!;
      if (seen[i]) continue;
      seen[i] = 1;
      out.push(i);
      for (const s of this.successors[i]) {
        const j = this.index.get(s)!;
        if (!seen[j]) stack.push(j);
      }
    }
    return Int32Array.from(out);
  }

  private bfsRank(): Int32Array {
    const rank = new Int32Array(this.names.length).fill(-1);
    const start = this.index.get(START);
    let next = 0;
    if (start !== undefined) {
      const queue = [start];
      rank[start] = next++;
      for (let q = 0; q < queue.length; q++) {
        for (const s of this.successors[queue[q]]) {
          const j = this.index.get(s)!;
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
