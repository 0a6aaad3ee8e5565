import { describe, expect, it } from "vitest";
import type { TurnSnapshot } from "../approval/turn-snapshot";
import { TurnCustomKeys } from "../state/turn-custom-keys";
import { checkpointDecision, isRecoveredInput, MAX_NODE_CHECKPOINT_RESUMES, nodeCheckpointKey } from "./node-checkpoints";

const row = (deliverId: string, status: "PENDING" | "CONSUMED_PENDING" = "PENDING") => ({ deliverId, sourceNode: "a", content: "x", status });

const snapshot = (custom: Record<string, unknown> = {}): TurnSnapshot => ({
  sessionId: "i1:coder",
  turnId: "t1",
  startedAt: 1,
  takenAt: 2,
  resumeTarget: "LLM",
  turn: {
    messages: [{ role: "user", content: "go" }],
    custom,
    turnAttempt: 1,
    iteration: 1,
    maxIterations: 10,
    maxTurns: 3,
    usage: { inputTokens: 1, outputTokens: 1, reasoningTokens: 0, cacheReadTokens: 0, cacheCreationTokens: 0 },
    pendingToolCalls: [],
    toolBatchResults: [],
    toolBatchCalls: [],
  },
});

describe("node checkpoint keys", () => {
  it("are the same for the same instance, node and input rows (in any order), and differ otherwise", () => {
    const key = nodeCheckpointKey("i1", "coder", [row("d1"), row("d2")]);
    expect(key).toMatch(/^node-turn:i1:coder:[0-9a-f]{32}$/);
    expect(nodeCheckpointKey("i1", "coder", [row("d2", "CONSUMED_PENDING"), row("d1", "CONSUMED_PENDING")])).toBe(key);
    expect(nodeCheckpointKey("i1", "coder", [row("d1")])).not.toBe(key);
    expect(nodeCheckpointKey("i1", "coder", [row("d1"), row("d2"), row("d3")])).not.toBe(key);
    expect(nodeCheckpointKey("i1", "reviewer", [row("d1"), row("d2")])).not.toBe(key);
    expect(nodeCheckpointKey("i2", "coder", [row("d1"), row("d2")])).not.toBe(key);
    expect(nodeCheckpointKey("i1", "coder", [])).toBeNull();
  });

  it("are looked up only for rows a recovery re-offered", () => {
    expect(isRecoveredInput([row("d1")])).toBe(false);
    expect(isRecoveredInput([row("d1"), row("d2", "CONSUMED_PENDING")])).toBe(true);
  });

  it("of a leg resumed by a decision are its own, looked up only when the decision's row was re-offered", () => {
    const suspended = [row("d1", "CONSUMED_PENDING")];
    const decision = row("r1");
    const resumed = [...suspended, decision];
    expect(nodeCheckpointKey("i1", "coder", resumed)).not.toBe(nodeCheckpointKey("i1", "coder", suspended));
    // The suspended leg's rows come back with every decision: that says nothing of the resumed leg.
    expect(isRecoveredInput(resumed, decision)).toBe(false);
    const cut = row("r1", "CONSUMED_PENDING");
    expect(isRecoveredInput([...suspended, cut], cut)).toBe(true);
    expect(nodeCheckpointKey("i1", "coder", [...suspended, cut])).toBe(nodeCheckpointKey("i1", "coder", resumed));
  });
});

describe("checkpointDecision", () => {
  it("runs anew without a checkpoint, resumes (counting) below the limit, gives up at it", () => {
    expect(checkpointDecision(undefined)).toEqual({ kind: "fresh" });
    const first = checkpointDecision(snapshot());
    expect(first).toMatchObject({ kind: "resume", resumes: 1 });
    if (first.kind !== "resume") throw new Error("resume expected");
    expect(first.turn.custom.get(TurnCustomKeys.CHECKPOINT_RESUMES)).toBe(1);
    expect(first.turn.messages).toEqual([{ role: "user", content: "go" }]);
    expect(checkpointDecision(snapshot({ checkpoint_resumes: MAX_NODE_CHECKPOINT_RESUMES - 1 }))).toMatchObject({ kind: "resume", resumes: MAX_NODE_CHECKPOINT_RESUMES });
    expect(checkpointDecision(snapshot({ checkpoint_resumes: MAX_NODE_CHECKPOINT_RESUMES }))).toMatchObject({ kind: "exhausted" });
  });
});
