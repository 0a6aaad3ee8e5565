import { afterAll, beforeAll, describe } from "vitest";
import { PgTestDatabase } from "@/server/db/pg/testing/pg-test-database";
import { PgAgentMemory } from "./pg-agent-memory";
import { agentMemoryTests, type AgentMemory } from "./testing/agent-memory-suite";

describe("agent node memory on PostgreSQL", () => {
  let database: PgTestDatabase;
  beforeAll(async () => {
    database = await PgTestDatabase.create();
  });
  afterAll(async () => {
    await database?.[Symbol.asyncDispose]();
  });
  // New pools each time: what another process has.
  const open = (): AgentMemory => {
    const m = new PgAgentMemory(database.open().acks);
    return { memory: m, summaries: m, approvals: m.approvals, snapshots: m.snapshots, checkpoints: m.checkpoints };
  };
  agentMemoryTests({ open, reopened: async () => open() });
});
