import { expect, it } from "vitest";
import type { ApprovalStore } from "@/server/agent/approval/approval-store";
import type { ApprovalTransaction } from "@/server/agent/approval/approval-types";
import type { TurnSnapshot, TurnSnapshotStore } from "@/server/agent/approval/turn-snapshot";
import type { ChatMessage } from "@/server/agent/llm/messages";
import type { ContextSummary, ContextSummaryStore } from "@/server/agent/memory/context-summary";
import type { SessionMemory } from "@/server/agent/react/session-memory";
import type { NodeCheckpointStore } from "@/server/agent/graph-node/node-checkpoints";
import { newSnowflake } from "@/server/graph/ids";

/** An agent node's memory: its conversation, the approvals its turns wait on, and the frozen turns. */
export interface AgentMemory {
  memory: SessionMemory;
  /** The memory-cleanup summary of each node's conversation. */
  summaries: ContextSummaryStore;
  approvals: ApprovalStore;
  snapshots: TurnSnapshotStore;
  checkpoints: NodeCheckpointStore;
}

export interface AgentMemoryBackend {
  open(): AgentMemory;
  /** The same tables through new connections, once what was written is committed (another process, a restart). */
  reopened(): Promise<AgentMemory>;
}

const transaction = (sessionId: string, createdAt: number): ApprovalTransaction => ({
  id: newSnowflake(),
  sessionId,
  turnId: `turn-${createdAt}`,
  call: { id: `c${createdAt}`, name: "deploy", arguments: "{}" },
  status: "pending",
  createdAt,
});

/** What an agent node wrote is what it (or the next process) reads. */
export function agentMemoryTests(backend: AgentMemoryBackend): void {
  it("keeps each node's conversation, replaced whole on save", async () => {
    const { memory } = backend.open();
    const session = `${newSnowflake()}:coder`;
    expect(await memory.load(session)).toEqual([]);
    const messages: ChatMessage[] = [
      { role: "user", content: "add(a, b)" },
      { role: "assistant", content: "v1", toolCalls: [{ id: "c1", name: "write", arguments: '{"x":1}' }] },
    ];
    await memory.save(session, messages.slice(0, 1));
    await memory.save(session, messages);
    await memory.save(`${newSnowflake()}:reviewer`, [{ role: "user", content: "other" }]);
    expect(await memory.load(session)).toEqual(messages);
    expect(await (await backend.reopened()).memory.load(session)).toEqual(messages);
  });

  it("keeps a node's context summary beside its conversation: each save leaves the other as it is", async () => {
    const { memory, summaries } = backend.open();
    const session = `${newSnowflake()}:coder`;
    expect(await summaries.loadSummary(session)).toBeNull();
    const summary: ContextSummary = { text: "The node read three files.", coveredMessages: 2, digest: "d".repeat(32), prunedMessages: 2, tokensBefore: 900, tokensAfter: 120, mode: "consolidated", at: 5 };
    const messages: ChatMessage[] = [{ role: "user", content: "read them" }, { role: "assistant", content: "done" }, { role: "user", content: "next" }];
    // A summary written before the node's first messages are saved (a first turn over budget) keeps them.
    await summaries.saveSummary(session, summary);
    await memory.save(session, messages);
    const next = { ...summary, coveredMessages: 3, mode: "pruned" as const };
    await summaries.saveSummary(`${newSnowflake()}:coder`, next);
    const other = await backend.reopened();
    expect(await other.summaries.loadSummary(session)).toEqual(summary);
    expect(await other.memory.load(session)).toEqual(messages);
    await summaries.saveSummary(session, next);
    expect(await (await backend.reopened()).summaries.loadSummary(session)).toEqual(next);
    expect(await (await backend.reopened()).memory.load(session)).toEqual(messages);
  });

  it("keeps approvals (pending ones of a session oldest first) and their decisions", async () => {
    const { approvals } = backend.open();
    const session = `${newSnowflake()}:coder`;
    const [late, early] = [transaction(session, 20), transaction(session, 10)];
    await approvals.save(late);
    await approvals.save(early);
    await approvals.save(transaction(`${newSnowflake()}:other`, 5));
    expect(await approvals.pending(session)).toEqual([early, late]);
    await approvals.save({ ...early, status: "approved", decidedAt: 30, reason: "ok" });
    const other = (await backend.reopened()).approvals;
    expect(await other.pending(session)).toEqual([late]);
    expect(await other.get(early.id)).toEqual({ ...early, status: "approved", decidedAt: 30, reason: "ok" });
    expect(await other.get("nothing")).toBeUndefined();
  });

  it("keeps the frozen turn of a suspended turn, the latest one of a turn winning", async () => {
    const { snapshots } = backend.open();
    const turnId = newSnowflake();
    const snapshot = frozen(turnId);
    await snapshots.save(snapshot(1));
    await snapshots.save(snapshot(2));
    expect(await (await backend.reopened()).snapshots.load(turnId)).toEqual(await snapshots.load(turnId));
    expect((await snapshots.load(turnId))?.takenAt).toBe(2);
    expect(await snapshots.load("nothing")).toBeUndefined();
  });

  it("keeps a running turn's iteration checkpoint under its invocation's key, apart from the turn's approval snapshot, until deleted", async () => {
    const { snapshots, checkpoints } = backend.open();
    const turnId = newSnowflake();
    const [key, other] = [`node-turn:${newSnowflake()}:coder:aa`, `node-turn:${newSnowflake()}:coder:bb`];
    const snapshot = frozen(turnId);
    await snapshots.save({ ...snapshot(1), resumeTarget: "TOOL" });
    await checkpoints.save(key, { ...snapshot(2), resumeTarget: "LLM" });
    await checkpoints.save(key, { ...snapshot(3), resumeTarget: "LLM" });
    await checkpoints.save(other, { ...snapshot(4), resumeTarget: "LLM" });
    const reopened = await backend.reopened();
    expect(await reopened.checkpoints.load(key)).toMatchObject({ turnId, takenAt: 3, resumeTarget: "LLM" });
    expect(await reopened.snapshots.load(turnId)).toMatchObject({ takenAt: 1, resumeTarget: "TOOL" });
    await checkpoints.delete(key);
    const later = await backend.reopened();
    expect(await later.checkpoints.load(key)).toBeUndefined();
    expect(await later.checkpoints.load(other)).toMatchObject({ takenAt: 4 });
    expect(await later.snapshots.load(turnId)).toMatchObject({ takenAt: 1 });
    await checkpoints.delete("nothing");
  });
}

function frozen(turnId: string) {
  return (takenAt: number): TurnSnapshot => ({
    turnId,
    sessionId: "s:coder",
    startedAt: 1,
    takenAt,
    resumeTarget: "TOOL",
    turn: {
      messages: [{ role: "user", content: "deploy" }],
      custom: { note: "x" },
      turnAttempt: 1,
      iteration: 1,
      maxIterations: 10,
      maxTurns: 1,
      usage: { inputTokens: 1, outputTokens: 2, reasoningTokens: 0, cacheReadTokens: 0, cacheCreationTokens: 0 },
      pendingToolCalls: [],
      toolBatchResults: [],
      toolBatchCalls: [{ id: "c1", name: "deploy", arguments: "{}" }],
    },
  });
}
