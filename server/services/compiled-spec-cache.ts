import type { CompiledSpec } from "@/server/graph/spec/graph-spec-compiler";

export interface CompiledSpecCacheLimits {
  /** Revisions kept at most. */
  maxEntries: number;
  /** Graph nodes (subgraphs' included) kept at most, over every revision: ~1 KB of heap each. */
  maxNodes: number;
}

export const DEFAULT_COMPILED_SPEC_LIMITS: CompiledSpecCacheLimits = { maxEntries: 64, maxNodes: 60_000 };

/**
 * Compiled spec revisions by spec id, least recently used evicted first. A revision is immutable, so
 * its compiled graph never goes stale: creating an instance then reads it instead of parsing and
 * compiling the YAML again (~3 ms of the event loop for map-reduce, seconds for a 20,000-node spec).
 * A compiled graph holds no run state, so every run of the revision may share it. Bounded by count and
 * by nodes, so a few huge specs cannot hold the heap; one larger than the whole budget is not kept.
 */
export class CompiledSpecCache {
  private readonly entries = new Map<string, { compiled: CompiledSpec; nodes: number }>();
  private nodes = 0;

  constructor(private readonly limits: CompiledSpecCacheLimits = DEFAULT_COMPILED_SPEC_LIMITS) {}

  get(specId: string): CompiledSpec | undefined {
    const entry = this.entries.get(specId);
    if (!entry) return undefined;
    // Map iteration order is insertion order: re-inserting marks it most recently used.
    this.entries.delete(specId);
    this.entries.set(specId, entry);
    return entry.compiled;
  }

  set(specId: string, compiled: CompiledSpec): void {
    const nodes = Object.keys(compiled.graph.nodeIdMap).length;
    this.delete(specId);
    if (nodes > this.limits.maxNodes) return;
    while (this.entries.size > 0 && (this.entries.size >= this.limits.maxEntries || this.nodes + nodes > this.limits.maxNodes)) {
      this.delete(this.entries.keys().next().value as string);
    }
    this.entries.set(specId, { compiled, nodes });
    this.nodes += nodes;
  }

  get size(): number {
    return this.entries.size;
  }

  get nodeCount(): number {
    return this.nodes;
  }

  private delete(specId: string): void {
    const entry = this.entries.get(specId);
    if (!entry) return;
    this.entries.delete(specId);
    this.nodes -= entry.nodes;
  }
}
