/**
 * The nodes an in-memory store's rows name, numbered: a row keeps a number where it would keep a
 * node's id and name, 4 bytes for 16. A compiled graph's nodes keep their ids across runs (and a
 * spec's are persisted), so a store shared by any number of runs of a graph numbers its nodes once.
 */
export class NodeTable {
  private readonly byId = new Map<string, number>();
  /** Numbers of the pairs whose name is not the first one seen with their id (a renamed node). */
  private renamed: Map<string, number> | null = null;
  private readonly ids: string[] = [];
  private readonly names: string[] = [];

  /** The number of the node `nodeId` named `name`, numbering it when new. */
  numberOf(nodeId: string, name: string): number {
    const n = this.byId.get(nodeId);
    if (n !== undefined && this.names[n] === name) return n;
    if (n === undefined) {
      this.byId.set(nodeId, this.ids.length);
    } else {
      const key = `${name}\u0000${nodeId}`;
      const other = (this.renamed ??= new Map()).get(key);
      if (other !== undefined) return other;
      this.renamed.set(key, this.ids.length);
    }
    this.ids.push(nodeId);
    this.names.push(name);
    return this.ids.length - 1;
  }

  idOf(n: number): string {
    return this.ids[n];
  }

  nameOf(n: number): string {
    return this.names[n];
  }
}
