import { rmSync } from "node:fs";
import { KNOWLEDGE_PATTERNS, type KnowledgePattern } from "@/server/agent/knowledge/knowledge-patterns";
import { GraphKnowledgeBase } from "@/server/agent/knowledge/knowledge-base";
import type { AgentNodeDelta } from "@/server/agent/graph-node/agent-node";
import { KeyedListeners } from "@/server/services/keyed-listeners";

export type AgentDeltaListener = (delta: AgentNodeDelta) => void;

/** A live delta as a viewer gets it: `whole` when its text is all its model call has streamed so far. */
export type LiveDelta = AgentNodeDelta & { whole?: true };

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
 * running turns (live only: never persisted; the text a model call has streamed so far is kept in
 * memory until it lands in the log as a `message` activity, so a viewer who opens a running node
 * mid-call sees all of it), and a run's shared knowledge base.
 */
export class AgentRuns {
  private readonly listeners = new KeyedListeners<LiveDelta>("agent delta");
  /** Per instance, per invocation: its current model call's text so far. */
  private readonly streaming = new Map<string, Map<string, AgentNodeDelta>>();
  /** Where this process's own deltas also go (a cluster worker's relay to the web processes). */
  private outbound: AgentDeltaListener | null = null;

  constructor(private readonly workspace: string | undefined) {}

  /** For the node type: one streamed piece of text. A listener's error never reaches the agent. */
  publish = (delta: AgentNodeDelta): void => {
    this.received(delta);
    this.outbound?.(delta);
  };

  /**
   * A delta another process's agent node streamed (relayed): viewers here get it; it is not relayed on.
   * A `whole` one (a relay catching this process up) replaces the call's text so far, here and for them.
   */
  received(delta: LiveDelta): void {
    this.keep(delta);
    this.listeners.publish(delta.instanceId, delta);
  }

  /** Hands every delta published here to `out` too (one at most; called synchronously, must not throw). */
  relayTo(out: AgentDeltaListener | null): void {
    this.outbound = out;
  }

  /**
   * Forgets the text so far of the instance's running calls (of one invocation's when given): its node
   * or run ended without the call's `end` delta reaching this process (a relaying worker that died).
   */
  drop(instanceId: string, invocationId?: string): void {
    if (invocationId === undefined) {
      this.streaming.delete(instanceId);
      return;
    }
    const calls = this.streaming.get(instanceId);
    calls?.delete(invocationId);
    if (calls?.size === 0) this.streaming.delete(instanceId);
  }

  /** The text so far of every call streaming here (a relay resends it whole to processes that may have missed some). */
  soFar(): AgentNodeDelta[] {
    return [...this.streaming.values()].flatMap((calls) => [...calls.values()]);
  }

  /** Instances with a call's text kept here (tests: nothing is kept forever). */
  get streamingInstances(): number {
    return this.streaming.size;
  }

  /**
   * Subscribes to the instance's deltas; `listener` gets first, in the same call, the text each running
   * turn has streamed so far (`whole`), then every delta from there on: nothing twice, nothing missed.
   */
  subscribe(instanceId: string, listener: (delta: LiveDelta) => void): () => void {
    const off = this.listeners.subscribe(instanceId, listener);
    for (const soFar of this.streaming.get(instanceId)?.values() ?? []) listener({ ...soFar, whole: true });
    return off;
  }

  private keep({ whole, ...delta }: LiveDelta): void {
    if (delta.channel === "reasoning") return;
    let calls = this.streaming.get(delta.instanceId);
    if (delta.channel === "end") {
      calls?.delete(delta.invocationId);
      if (calls?.size === 0) this.streaming.delete(delta.instanceId);
      return;
    }
    if (!calls) this.streaming.set(delta.instanceId, (calls = new Map()));
    const was = calls.get(delta.invocationId);
    const same = !whole && was && was.turnId === delta.turnId && was.attempt === delta.attempt && was.iteration === delta.iteration;
    calls.set(delta.invocationId, same ? { ...was, text: was.text + delta.text } : { ...delta });
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
