import type { Node } from "./node";
import type { Topology } from "./topology";

/**
 * What every node of one compiled graph shares: its nodes, topology and node ids by position, and
 * their inverse. A node execution's context addresses its node as this layout and a position, so a
 * graph keeps no object per node of its own: a wide fan-out's branches each read one fewer object
 * (the 10,000 of them are out of cache by the time the branches run).
 */
export class GraphLayout {
  #positions: ReadonlyMap<string, number> | null = null;

  constructor(
    readonly topology: Topology,
    readonly nodeIds: readonly string[],
    readonly nodes: readonly Node[],
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
