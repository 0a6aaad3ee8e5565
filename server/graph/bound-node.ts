import type { NodeBinding } from "./context";
import type { Node } from "./node";
import type { Topology } from "./topology";

/** What every node of one compiled graph shares: its topology and node ids, and their inverse. */
export class GraphLayout {
  #positions: ReadonlyMap<string, number> | null = null;

  constructor(
    readonly topology: Topology,
    readonly nodeIds: readonly string[],
  ) {}

  /**
   * Node id → position, made when first asked: recovery and the in-memory stores ask, a run on the
   * Null coordinator need not (a 10,000-node graph's map is ~450 KB).
   */
  get positions(): ReadonlyMap<string, number> {
    if (this.#positions === null) {
      const positions = new Map<string, number>();
      for (let i = 0; i < this.nodeIds.length; i++) positions.set(this.nodeIds[i], i);
      this.#positions = positions;
    }
    return this.#positions;
  }
}

/**
 * One node of a compiled graph with its binding, as `CompiledGraph.entryAt` hands it out: one object
 * per node, where an entry and a binding of its own made two (a 10,000-branch graph keeps 10,000).
 */
export class BoundNode implements NodeBinding {
  constructor(
    readonly node: Node,
    readonly index: number,
    readonly nodeId: string,
    private readonly layout: GraphLayout,
  ) {
    Object.freeze(this);
  }
  get binding(): NodeBinding {
    return this;
  }
  get name(): string {
    return this.node.name;
  }
  get topology(): Topology {
    return this.layout.topology;
  }
  get nodeIds(): readonly string[] {
    return this.layout.nodeIds;
  }
  get positions(): ReadonlyMap<string, number> {
    return this.layout.positions;
  }
}
