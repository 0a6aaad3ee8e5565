/** How often a turn read and wrote the knowledge base: the tool counts, KnowledgeHook checks. */
export interface KnowledgeCounts {
  reads: number;
  writes: number;
}

/**
 * Counts per turn id, so one tracker can serve every turn of a node without per-turn fields on a hook
 * (hooks hold configuration only). A turn's entry is dropped when KnowledgeHook resets it.
 */
export class KnowledgeUsage {
  private readonly byTurn = new Map<string, KnowledgeCounts>();

  record(turnId: string, kind: keyof KnowledgeCounts): void {
    const counts = this.byTurn.get(turnId) ?? { reads: 0, writes: 0 };
    counts[kind]++;
    this.byTurn.set(turnId, counts);
  }

  of(turnId: string): KnowledgeCounts {
    return this.byTurn.get(turnId) ?? { reads: 0, writes: 0 };
  }

  reset(turnId: string): void {
    this.byTurn.delete(turnId);
  }
}
