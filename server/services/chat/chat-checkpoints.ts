import type { TurnSnapshot, TurnSnapshotStore } from "@/server/agent/approval/turn-snapshot";
import { CheckpointHook } from "@/server/agent/hook/builtin/checkpoint-hook";
import type { HookSpec } from "@/server/agent/hook/hook-runner";
import type { ChatStore } from "./chat-store";

const CHECKPOINT_PRIORITY = 1_000;

/**
 * A chat turn's iteration checkpoints, kept by the chat's store (ChatStore.saveCheckpoint): on SQLite
 * the write joins the connection's group commit after the turn's tool_result events; on PostgreSQL the
 * hook waits for its commit before the next model call. Either way a restart finds, for a turn cut after
 * its tools finished, a checkpoint that holds their results (orphaned-turns.ts resumes from it).
 */
export function chatCheckpointHook(store: ChatStore, now: () => number): HookSpec {
  const snapshots: TurnSnapshotStore = {
    save: async (snapshot: TurnSnapshot) => void (await store.saveCheckpoint(snapshot)),
    load: async (turnId: string) => (await store.checkpoint(turnId)) ?? undefined,
  };
  // Last of the AFTER_ITERATION hooks: the checkpoint holds what the others did to the turn.
  return { hook: new CheckpointHook(snapshots, undefined, now), name: "checkpoint", priority: CHECKPOINT_PRIORITY };
}
