import { rmSync } from "node:fs";
import { KNOWLEDGE_PATTERNS, type KnowledgePattern } from "@/server/agent/knowledge/knowledge-patterns";
import { GraphKnowledgeBase } from "@/server/agent/knowledge/knowledge-base";
import type { AgentNodeDelta } from "@/server/agent/graph-node/agent-node";
import { KeyedListeners } from "@/server/services/keyed-listeners";

export type AgentDeltaListener = (delta: AgentNodeDelta) => void;

/** One knowledge-base file of a run, as the Knowledge tab shows it. */
export interface KnowledgeFile {
  pattern: KnowledgePattern;
  text: string;
  lines: number;
}

/** Longest file text the Knowledge tab is sent (the tail is kept: new entries are appended). */
const KNOWLEDGE_VIEW_LIMIT = 200_000;

/**
 * What the instance view reads about agent nodes at work beyond the event log: the streamed text of
 * running turns (live only: never persisted, so a late subscriber sees the coarse `message` activity
 * instead), and a run's shared knowledge base.
 */
export class AgentRuns {
  private readonly listeners = new KeyedListeners<AgentNodeDelta>("agent delta");

  constructor(private readonly workspace: string | undefined) {}

  /** For the node type: one streamed piece of text. A listener's error never reaches the agent. */
  publish = (delta: AgentNodeDelta): void => this.listeners.publish(delta.instanceId, delta);

  subscribe(instanceId: string, listener: AgentDeltaListener): () => void {
    return this.listeners.subscribe(instanceId, listener);
  }

  /** The instance was deleted: its knowledge base goes with it (what its agents wrote, a person's input among it). */
  forget(instanceId: string): void {
    if (!this.workspace) return;
    rmSync(GraphKnowledgeBase.forInstance(this.workspace, instanceId).dir, { recursive: true, force: true });
  }

  /** The five knowledge-base files of an instance (empty ones too); the changelog holds every diff. */
  knowledge(instanceId: string): { enabled: boolean; files: KnowledgeFile[] } {
    if (!this.workspace) return { enabled: false, files: [] };
    const kb = GraphKnowledgeBase.forInstance(this.workspace, instanceId);
    const files = KNOWLEDGE_PATTERNS.map((pattern) => {
      const page = kb.read(pattern, 1, Number.MAX_SAFE_INTEGER);
      const text = page.text.length > KNOWLEDGE_VIEW_LIMIT ? `…\n${page.text.slice(-KNOWLEDGE_VIEW_LIMIT)}` : page.text;
      return { pattern, text, lines: page.text === "" ? 0 : page.totalLines };
    });
    return { enabled: true, files };
  }
}
