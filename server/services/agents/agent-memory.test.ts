import { describe } from "vitest";
import { InMemoryApprovalStore } from "@/server/agent/approval/approval-store";
import { InMemoryTurnSnapshotStore } from "@/server/agent/approval/turn-snapshot";
import { InMemoryContextSummaryStore } from "@/server/agent/memory/context-summary";
import { InMemoryNodeCheckpointStore } from "@/server/agent/graph-node/node-checkpoints";
import { InMemorySessionMemory } from "@/server/agent/react/session-memory";
import { agentMemoryTests, type AgentMemory } from "./testing/agent-memory-suite";

describe("agent node memory in memory", () => {
  const kept: AgentMemory = { memory: new InMemorySessionMemory(), summaries: new InMemoryContextSummaryStore(), approvals: new InMemoryApprovalStore(), snapshots: new InMemoryTurnSnapshotStore(), checkpoints: new InMemoryNodeCheckpointStore() };
  agentMemoryTests({ open: () => kept, reopened: async () => kept });
});
